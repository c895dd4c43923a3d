package pulls

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

// UpdateStore is what updating a pull request's head reads.
type UpdateStore interface {
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
}

// UpdateGit is what updating does in repositories (*git.Store).
type UpdateGit interface {
	RepoPath(owner, name string) (string, error)
	GetBranch(ctx context.Context, path, name string) (git.Branch, error)
	FetchCommit(ctx context.Context, dst, src, sha string) error
	IsAncestor(ctx context.Context, path, a, b string) (bool, error)
	BuildMerge(ctx context.Context, path string, o git.MergeOptions) (string, error)
	LockRef(ctx context.Context, path, ref string) (unlock func(), err error)
	MoveBranch(ctx context.Context, path, name, newSHA, oldSHA string) error
}

// Updater brings pull requests' head branches up to date with their
// bases. Who may was decided by the rule pull-updater before it runs.
type Updater struct {
	store   UpdateStore
	git     UpdateGit
	records BranchRecords
}

// NewUpdater builds the update use case.
func NewUpdater(s UpdateStore, g UpdateGit, r BranchRecords) *Updater {
	return &Updater{store: s, git: g, records: r}
}

var (
	errUpdateStyle       = errs.New(errs.Invalid, "style: must be merge or rebase")
	errHeadMoved         = errs.New(errs.Conflict, "head out of date")
	errHeadBranchMissing = errs.New(errs.NotFound, "head branch does not exist")
)

// Update merges pull request index's base branch into its head branch
// (style "merge" or empty), or replays the head's commits on the base
// (style "rebase"), in the head repository head. The base commit is
// copied into a fork first. The head branch moves with a compare-and-swap
// under its ref lock: a push that lands meanwhile wins and the update is
// 409 "head out of date"; conflicts are 409 with Gitea's text. A head
// that already contains the base is left alone. The move is recorded in
// the branch records, whose hooks refresh the pull request.
func (u *Updater) Update(ctx context.Context, base, head *access.Repo, doer *store.User, index int64, style string) error {
	if style == "" {
		style = "merge"
	}
	if style != "merge" && style != "rebase" {
		return errUpdateStyle
	}
	pr, _, err := u.store.PullRequestByIndex(ctx, base.ID, index)
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	basePath, err := u.git.RepoPath(base.Owner.Name, base.Name)
	if err != nil {
		return err
	}
	headPath, err := u.git.RepoPath(head.Owner.Name, head.Name)
	if err != nil {
		return err
	}
	unlock, err := u.git.LockRef(ctx, headPath, "refs/heads/"+pr.HeadBranch)
	if err != nil {
		return err
	}
	defer unlock()
	headTip, err := u.tip(ctx, headPath, pr.HeadBranch, errHeadBranchMissing)
	if err != nil {
		return err
	}
	baseTip, err := u.tip(ctx, basePath, pr.BaseBranch, errs.Newf(errs.NotFound, "branch does not exist [name: %s]", pr.BaseBranch))
	if err != nil {
		return err
	}
	if headPath != basePath {
		if err := u.git.FetchCommit(ctx, headPath, basePath, baseTip); err != nil {
			return errs.Wrap(err, "copy the base commit")
		}
	}
	if done, err := u.git.IsAncestor(ctx, headPath, baseTip, headTip); err != nil {
		return errs.Wrap(err, "compare the head with the base")
	} else if done {
		return nil // nothing to bring in
	}
	sig := signature(doer, time.Now())
	o := git.MergeOptions{Author: sig, Committer: sig}
	if style == "rebase" {
		o.Style, o.Base, o.Head = git.MergeStyleRebase, baseTip, headTip
	} else {
		// The head is the first parent: the branch keeps its own line.
		o.Style, o.Base, o.Head = git.MergeStyleMerge, headTip, baseTip
		o.Message = fmt.Sprintf("Merge branch '%s' into %s", pr.BaseBranch, pr.HeadBranch)
	}
	sha, err := u.git.BuildMerge(ctx, headPath, o)
	if err != nil {
		return mergeErr(err)
	}
	if err := u.git.MoveBranch(ctx, headPath, pr.HeadBranch, sha, headTip); errors.Is(err, git.ErrConflict) {
		return errHeadMoved
	} else if err != nil {
		return errs.Wrap(err, "move the head branch")
	}
	if err := u.records.Apply(ctx, head.Repository, doer.ID, []git.RefUpdate{
		{Name: "refs/heads/" + pr.HeadBranch, OldSHA: headTip, NewSHA: sha},
	}); err != nil {
		// The reconciler records it from the journal.
		slog.Warn("record the head branch after an update", "repo", head.ID, "err", err)
	}
	return nil
}

// tip is a branch's commit; missing is the answer for a missing branch.
func (u *Updater) tip(ctx context.Context, path, name string, missing error) (string, error) {
	b, err := u.git.GetBranch(ctx, path, name)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return "", missing
	}
	if err != nil {
		return "", errs.Wrap(err, "read branch "+name)
	}
	return b.Commit.SHA, nil
}
