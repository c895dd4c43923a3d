package pulls

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/failpoint"
	"forge/services/git"
	"forge/services/protection"
	"forge/services/store"
)

// MergeStore is what merging reads and writes in the database.
// *store.Store implements it (checked in services/area/all).
type MergeStore interface {
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	MarkPullRequestMerged(ctx context.Context, m store.PullMerge) error
	ScheduleAutoMerge(ctx context.Context, a *store.AutoMerge, issueID int64) error
	CancelAutoMerge(ctx context.Context, pullID, issueID, doerID int64) error
	OtherOpenPullsFromBranch(ctx context.Context, headRepoID int64, branch string, exceptPullID int64) (int64, error)
	RetargetChildPullRequests(ctx context.Context, c store.ChildRetarget) ([]int64, error)
}

// MergeGit is what merging does in repositories (*git.Store).
type MergeGit interface {
	RepoPath(owner, name string) (string, error)
	GetBranch(ctx context.Context, path, name string) (git.Branch, error)
	FetchCommit(ctx context.Context, dst, src, sha string) error
	Mergeable(ctx context.Context, path, base, head string) (bool, error)
	BuildMerge(ctx context.Context, path string, o git.MergeOptions) (string, error)
	CommitAuthors(ctx context.Context, path, base, head string) ([]git.Signature, error)
	LockRef(ctx context.Context, path, ref string) (unlock func(), err error)
	MoveBranch(ctx context.Context, path, name, newSHA, oldSHA string) error
	SetPullHead(ctx context.Context, path string, index int64, sha string) error
	DeleteBranch(ctx context.Context, path, name string) error
	HasCommit(ctx context.Context, path, sha string) bool
	GetCommit(ctx context.Context, path, ref string) (git.Commit, error)
	IsAncestor(ctx context.Context, path, a, b string) (bool, error)
	MergeBase(ctx context.Context, path, a, b string) (string, error)
	DiffFilesBetween(ctx context.Context, path, from, to string) ([]git.ChangedFile, error)
}

// BranchRecords records ref moves in the branch records (repos.Syncer).
type BranchRecords interface {
	Apply(ctx context.Context, repo *store.Repository, pusherID int64, updates []git.RefUpdate) error
}

// Merger merges pull requests. Who may merge was decided by the rule
// pull-merger before it runs.
type Merger struct {
	store   MergeStore
	git     MergeGit
	records BranchRecords
	// retarget and changed: see retargetChildren.
	retarget bool
	changed  func(ctx context.Context, repoID int64)
	// protection decides merges into protected branches; nil protects none.
	protection *protection.Service
	// reviews gives the review facts of a pull request merging headSHA
	// (protection.Reviews.Facts); nil: protection.NoReviews.
	reviews func(repo *store.Repository, pr *store.PullRequest, headSHA string) protection.ReviewFacts
}

// WithReviews gives the merge checks the review facts of a pull request
// (of repo, merging headSHA): protection.Reviews.Facts.
func (m *Merger) WithReviews(f func(repo *store.Repository, pr *store.PullRequest, headSHA string) protection.ReviewFacts) *Merger {
	m.reviews = f
	return m
}

// WithProtection checks merges against the base branch's protection rule.
func (m *Merger) WithProtection(p *protection.Service) *Merger {
	m.protection = p
	return m
}

// NewMerger builds the merge use case.
func NewMerger(s MergeStore, g MergeGit, r BranchRecords) *Merger {
	return &Merger{store: s, git: g, records: r}
}

// MergeRequest is Gitea's MergePullRequestOption as the use case needs it.
type MergeRequest struct {
	Index        int64
	Style        string
	Title, Body  string
	HeadCommitID string
	// MergeCommitID is the commit of a manual merge.
	MergeCommitID string
	DeleteBranch  bool
	// WhenChecksSucceed: when the base branch's protection refuses the
	// merge for now (status checks, reviews), schedule it instead.
	WhenChecksSucceed bool
	// ForceMerge: a repository administrator skips the protection checks.
	ForceMerge bool
}

