package pulls

import (
	"context"
	"errors"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/issues"
	"forge/services/store"
)

// PullChange is Gitea's EditPullRequestOption as the use case needs it:
// nil or empty fields stay as they are.
type PullChange struct {
	// Title, Body, State and the assignees are the issue's, changed
	// through the issue tracker's edit (issues.IssueChange).
	Issue issues.IssueChange
	// Labels, when not empty, replace the labels (writers only: the
	// policy clears them for others).
	Labels []int64
	// Base retargets the pull request to another branch of its
	// repository.
	Base string
	// AllowMaintainerEdit is the poster's choice only.
	AllowMaintainerEdit *bool
}

// IssueEditor is the issue tracker's edit, which the pull request's
// title, body, state and assignees go through (its counters, activity and
// notifications stay right).
type IssueEditor interface {
	Edit(ctx context.Context, r *access.Repo, caller *auth.Principal, index int64, ch issues.IssueChange) (*store.Issue, error)
}

// EditStore is what editing a pull request writes besides its issue.
type EditStore interface {
	Store
	RetargetPullRequest(ctx context.Context, from *store.PullRequest, base string, st store.PullState, doerID int64) error
	DuplicatePullRequest(ctx context.Context, pr *store.PullRequest) error
	SetAllowMaintainerEdit(ctx context.Context, id int64, allow bool) error
	EditIssueLabels(ctx context.Context, e store.IssueLabelEdit) ([]store.Label, error)
}

// Gitea's answers to edits it refuses.
var (
	errNotPosterEdits = errs.New(errs.PermissionDenied, "user should be the poster to change whether maintainers may edit")
)

// Editor changes pull requests.
type Editor struct {
	svc       *Service
	store     EditStore
	issues    IssueEditor
	refresher *Refresher
}

// Edit changes pull request index of r. Everything that can be refused
// without writing is checked first (a merged pull request's state, the
// new base, who sets allow_maintainer_edit); then, as Gitea, the issue's
// fields and state, the labels, the base and allow_maintainer_edit are
// written one after the other.
func (e *Editor) Edit(ctx context.Context, r *access.Repo, caller *auth.Principal, index int64, ch PullChange) (*store.Issue, error) {
	pr, is, err := e.svc.Get(ctx, r, index)
	if err != nil {
		return nil, err
	}
	if ch.Issue.State != nil && pr.HasMerged {
		return nil, issues.ErrMergedState
	}
	closed := is.IsClosed
	if ch.Issue.State != nil {
		closed = *ch.Issue.State == "closed"
	}
	retarget := ch.Base != "" && ch.Base != pr.BaseBranch
	var basePath string
	if retarget {
		if basePath, err = e.checkRetarget(ctx, r, pr, closed, ch.Base); err != nil {
			return nil, err
		}
	}
	if ch.AllowMaintainerEdit != nil && caller.ID() != is.PosterID {
		return nil, errNotPosterEdits
	}
	reopen := is.IsClosed && !closed
	if reopen && !retarget {
		if err := e.store.DuplicatePullRequest(ctx, pr); err != nil {
			return nil, err
		}
	}
	if changesIssue(ch.Issue) {
		if _, err := e.issues.Edit(ctx, r, caller, index, ch.Issue); err != nil {
			return nil, err
		}
	}
	if len(ch.Labels) > 0 {
		_, err := e.store.EditIssueLabels(ctx, store.IssueLabelEdit{RepoID: r.ID, OrgID: r.OwnerID, Index: index,
			ActorID: caller.ID(), Mode: store.IssueLabelsReplace, IDs: ch.Labels})
		if err != nil {
			return nil, err
		}
	}
	if retarget {
		if err := e.retarget(ctx, r, caller, basePath, pr, ch.Base); err != nil {
			return nil, err
		}
	}
	if ch.AllowMaintainerEdit != nil {
		if err := e.store.SetAllowMaintainerEdit(ctx, pr.ID, *ch.AllowMaintainerEdit); err != nil {
			return nil, err
		}
	}
	if reopen || retarget {
		// The branches may have moved while the pull request was closed
		// or while the new base was looked at.
		e.refresher.Changed(ctx, r.ID)
	}
	_, is, err = e.svc.Get(ctx, r, index)
	return is, err
}

func changesIssue(ch issues.IssueChange) bool {
	return ch.Title != "" || ch.Body != nil || ch.State != nil || ch.ReplaceAssignees
}

