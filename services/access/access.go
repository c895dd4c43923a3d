// Package access decides what a caller may do with a repository. Every
// service that touches a repository resolves it here, so visibility
// (invisible means 404, never 403) and the permission ladder are written
// once.
package access

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/auth"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/users"
)

// Store is what access control reads.
type Store interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	RepositoryByName(ctx context.Context, ownerID int64, name string) (*store.Repository, error)
	RepositoryByID(ctx context.Context, id int64) (*store.Repository, error)
	UserByID(ctx context.Context, id int64) (*store.User, error)
	CollaboratorMode(ctx context.Context, repoID, userID int64) (store.AccessMode, error)
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}

// Checker resolves repositories for callers.
type Checker struct {
	store Store
	// maxCreation is [repository] MAX_CREATION_LIMIT (-1: unlimited).
	maxCreation int
}

func NewChecker(s Store) *Checker { return &Checker{store: s, maxCreation: -1} }

// Repo is a repository the caller can see, with their access mode.
type Repo struct {
	*store.Repository
	Owner *store.User
	Mode  store.AccessMode
}

// ErrRepoNotFound is the status for a missing or invisible repository.
var ErrRepoNotFound = status.Error(codes.NotFound, "The target couldn't be found.")

// Resolve finds owner/name as seen by viewer (nil: anonymous). A missing
// owner or repository, and one the viewer may not read, are NotFound; a
// public-only token on a private repository is PermissionDenied.
func (c *Checker) Resolve(ctx context.Context, owner, name string, viewer *auth.Principal) (*Repo, error) {
	o, err := users.Visible(ctx, c.store, owner, viewer)
	if err != nil {
		return nil, err
	}
	r, err := c.store.RepositoryByName(ctx, o.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrRepoNotFound
	}
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	return c.finish(ctx, r, o, viewer)
}

// ResolveByID is Resolve for GET /repositories/{id}.
func (c *Checker) ResolveByID(ctx context.Context, id int64, viewer *auth.Principal) (*Repo, error) {
	r, err := c.store.RepositoryByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrRepoNotFound
	}
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	o, err := c.store.UserByID(ctx, r.OwnerID)
	if err != nil {
		return nil, rpcerr.FromStore(err, "The target couldn't be found.")
	}
	visible, err := users.CanSee(ctx, c.store, o, viewer)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, ErrRepoNotFound
	}
	return c.finish(ctx, r, o, viewer)
}

func (c *Checker) finish(ctx context.Context, r *store.Repository, o *store.User, viewer *auth.Principal) (*Repo, error) {
	mode, err := c.Mode(ctx, r, viewer)
	if err != nil {
		return nil, err
	}
	if mode == store.AccessNone {
		return nil, ErrRepoNotFound
	}
	if r.IsPrivate && viewer.PublicOnly() {
		return nil, status.Error(codes.PermissionDenied, "token scope is limited to public repos")
	}
	return &Repo{Repository: r, Owner: o, Mode: mode}, nil
}

// Mode is viewer's access to r: site administrators and the owner have
// owner access, collaborators their mode, everyone else read on public
// repositories, except restricted users, who read only what is shared
// with them (Filter is the same rule for lists).
func (c *Checker) Mode(ctx context.Context, r *store.Repository, viewer *auth.Principal) (store.AccessMode, error) {
	if viewer != nil {
		if viewer.IsAdmin() || viewer.User.ID == r.OwnerID {
			return store.AccessOwner, nil
		}
		mode, err := c.store.CollaboratorMode(ctx, r.ID, viewer.User.ID)
		if err != nil {
			return store.AccessNone, rpcerr.Internal(err)
		}
		if mode > store.AccessNone {
			return mode, nil
		}
	}
	if !r.IsPrivate && !restricted(viewer) {
		return store.AccessRead, nil
	}
	return store.AccessNone, nil
}

// CanWrite reports whether the caller may write the repository's content:
// what branch views show as user_can_push, and who sees draft releases.
func (r *Repo) CanWrite() bool { return r.Mode >= store.AccessWrite }

// Require fails with Gitea's 403 message unless the caller has at least
// mode.
func (r *Repo) Require(mode store.AccessMode) error {
	if r.Mode >= mode {
		return nil
	}
	switch mode {
	case store.AccessWrite:
		return status.Error(codes.PermissionDenied, NeedWriteMessage)
	case store.AccessAdmin:
		return status.Error(codes.PermissionDenied, NeedAdminMessage)
	default:
		return status.Error(codes.PermissionDenied, NeedOwnerMessage)
	}
}