// Gitea's answers to a merge (the rule pull-merger answers the earlier
// ones).
var (
	errWorkInProgress = errs.New(errs.FailedPrecondition, "Work in progress PRs cannot be merged").WithHTTPStatus(http.StatusMethodNotAllowed)
	errNotMergeable   = errs.New(errs.FailedPrecondition, "Please try again later").WithHTTPStatus(http.StatusMethodNotAllowed)
	errHeadOutOfDate  = errs.New(errs.Conflict, "head out of date")
	errPushOutOfDate  = errs.New(errs.Conflict, "merge push out of date")
	errWrongCommitID  = errs.New(errs.Conflict, "Wrong commit ID")
	errUnknownStyle   = errs.New(errs.Invalid, "Do: the merge style must be one of merge, rebase, rebase-merge, squash, fast-forward-only, manually-merged")
)

// mergeAttempts is how often a merge is recomputed when the base branch
// moved (a push landed) between reading it and swapping it.
const mergeAttempts = 3

// knownStyles are Gitea's merge styles.
var knownStyles = map[string]bool{
	"merge": true, "rebase": true, "rebase-merge": true, "squash": true, "fast-forward-only": true, "manually-merged": true,
}

// styleAllowed tells whether the repository's settings allow style.
func styleAllowed(r *store.Repository, style string) bool {
	switch style {
	case "merge":
		return r.AllowMergeCommits
	case "rebase":
		return r.AllowRebase
	case "rebase-merge":
		return r.AllowRebaseExplicit
	case "squash":
		return r.AllowSquashMerge
	case "fast-forward-only":
		return r.AllowFastForwardOnlyMerge
	case "manually-merged":
		return r.AllowManualMerge
	}
	return false
}

// Merge merges pull request in.Index of base by doer, in Gitea's order of
// checks: work in progress and conflicts (405), the style the repository
// allows (405), the head the caller expects (409), then the merge itself
// (409 on conflicts). The base branch moves with a compare-and-swap
// under its ref lock: a push that lands meanwhile makes the merge
// recompute on the new base, and after mergeAttempts it is 409 "merge
// push out of date"; the push is never lost. Then the pull request is
// marked merged and its issue closed, and, if asked, its head branch
// deleted. With in.WhenChecksSucceed, a merge the base branch's rule
// refuses for now (protection.Refused) is scheduled instead, once every
// other check passed: scheduled is true then.
func (m *Merger) Merge(ctx context.Context, base *access.Repo, doer *store.User, in MergeRequest) (scheduled bool, err error) {
	if !knownStyles[in.Style] {
		return false, errUnknownStyle
	}
	return m.merge(ctx, base, doer, in)
}

