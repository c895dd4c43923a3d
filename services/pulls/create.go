package pulls

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/issues"
	"forge/services/store"
)

// errNoChanges is Gitea's answer for a head with nothing to merge.
var errNoChanges = errs.New(errs.Invalid, "Invalid PullRequest: There are no changes between the head and the base")

// NewPull is Gitea's CreatePullRequestOption as the use case needs it.
type NewPull struct {
	// Head is "branch" or "owner:branch"; the rule pull-head resolved its
	// repository.
	Head, Base  string
	Title, Body string
	Assignees   []string
	Labels      []int64
	// Milestone is a milestone id of the base repository (0: none); Due
	// the due date (zero: none).
	Milestone int64
	Due       time.Time
}

// Created is a new pull request with what it was stored with.
type Created struct {
	store.NewPullRequest
	Head *access.Repo
}

// Create opens a pull request in base from head (the repository the rule
// pull-head loaded). The head commit is copied into the base repository
// when it lives in a fork, the merge base, conflicts and diff size are
// computed there, and then, in one transaction, the issue and the pull
// request row are stored and refs/pull/<index>/head is written before the
// commit: a crash before the commit leaves at most that ref, under a
// number no pull request has, which the next pull request given that
// number overwrites; a failed commit removes it.
func (s *Service) Create(ctx context.Context, base, head *access.Repo, caller *auth.Principal, in NewPull) (*Created, error) {
	headBranch := in.Head
	if _, b, ok := strings.Cut(in.Head, ":"); ok {
		headBranch = b
	}
	if head.ID == base.ID && headBranch == in.Base {
		return nil, errNoChanges
	}
	basePath, err := s.git.RepoPath(base.Owner.Name, base.Name)
	if err != nil {
		return nil, err
	}
	headPath, err := s.git.RepoPath(head.Owner.Name, head.Name)
	if err != nil {
		return nil, err
	}
	baseBranch, err := s.branch(ctx, basePath, in.Base)
	if err != nil {
		return nil, err
	}
	headTip, err := s.branch(ctx, headPath, headBranch)
	if err != nil {
		return nil, err
	}
	headSHA := headTip.Commit.SHA
	if head.ID != base.ID {
		// The commit (and what it needs) is kept in the base repository,
		// unreferenced until its ref is written below.
		if err := s.git.FetchCommit(ctx, basePath, headPath, headSHA); err != nil {
			return nil, errs.Wrap(err, "copy the head commit")
		}
	}
	mergeBase, err := s.git.MergeBase(ctx, basePath, baseBranch.Commit.SHA, headSHA)
	if errors.Is(err, git.ErrInvalid) {
		return nil, errs.New(errs.Invalid, "Invalid PullRequest: the head and the base have no common history")
	}
	if err != nil {
		return nil, err
	}
	if mergeBase == headSHA {
		return nil, errNoChanges // every head commit is in the base already
	}
	mergeable, err := s.git.Mergeable(ctx, basePath, baseBranch.Commit.SHA, headSHA)
	if err != nil {
		return nil, err
	}
	stat, err := s.git.DiffStatBetween(ctx, basePath, mergeBase, headSHA)
	if err != nil {
		return nil, err
	}
	assignees, err := issues.Assignees(ctx, s.store, s.access, base, caller, in.Assignees)
	if err != nil {
		return nil, err
	}
	n := &Created{Head: head, NewPullRequest: store.NewPullRequest{
		NewIssue: store.NewIssue{
			Issue: store.Issue{RepoID: base.ID, PosterID: caller.ID(), Title: strings.TrimSpace(in.Title), Content: in.Body,
				MilestoneID: max(in.Milestone, 0), DeadlineUnix: dueUnix(in.Due)},
			AssigneeIDs: assignees, LabelIDs: in.Labels, LabelOrgID: base.OwnerID,
		},
		Pull: store.PullRequest{
			HeadRepoID: head.ID, HeadBranch: headBranch, BaseBranch: in.Base, HeadSHA: headSHA,
			BaseSHA: baseBranch.Commit.SHA, MergeBase: mergeBase, Mergeable: mergeable,
			Additions: stat.Additions, Deletions: stat.Deletions, ChangedFiles: stat.ChangedFiles,
		},
	}}
	written := int64(0)
	err = s.store.CreatePullRequest(ctx, &n.NewPullRequest, func(index int64) error {
		if err := s.git.SetPullHead(ctx, basePath, index, headSHA); err != nil {
			return errs.Wrap(err, "write the pull request's head ref")
		}
		written = index
		return nil
	})
	if err != nil {
		if written != 0 {
			if derr := s.git.DropPullHead(context.WithoutCancel(ctx), basePath, written, headSHA); derr != nil {
				slog.Error("remove the head ref of a pull request not stored", "repo", base.ID, "index", written, "err", derr)
			}
		}
		return nil, err
	}
	return n, nil
}

// branch reads a branch; a missing one is 404.
func (s *Service) branch(ctx context.Context, path, name string) (git.Branch, error) {
	b, err := s.git.GetBranch(ctx, path, name)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return git.Branch{}, errs.Newf(errs.NotFound, "branch does not exist [name: %s]", name)
	}
	return b, err
}

// errPullNotFound is Gitea's bare 404.
var errPullNotFound = errs.New(errs.NotFound, "")

// Get returns the pull request numbered index of r and its issue.
func (s *Service) Get(ctx context.Context, r *access.Repo, index int64) (*store.PullRequest, *store.Issue, error) {
	pr, is, err := s.store.PullRequestByIndex(ctx, r.ID, index)
	if err != nil {
		return nil, nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	return pr, is, nil
}

// Query is Gitea's pull request list query.
type Query struct {
	State, Sort string
	Milestone   int64
	Labels      []int64
	Page, Limit int
}

// List lists r's pull requests.
func (s *Service) List(ctx context.Context, r *access.Repo, q Query) ([]store.Issue, int64, error) {
	page := s.limits.Normalize(q.Page, q.Limit)
	return s.store.ListPullRequests(ctx, store.PullListOptions{
		RepoID: r.ID, State: q.State, Sort: q.Sort, LabelIDs: q.Labels, MilestoneID: q.Milestone,
		Offset: page.Offset(), Limit: page.Size,
	})
}

// dueUnix is a due date as stored (0: none).
func dueUnix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
