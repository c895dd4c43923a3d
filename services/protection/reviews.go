package protection

import (
	"context"
	"slices"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/reviews"
	"forge/services/store"
)

// ReviewStore is what the review facts of a merge read. *store.Store
// implements it (checked in services/area/all).
type ReviewStore interface {
	PullApprovals(ctx context.Context, q store.ApprovalQuery) (store.Approvals, error)
	OpenReviewRequests(ctx context.Context, issueID int64, limit int) ([]store.Review, error)
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	ReviewTeams(ctx context.Context, ids []int64) (map[int64]*store.Team, error)
	TeamIDsOfMember(ctx context.Context, orgID, uid int64) ([]int64, error)
	// MembersOfTeams returns those of uids in any of teamIDs.
	MembersOfTeams(ctx context.Context, teamIDs, uids []int64) ([]int64, error)
	BranchProtections(ctx context.Context, repoID int64) ([]store.BranchProtection, error)
}

// Reviews decides, from the stored reviews, what a rule asks of them
// (§8.6): who is official, how many approvals count, whether changes or
// official reviews are requested.
type Reviews struct {
	store  ReviewStore
	access *access.Checker
}

// NewReviews builds the review facts; a is who writes a repository's code.
func NewReviews(s ReviewStore, a *access.Checker) *Reviews {
	return &Reviews{store: s, access: a}
}

// maxRequests bounds the open review requests a merge check reads.
const maxRequests = 200

// Official decides whether reviewer's verdict on pr counts (the reviews
// area's Officials): with a rule on the base branch that has an approvals
// whitelist, official is being in it (users or teams); otherwise it is
// writing the code.
func (v *Reviews) Official(ctx context.Context, r *access.Repo, pr *store.PullRequest, reviewer *auth.Principal) (bool, error) {
	rule, err := RuleFor(ctx, v.store, r.ID, pr.BaseBranch)
	if err != nil {
		return false, err
	}
	if rule == nil || !rule.EnableApprovalsWhitelist {
		return reviews.CodeWriters(ctx, r, pr, reviewer)
	}
	if reviewer == nil || reviewer.User == nil {
		return false, nil
	}
	uid := reviewer.User.ID
	if slices.Contains(rule.ApprovalsWhitelistUserIDs.IDs(), uid) {
		return true, nil
	}
	if len(rule.ApprovalsWhitelistTeamIDs.IDs()) == 0 || r.Owner.Type != store.UserTypeOrganization {
		return false, nil
	}
	teams, err := v.store.TeamIDsOfMember(ctx, r.OwnerID, uid)
	if err != nil {
		return false, errs.Wrap(err, "teams of reviewer")
	}
	for _, t := range rule.ApprovalsWhitelistTeamIDs.IDs() {
		if slices.Contains(teams, t) {
			return true, nil
		}
	}
	return false, nil
}

// Facts are the review facts of pull request pr of repo, whose head to
// merge is headSHA.
func (v *Reviews) Facts(repo *store.Repository, pr *store.PullRequest, headSHA string) ReviewFacts {
	return &pullReviews{v: v, repo: repo, pr: pr, head: headSHA}
}

type pullReviews struct {
	v    *Reviews
	repo *store.Repository
	pr   *store.PullRequest
	head string
}

// ApprovalCount counts official, not dismissed approvals, only from the
// whitelist when the rule has one, and only those on the head when the
// rule ignores stale approvals. Under dismiss_stale_approvals a stale
// approval is about to be dismissed (the refresher does it once it sees
// the push): it does not count either, so a merge right after a push
// cannot slip through on it.
func (p *pullReviews) ApprovalCount(ctx context.Context, rule *store.BranchProtection) (int64, error) {
	q := store.ApprovalQuery{IssueID: p.pr.IssueID, HeadSHA: p.head,
		IgnoreStale: rule.IgnoreStaleApprovals || rule.DismissStaleApprovals}
	if rule.EnableApprovalsWhitelist {
		q.Whitelist = append([]int64{}, rule.ApprovalsWhitelistUserIDs.IDs()...)
		q.WhitelistTeams = rule.ApprovalsWhitelistTeamIDs.IDs()
	}
	a, err := p.v.store.PullApprovals(ctx, q)
	return a.Count, err
}

// HasRejected: an official, not dismissed request for changes.
func (p *pullReviews) HasRejected(ctx context.Context, rule *store.BranchProtection) (bool, error) {
	a, err := p.v.store.PullApprovals(ctx, store.ApprovalQuery{IssueID: p.pr.IssueID, HeadSHA: p.head})
	return a.Rejected, err
}

// HasOfficialRequest: an open review request of someone whose verdict
// would be official (in the whitelist, or writing the code), or of a team
// in the whitelist (or, without one, with write access to the code).
func (p *pullReviews) HasOfficialRequest(ctx context.Context, rule *store.BranchProtection) (bool, error) {
	reqs, err := p.v.store.OpenReviewRequests(ctx, p.pr.IssueID, maxRequests)
	if err != nil || len(reqs) == 0 {
		return false, err
	}
	var userIDs, teamIDs []int64
	for _, r := range reqs {
		if r.ReviewerTeamID != 0 {
			teamIDs = append(teamIDs, r.ReviewerTeamID)
		} else {
			userIDs = append(userIDs, r.ReviewerID)
		}
	}
	if rule.EnableApprovalsWhitelist {
		for _, t := range teamIDs {
			if slices.Contains(rule.ApprovalsWhitelistTeamIDs.IDs(), t) {
				return true, nil
			}
		}
		for _, u := range userIDs {
			if slices.Contains(rule.ApprovalsWhitelistUserIDs.IDs(), u) {
				return true, nil
			}
		}
		if len(rule.ApprovalsWhitelistTeamIDs.IDs()) == 0 || len(userIDs) == 0 {
			return false, nil
		}
		// A requested person in a whitelisted team is official too.
		in, err := p.v.store.MembersOfTeams(ctx, rule.ApprovalsWhitelistTeamIDs.IDs(), userIDs)
		if err != nil {
			return false, err
		}
		return len(in) > 0, nil
	}
	if len(teamIDs) > 0 {
		teams, err := p.v.store.ReviewTeams(ctx, teamIDs)
		if err != nil {
			return false, err
		}
		for _, t := range teams {
			if t.Authorize >= store.AccessAdmin || t.UnitMode(store.UnitTypeCode) >= store.AccessWrite {
				return true, nil
			}
		}
	}
	if len(userIDs) == 0 {
		return false, nil
	}
	users, err := p.v.store.UsersByID(ctx, userIDs)
	if err != nil {
		return false, err
	}
	for _, id := range userIDs {
		u := users[id]
		if u == nil {
			continue
		}
		mode, err := p.v.access.UnitMode(ctx, p.repo, &auth.Principal{User: u}, auth.UnitCode)
		if err != nil {
			return false, err
		}
		if mode >= store.AccessWrite {
			return true, nil
		}
	}
	return false, nil
}