func (m *Merger) merge(ctx context.Context, base *access.Repo, doer *store.User, in MergeRequest) (bool, error) {
	pr, is, err := m.store.PullRequestByIndex(ctx, base.ID, in.Index)
	if err != nil {
		return false, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	basePath, err := m.git.RepoPath(base.Owner.Name, base.Name)
	if err != nil {
		return false, err
	}
	var rule *store.BranchProtection
	var rules *protection.RepoRules
	if m.protection != nil {
		if rules, err = m.protection.Rules(ctx, base.ID, base.OwnerID, base.Owner.Type == store.UserTypeOrganization); err != nil {
			return false, err
		}
		if rule = rules.Match(pr.BaseBranch); rule != nil {
			d, err := rules.Doer(ctx, doer.ID)
			if err != nil {
				return false, err
			}
			if err := protection.MayMerge(rule, d); err != nil {
				return false, err
			}
		}
	}
	if in.Style == "manually-merged" {
		return false, m.markManual(ctx, base, basePath, pr, doer, in.MergeCommitID)
	}
	if draft(is.Title) {
		return false, errWorkInProgress
	}
	headRepo, headSHA, err := m.head(ctx, base, basePath, pr)
	if err != nil {
		return false, err
	}
	// One merge or API change of the base branch at a time in this
	// process; pushes are not serialized, the swap below catches them.
	unlock, err := m.git.LockRef(ctx, basePath, "refs/heads/"+pr.BaseBranch)
	if err != nil {
		return false, err
	}
	defer unlock()
	if pr, _, err = m.store.PullRequestByIndex(ctx, base.ID, in.Index); err != nil {
		return false, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	if pr.HasMerged {
		return false, store.ErrPullRequestMerged
	}
	baseTip, err := m.baseTip(ctx, basePath, pr.BaseBranch)
	if err != nil {
		return false, err
	}
	if ok, err := m.git.Mergeable(ctx, basePath, baseTip, headSHA); err != nil {
		return false, errs.Wrap(err, "check conflicts")
	} else if !ok {
		return false, errNotMergeable
	}
	schedule := false
	if rule != nil {
		var reviews protection.ReviewFacts = protection.NoReviews{}
		if m.reviews != nil {
			reviews = m.reviews(base.Repository, pr, headSHA)
		}
		err := m.protection.CheckMerge(ctx, base.ID, rule, protection.MergeFacts{
			HeadSHA: headSHA, Reviews: reviews,
			Force: in.ForceMerge && base.UnitMode(auth.UnitCode) >= store.AccessAdmin,
			Behind: func(ctx context.Context) (bool, error) {
				in, err := m.git.IsAncestor(ctx, basePath, baseTip, headSHA)
				return !in, err
			},
			Files: func(ctx context.Context) ([]string, error) {
				return m.changedPaths(ctx, basePath, baseTip, headSHA)
			},
		})
		if err != nil && (!in.WhenChecksSucceed || !protection.Refused(err)) {
			return false, err
		}
		schedule = err != nil
		// forge does not sign merge commits, so a branch that requires
		// signed commits takes no merge (force_merge included), as Gitea
		// refuses a merge it would not sign.
		if rule.RequireSignedCommits {
			return false, errs.Newf(errs.FailedPrecondition, "Protected branch %s requires signed commits but this merge would not be signed", pr.BaseBranch).
				WithHTTPStatus(http.StatusMethodNotAllowed)
		}
	}
	if !styleAllowed(base.Repository, in.Style) {
		return false, errs.Newf(errs.FailedPrecondition, "%s is not allowed an allowed merge style for this repository", in.Style).
			WithHTTPStatus(http.StatusMethodNotAllowed)
	}
	if in.HeadCommitID != "" && !strings.EqualFold(in.HeadCommitID, headSHA) {
		return false, errHeadOutOfDate
	}
	if schedule {
		return true, m.store.ScheduleAutoMerge(ctx, &store.AutoMerge{PullID: pr.ID, RepoID: base.ID, DoerID: doer.ID,
			MergeStyle: in.Style, Title: in.Title, Message: in.Body, DeleteBranchAfterMerge: in.DeleteBranch}, pr.IssueID)
	}
	opts, err := m.options(ctx, base, basePath, headRepo, pr, is, doer, headSHA, in)
	if err != nil {
		return false, err
	}
	// The head about to be merged is kept under the pull request's ref
	// first: it is the pull request's head whether or not the merge lands,
	// and once the base has moved nothing is left to fail but the record.
	if headSHA != pr.HeadSHA {
		if err := m.git.SetPullHead(ctx, basePath, pr.Index, headSHA); err != nil {
			return false, errs.Wrap(err, "keep the head to merge")
		}
	}
	merged, err := m.land(ctx, basePath, pr.BaseBranch, baseTip, opts)
	if err != nil {
		return false, err
	}
	failpoint.Hit(FailpointAfterMergeLanded)
	// The merge is recorded before the branch move is, so the refresher,
	// which the move wakes, finds it merged; should the refresher still
	// come first (the reconciler replays the journal too), the store lets
	// the merger claim the merge it recorded.
	err = m.store.MarkPullRequestMerged(ctx, store.PullMerge{
		PullID: pr.ID, IssueID: pr.IssueID, RepoID: base.ID, MergerID: doer.ID, MergedSHA: merged.sha, HeadSHA: headSHA,
	})
	if err != nil {
		return false, err
	}
	if err := m.records.Apply(ctx, base.Repository, doer.ID, []git.RefUpdate{
		{Name: "refs/heads/" + pr.BaseBranch, OldSHA: merged.old, NewSHA: merged.sha},
	}); err != nil {
		// The reconciler records it from the journal.
		slog.Warn("record the base branch after a merge", "repo", base.ID, "err", err)
	}
	unlock()
	if in.DeleteBranch {
		m.deleteHead(ctx, base, basePath, pr, doer, headSHA, rules)
	}
	return false, nil
}

// FailpointAfterMergeLanded is the test-only failpoint (see package
// failpoint) between moving the base branch onto the merge and recording
// the merge: a crash there leaves a base that holds the head, which the
// refresher marks merged once forge is back.
const FailpointAfterMergeLanded = "after-merge-landed"

// markManual records that the pull request was merged by hand as commit
// sha of its base branch (Gitea's manually-merged, checked before work in
// progress and conflicts): the repository must allow it (405), and sha
// must be a full commit id on the base branch (409 "Wrong commit ID").
// The merge time is the commit's author time, as in Gitea.
func (m *Merger) markManual(ctx context.Context, base *access.Repo, path string, pr *store.PullRequest, doer *store.User, sha string) error {
	if !styleAllowed(base.Repository, "manually-merged") {
		return errs.New(errs.FailedPrecondition, "manually-merged is not allowed an allowed merge style for this repository").
			WithHTTPStatus(http.StatusMethodNotAllowed)
	}
	sha = strings.ToLower(sha)
	if (len(sha) != 40 && len(sha) != 64) || !m.git.HasCommit(ctx, path, sha) {
		return errWrongCommitID
	}
	tip, err := m.baseTip(ctx, path, pr.BaseBranch)
	if err != nil {
		return err
	}
	if ok, err := m.git.IsAncestor(ctx, path, sha, tip); err != nil {
		return errs.Wrap(err, "find the commit on the base branch")
	} else if !ok {
		return errWrongCommitID
	}
	c, err := m.git.GetCommit(ctx, path, sha)
	if err != nil {
		return errs.Wrap(err, "read the merge commit")
	}
	return m.store.MarkPullRequestMerged(ctx, store.PullMerge{
		PullID: pr.ID, IssueID: pr.IssueID, RepoID: base.ID, MergerID: doer.ID, MergedSHA: sha, HeadSHA: pr.HeadSHA,
		MergedUnix: c.Author.When.Unix(),
	})
}

// head is the pull request's head repository and its head commit now:
// the head branch's tip, copied into the base repository when it lives in
// a fork, or the kept head when the branch is gone.
func (m *Merger) head(ctx context.Context, base *access.Repo, basePath string, pr *store.PullRequest) (*store.Repository, string, error) {
	headRepo := base.Repository
	headPath := basePath
	if pr.HeadRepoID != base.ID {
		found, err := m.store.RepositoriesByID(ctx, []int64{pr.HeadRepoID})
		if err != nil {
			return nil, "", err
		}
		if headRepo = found[pr.HeadRepoID]; headRepo == nil {
			return nil, pr.HeadSHA, nil // the fork is gone: its kept head
		}
		if headPath, err = m.git.RepoPath(headRepo.OwnerName, headRepo.Name); err != nil {
			return nil, "", err
		}
	}
	b, err := m.git.GetBranch(ctx, headPath, pr.HeadBranch)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return headRepo, pr.HeadSHA, nil
	}
	if err != nil {
		return nil, "", errs.Wrap(err, "read the head branch")
	}
	if headPath != basePath {
		if err := m.git.FetchCommit(ctx, basePath, headPath, b.Commit.SHA); err != nil {
			return nil, "", errs.Wrap(err, "copy the head commit")
		}
	}
	return headRepo, b.Commit.SHA, nil
}

// baseTip is the base branch's commit; a deleted base is 404.
func (m *Merger) baseTip(ctx context.Context, path, name string) (string, error) {
	b, err := m.git.GetBranch(ctx, path, name)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return "", errs.Newf(errs.NotFound, "branch does not exist [name: %s]", name)
	}
	if err != nil {
		return "", errs.Wrap(err, "read the base branch")
	}
	return b.Commit.SHA, nil
}

