// Package statuses serves forge.statuses.v1.CommitStatusService: the
// states external systems (CI) report for the commits of a repository,
// per context, and the combined state of a commit.
//
// Rules: who may call is declared per method in the proto and enforced by
// the auth interceptor (reads: read access to the repository's code,
// anonymous on public repositories; creates: write access there, refused
// on archived repositories). A status names a commit of the repository
// (any name git resolves: sha, abbreviated sha, branch, tag) and is
// stored on its full sha; reads by a name that resolves to nothing
// answer nothing, as Gitea. The combined state is the worst latest state
// of the contexts in Gitea's order (store.WorseCommitState).
package statuses

import (
	"context"
	"errors"
	"strings"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

// Store is what the statuses use cases read and write. Errors are
// internal failures.
type Store interface {
	// CreateCommitStatus stores a status as its commit's newest, filling
	// in its index and times.
	CreateCommitStatus(ctx context.Context, st *store.CommitStatus) error
	// ListCommitStatuses returns a page of a commit's statuses and how
	// many match.
	ListCommitStatuses(ctx context.Context, o store.CommitStatusListOptions) ([]store.CommitStatus, int64, error)
	// LatestCommitStatuses returns a page of the latest status of each
	// context of a commit, newest first, and the number of contexts.
	LatestCommitStatuses(ctx context.Context, repoID int64, sha string, offset, limit int) ([]store.CommitStatus, int64, error)
	// CombinedCommitStates returns the combined state of each sha that
	// has statuses.
	CombinedCommitStates(ctx context.Context, repoID int64, shas []string) (map[string]string, error)
	// UsersByID returns the accounts that exist among ids.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	// VisibleUserIDs applies account visibility to the creators.
	access.VisibleAmong
}

// Git is the part of the git store statuses use. Errors wrap git's
// sentinels (ErrNotFound, ErrInvalid).
type Git interface {
	RepoPath(owner, name string) (string, error)
	// Identify names the database repository at path (see git.Store).
	Identify(path string, repoID int64)
	// ResolveRef returns the commit sha a branch, tag or sha names.
	ResolveRef(ctx context.Context, path, ref string) (string, error)
}

// Service holds the rules apart from any transport.
type Service struct {
	store Store
	git   Git
}

// NewService builds the use cases.
func NewService(st Store, g Git) *Service { return &Service{store: st, git: g} }

// NewStatus is a status to report, as the caller sent it.
type NewStatus struct {
	State, TargetURL, Description, Context string
	CreatorID                              int64
}

// errStateMessage lists the states a 422 offers.
const errStateMessage = "[State]: invalid state %q (pending, success, error, failure, warning)"

// Create records a status of the commit ref names in r. An unknown
// commit is NotFound; a state that is none of the five is Invalid.
func (s *Service) Create(ctx context.Context, r *access.Repo, ref string, n NewStatus) (*store.CommitStatus, error) {
	state := strings.TrimSpace(n.State)
	if !store.ValidCommitState(state) {
		return nil, errs.Newf(errs.Invalid, errStateMessage, n.State)
	}
	sha, err := s.resolve(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if sha == "" {
		return nil, errs.New(errs.NotFound, "")
	}
	context := strings.TrimSpace(n.Context)
	if context == "" {
		context = "default"
	}
	st := &store.CommitStatus{
		RepoID: r.ID, SHA: sha, State: state, Context: context,
		TargetURL: strings.TrimSpace(n.TargetURL), Description: strings.TrimSpace(n.Description),
		CreatorID: n.CreatorID,
	}
	if err := s.store.CreateCommitStatus(ctx, st); err != nil {
		return nil, err
	}
	return st, nil
}

// Commit is the sha statuses of ref are read under: the commit it
// resolves to, or ref itself when it resolves to nothing (statuses of a
// commit that is gone stay readable by its sha, as in Gitea).
func (s *Service) Commit(ctx context.Context, r *access.Repo, ref string) (string, error) {
	sha, err := s.resolve(ctx, r, ref)
	if err != nil || sha != "" {
		return sha, err
	}
	return ref, nil
}

// List returns a page of the statuses of sha.
func (s *Service) List(ctx context.Context, o store.CommitStatusListOptions) ([]store.CommitStatus, int64, error) {
	return s.store.ListCommitStatuses(ctx, o)
}

// Combined is the combined status of a commit: its state over every
// context, a page of the latest status of each and their number.
type Combined struct {
	State    string
	Latest   []store.CommitStatus
	Contexts int64
}

// Combine reads the combined status of sha in r.
func (s *Service) Combine(ctx context.Context, r *access.Repo, sha string, offset, limit int) (*Combined, error) {
	latest, total, err := s.store.LatestCommitStatuses(ctx, r.ID, sha, offset, limit)
	if err != nil {
		return nil, err
	}
	states, err := s.store.CombinedCommitStates(ctx, r.ID, []string{sha})
	if err != nil {
		return nil, err
	}
	return &Combined{State: states[sha], Latest: latest, Contexts: total}, nil
}

// resolve returns the commit sha ref names in r, "" when it names none
// (an empty repository names nothing).
func (s *Service) resolve(ctx context.Context, r *access.Repo, ref string) (string, error) {
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return "", errs.Wrap(err, "repository path")
	}
	s.git.Identify(path, r.ID)
	sha, err := s.git.ResolveRef(ctx, path, ref)
	switch {
	case err == nil:
		return sha, nil
	case errors.Is(err, git.ErrNotFound), errors.Is(err, git.ErrInvalid):
		return "", nil
	}
	return "", errs.Wrap(err, "resolve commit")
}