// checkRetarget refuses a new base Gitea refuses: on a merged pull request
// (409), on one closed (or being closed) (422), a branch that does not
// exist (404), the head branch itself (422). It returns the base
// repository's path.
func (e *Editor) checkRetarget(ctx context.Context, r *access.Repo, pr *store.PullRequest, closed bool, base string) (string, error) {
	if pr.HasMerged {
		return "", store.ErrRetargetMerged
	}
	if closed {
		return "", store.ErrPullRequestClosed
	}
	path, err := e.svc.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return "", err
	}
	if _, err := e.newBase(ctx, path, base); err != nil {
		return "", err
	}
	if pr.HeadRepoID == pr.RepoID && pr.HeadBranch == base {
		return "", errs.Newf(errs.Invalid, "branches are equal [head: %s, base: %s]", pr.HeadBranch, base)
	}
	return path, nil
}

// maxRetargetTries bounds the recomputations when the head moves while a
// new base is being set.
const maxRetargetTries = 3

// retarget computes the pull request's state against the new base and
// stores it with the base (recording the change on the timeline, by
// caller); when its head moved meanwhile (the refresher
// wrote), it computes again from the new head.
func (e *Editor) retarget(ctx context.Context, r *access.Repo, caller *auth.Principal, path string, pr *store.PullRequest, base string) error {
	for try := 0; ; try++ {
		b, err := e.newBase(ctx, path, base)
		if err != nil {
			return err
		}
		st, err := computeState(ctx, e.svc.git, path, b.Commit.SHA, pr.HeadSHA)
		if err != nil {
			return err
		}
		err = e.store.RetargetPullRequest(ctx, pr, base, st, caller.ID())
		if !errors.Is(err, store.ErrPullRequestMoved) || try+1 == maxRetargetTries {
			return err
		}
		if pr, _, err = e.svc.Get(ctx, r, pr.Index); err != nil {
			return err
		}
	}
}

// newBase reads the new base branch; a missing one is 404 with Gitea's
// message.
func (e *Editor) newBase(ctx context.Context, path, base string) (git.Branch, error) {
	b, err := e.svc.git.GetBranch(ctx, path, base)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return git.Branch{}, errs.Newf(errs.NotFound, "new base '%s' not exist", base)
	}
	return b, err
}

// EditServer implements pullsv1.PullEditServiceServer.
type EditServer struct {
	pullsv1.UnimplementedPullEditServiceServer
	srv    *Server
	editor *Editor
}

var _ pullsv1.PullEditServiceServer = (*EditServer)(nil)

// EditOptions is what the edit server is built from.
type EditOptions struct {
	Options
	Store     EditStore
	Issues    IssueEditor
	Refresher *Refresher
}

// NewEditServer builds the edit service.
func NewEditServer(o EditOptions) *EditServer {
	o.Options.Store = o.Store
	srv := NewServer(o.Options)
	return &EditServer{srv: srv, editor: &Editor{svc: srv.svc, store: o.Store, issues: o.Issues, refresher: o.Refresher}}
}

// RunRefresher keeps open pull requests in step with their branches until
// ctx is done (see Refresher).
func (s *EditServer) RunRefresher(ctx context.Context) { s.editor.refresher.Run(ctx) }

func (s *EditServer) EditPullRequest(ctx context.Context, req *pullsv1.EditPullRequestRequest) (*pullsv1.EditPullRequestResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	ch := PullChange{
		Issue: issues.IssueChange{Title: req.GetTitle(), Body: req.Body, State: req.State,
			UnsetDue: req.GetUnsetDueDate()},
		Labels: req.GetLabels(), Base: req.GetBase(), AllowMaintainerEdit: req.AllowMaintainerEdit,
	}
	if m := req.GetMilestone(); m != 0 { // 0 keeps it, as Gitea
		ch.Issue.Milestone = &m
	}
	if req.GetDueDate() != nil {
		d := req.GetDueDate().AsTime()
		ch.Issue.Due = &d
	}
	if req.Assignee != nil || len(req.GetAssignees()) > 0 {
		ch.Issue.ReplaceAssignees = true
		ch.Issue.Assignees = req.GetAssignees()
		if a := req.GetAssignee(); a != "" {
			ch.Issue.Assignees = append([]string{a}, ch.Issue.Assignees...)
		}
	}
	is, err := s.editor.Edit(ctx, r, auth.FromContext(ctx), req.GetIndex(), ch)
	if err != nil {
		return nil, err
	}
	out, err := s.srv.one(ctx, r, is)
	if err != nil {
		return nil, err
	}
	return &pullsv1.EditPullRequestResponse{PullRequest: out}, nil
}