// options builds the merge: the committer is the merger, now; a squash
// commit is authored by the pull request's poster and names the other
// authors in Co-authored-by trailers.
func (m *Merger) options(ctx context.Context, base *access.Repo, basePath string, headRepo *store.Repository, pr *store.PullRequest,
	is *store.Issue, doer *store.User, headSHA string, in MergeRequest) (git.MergeOptions, error) {
	now := time.Now()
	committer := signature(doer, now)
	o := git.MergeOptions{Style: git.MergeStyle(in.Style), Head: headSHA, Author: committer, Committer: committer}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		title = defaultMergeTitle(base, headRepo, pr, is, in.Style)
	}
	o.Message = title
	if body := strings.TrimSpace(in.Body); body != "" {
		o.Message += "\n\n" + body
	}
	if in.Style != "squash" {
		return o, nil
	}
	people, err := m.store.UsersByID(ctx, []int64{is.PosterID})
	if err != nil {
		return o, err
	}
	if poster := people[is.PosterID]; poster != nil {
		o.Author = signature(poster, now)
	}
	tip, err := m.baseTip(ctx, basePath, pr.BaseBranch)
	if err != nil {
		return o, err
	}
	authors, err := m.git.CommitAuthors(ctx, basePath, tip, headSHA)
	if err != nil {
		return o, errs.Wrap(err, "read the head's authors")
	}
	var trailers []string
	for _, a := range authors {
		if !strings.EqualFold(a.Email, o.Author.Email) {
			trailers = append(trailers, fmt.Sprintf("Co-authored-by: %s <%s>", a.Name, a.Email))
		}
	}
	if len(trailers) > 0 {
		o.Message += "\n\n" + strings.Join(trailers, "\n")
	}
	return o, nil
}

