package protection

import (
	"context"
	"net/http"

	"forge/services/errs"
	"forge/services/store"
)

// ReviewFacts is what the merge check needs to know of a pull request's
// reviews, counted as Gitea counts them for rule (official, not
// dismissed, not stale when the rule ignores stale approvals):
// Reviews.Facts, from the stored reviews; NoReviews when none is wired.
type ReviewFacts interface {
	// ApprovalCount is the number of approvals that count for rule.
	ApprovalCount(ctx context.Context, rule *store.BranchProtection) (int64, error)
	// HasRejected: an official, not dismissed review requests changes.
	HasRejected(ctx context.Context, rule *store.BranchProtection) (bool, error)
	// HasOfficialRequest: an official review request is still open.
	HasOfficialRequest(ctx context.Context, rule *store.BranchProtection) (bool, error)
}

// NoReviews is ReviewFacts of a pull request nobody reviewed.
type NoReviews struct{}

func (NoReviews) ApprovalCount(context.Context, *store.BranchProtection) (int64, error) {
	return 0, nil
}
func (NoReviews) HasRejected(context.Context, *store.BranchProtection) (bool, error) {
	return false, nil
}
func (NoReviews) HasOfficialRequest(context.Context, *store.BranchProtection) (bool, error) {
	return false, nil
}

// Gitea's reasons a merge is refused (405).
const (
	ReasonStatusChecks     = "Not all required status checks successful"
	ReasonApprovals        = "Does not have enough approvals"
	ReasonRejected         = "There are requested changes"
	ReasonOfficialRequests = "There are official review requests"
	ReasonOutdated         = "The head branch is behind the base branch"
	ReasonProtectedFiles   = "Changed protected files"
)

// ErrNotAllowedToMerge: the merge whitelist leaves the doer out (405).
var ErrNotAllowedToMerge = errs.New(errs.FailedPrecondition, "User not allowed to merge PR").WithHTTPStatus(http.StatusMethodNotAllowed)

// refusedReason is the ErrorInfo reason of CheckMerge's refusals.
const refusedReason = "MERGE_CHECKS_PENDING"

func refuseMerge(reason string) error {
	return errs.Newf(errs.FailedPrecondition, "not allowed to merge [reason: %s]", reason).
		WithHTTPStatus(http.StatusMethodNotAllowed).WithReason(refusedReason)
}

// Refused reports whether err is CheckMerge's refusal: a condition of the
// rule (status checks, reviews, an outdated head) not met yet, which a
// scheduled merge waits for.
func Refused(err error) bool {
	e, ok := errs.As(err)
	return ok && e.Reason == refusedReason
}

// MergeFacts is a merge to check against the rule of its base branch.
type MergeFacts struct {
	HeadSHA string
	// Behind reports whether the head lacks the base's tip (read only when
	// the rule blocks outdated branches).
	Behind func(ctx context.Context) (bool, error)
	// Files lists the paths the pull request changes (read only when the
	// rule protects file patterns).
	Files   func(ctx context.Context) ([]string, error)
	Reviews ReviewFacts
	// Force: force_merge by a repository administrator, who skips the
	// checks (not the merge whitelist).
	Force bool
}

// MayMerge is the merge whitelist: 405 "User not allowed to merge PR"
// when rule (nil: none) keeps d from merging.
func MayMerge(rule *store.BranchProtection, d Doer) error {
	if !CanMerge(rule, d) {
		return ErrNotAllowedToMerge
	}
	return nil
}

// CheckMerge decides a merge into a branch rule protects, in Gitea's
// order: status checks, approvals, rejected reviews, official review
// requests, an outdated head, changed protected files. 405 with the first
// missing condition.
func (s *Service) CheckMerge(ctx context.Context, repoID int64, rule *store.BranchProtection, f MergeFacts) error {
	if rule == nil || f.Force {
		return nil
	}
	if rule.EnableStatusCheck {
		ok, err := s.statusesPass(ctx, repoID, rule, f.HeadSHA)
		if err != nil {
			return err
		}
		if !ok {
			return refuseMerge(ReasonStatusChecks)
		}
	}
	reviews := f.Reviews
	if reviews == nil {
		reviews = NoReviews{}
	}
	if rule.RequiredApprovals > 0 {
		n, err := reviews.ApprovalCount(ctx, rule)
		if err != nil {
			return err
		}
		if n < rule.RequiredApprovals {
			return refuseMerge(ReasonApprovals)
		}
	}
	if rule.BlockOnRejectedReviews {
		if yes, err := reviews.HasRejected(ctx, rule); err != nil {
			return err
		} else if yes {
			return refuseMerge(ReasonRejected)
		}
	}
	if rule.BlockOnOfficialReviewRequests {
		if yes, err := reviews.HasOfficialRequest(ctx, rule); err != nil {
			return err
		} else if yes {
			return refuseMerge(ReasonOfficialRequests)
		}
	}
	if rule.BlockOnOutdatedBranch && f.Behind != nil {
		if behind, err := f.Behind(ctx); err != nil {
			return err
		} else if behind {
			return refuseMerge(ReasonOutdated)
		}
	}
	if patterns := FilePatterns(rule.ProtectedFilePatterns); len(patterns) > 0 && f.Files != nil {
		paths, err := f.Files(ctx)
		if err != nil {
			return err
		}
		if matchAny(patterns, paths) != "" {
			return refuseMerge(ReasonProtectedFiles)
		}
	}
	return nil
}

// maxContexts bounds the contexts of a commit a merge check reads.
const maxContexts = 1000

// statusesPass: with required contexts, each pattern matches at least one
// context of the head and the worst matched latest state is success; with
// none, the combined state of every context is success (no status at all
// passes).
func (s *Service) statusesPass(ctx context.Context, repoID int64, rule *store.BranchProtection, sha string) (bool, error) {
	latest, _, err := s.store.LatestCommitStatuses(ctx, repoID, sha, 0, maxContexts)
	if err != nil {
		return false, errs.Wrap(err, "commit statuses")
	}
	patterns, _ := rule.Contexts()
	if len(patterns) == 0 {
		state := ""
		for _, st := range latest {
			state = store.WorseCommitState(state, st.State)
		}
		return state == "" || state == "success", nil
	}
	worst := ""
	for _, p := range patterns {
		matched := false
		for _, st := range latest {
			if GlobMatches(p, st.Context) {
				matched = true
				worst = store.WorseCommitState(worst, st.State)
			}
		}
		if !matched {
			return false, nil
		}
	}
	return worst == "success", nil
}