// signature is a user's git identity: the full name when set, and the
// account's e-mail.
func signature(u *store.User, when time.Time) git.Signature {
	sig := git.Signature{Name: u.Name, Email: u.Email, When: when}
	if n := strings.TrimSpace(u.FullName); n != "" {
		sig.Name = n
	}
	if sig.Email == "" {
		sig.Email = u.LowerName + "@noreply.localhost"
	}
	return sig
}

// defaultMergeTitle is Gitea's default commit title for the style.
func defaultMergeTitle(base *access.Repo, headRepo *store.Repository, pr *store.PullRequest, is *store.Issue, style string) string {
	if style == "squash" {
		return fmt.Sprintf("%s (#%d)", is.Title, is.Index)
	}
	from := pr.HeadBranch
	if headRepo != nil && headRepo.ID != base.ID {
		from = headRepo.OwnerName + "/" + headRepo.Name + ":" + pr.HeadBranch
	}
	return fmt.Sprintf("Merge pull request '%s' (#%d) from %s into %s", is.Title, is.Index, from, pr.BaseBranch)
}

// landed is the base branch's move.
type landed struct{ old, sha string }

// land computes the merge on the base's tip and swaps the base branch to
// it; when a push moved the base meanwhile, it recomputes on the new tip.
func (m *Merger) land(ctx context.Context, path, branch, tip string, o git.MergeOptions) (landed, error) {
	for attempt := 1; ; attempt++ {
		o.Base = tip
		sha, err := m.git.BuildMerge(ctx, path, o)
		if err != nil {
			return landed{}, mergeErr(err)
		}
		err = m.git.MoveBranch(ctx, path, branch, sha, tip)
		if err == nil {
			return landed{old: tip, sha: sha}, nil
		}
		if !errors.Is(err, git.ErrConflict) {
			return landed{}, errs.Wrap(err, "move the base branch")
		}
		if attempt == mergeAttempts {
			return landed{}, errPushOutOfDate
		}
		if tip, err = m.baseTip(ctx, path, branch); err != nil {
			return landed{}, err
		}
	}
}

// mergeErr answers a failed merge: conflicts are 409 with the git
// layer's text, anything else internal.
func mergeErr(err error) error {
	if errors.Is(err, git.ErrConflict) {
		return errs.New(errs.Conflict, err.Error())
	}
	return errs.Wrap(err, "merge")
}

// deleteHead deletes the merged head branch as the branch API would:
// only in the same repository, never its default branch, and not while
// another open pull request uses it, nor when it moved past the merged
// head (its new commits are not merged), nor when a branch protection
// rule protects it from deletion (rules: the base repository's, which is
// the head's here). It is best effort: the merge is answered 200
// whatever happens here.
func (m *Merger) deleteHead(ctx context.Context, base *access.Repo, path string, pr *store.PullRequest, doer *store.User, merged string, rules *protection.RepoRules) {
	if pr.HeadRepoID != base.ID || pr.HeadBranch == base.DefaultBranch || rules.Match(pr.HeadBranch) != nil {
		return
	}
	if n, err := m.store.OtherOpenPullsFromBranch(ctx, pr.HeadRepoID, pr.HeadBranch, pr.ID); err != nil || n > 0 {
		return
	}
	unlock, err := m.git.LockRef(ctx, path, "refs/heads/"+pr.HeadBranch)
	if err != nil {
		return
	}
	defer unlock()
	head, err := m.git.GetBranch(ctx, path, pr.HeadBranch)
	if err != nil || head.Commit.SHA != merged {
		return
	}
	if err := m.retargetChildren(ctx, base, pr, doer); err != nil {
		slog.Warn("retarget the pull requests on the merged head branch", "repo", base.ID, "branch", pr.HeadBranch, "err", err)
		return
	}
	if err := m.git.DeleteBranch(ctx, path, pr.HeadBranch); err != nil {
		slog.Warn("delete the head branch after a merge", "repo", base.ID, "branch", pr.HeadBranch, "err", err)
		return
	}
	if err := m.records.Apply(ctx, base.Repository, doer.ID, []git.RefUpdate{
		{Name: "refs/heads/" + pr.HeadBranch, OldSHA: head.Commit.SHA, NewSHA: git.ZeroSHA},
	}); err != nil {
		slog.Warn("record the deleted head branch", "repo", base.ID, "err", err)
	}
}

// changedPaths lists the paths the pull request with head headSHA changes
// against the base tip baseTip: from their merge base, as its files list.
func (m *Merger) changedPaths(ctx context.Context, path, baseTip, headSHA string) ([]string, error) {
	mb, err := m.git.MergeBase(ctx, path, baseTip, headSHA)
	if err != nil {
		return nil, errs.Wrap(err, "merge base")
	}
	files, err := m.git.DiffFilesBetween(ctx, path, mb, headSHA)
	if err != nil {
		return nil, errs.Wrap(err, "changed files")
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Filename)
		if f.PreviousFilename != "" {
			paths = append(paths, f.PreviousFilename) // a file moved away is changed too
		}
	}
	return paths, nil
}
