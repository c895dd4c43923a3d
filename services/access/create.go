package access

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/auth"
	"forge/services/rpcerr"
	"forge/services/store"
)

// WithMaxCreationLimit sets the site default of how many repositories a
// user may own ([repository] MAX_CREATION_LIMIT, -1: unlimited), used for
// accounts whose own max_repo_creation is -1.
func (c *Checker) WithMaxCreationLimit(n int) *Checker {
	c.maxCreation = n
	return c
}

// RepoLimit is how many repositories owner may hold when caller creates
// one for them, -1 for no limit. As in Gitea, site administrators are not
// limited, neither when they create a repository (for anyone) nor as
// owners; an owner's max_repo_creation of -1 defers to the site default.
func (c *Checker) RepoLimit(owner *store.User, caller *auth.Principal) int {
	if caller.IsAdmin() || owner.IsAdmin {
		return -1
	}
	if owner.MaxRepoCreation <= -1 {
		return max(c.maxCreation, -1)
	}
	return owner.MaxRepoCreation
}

// RepoLimitError is Gitea's refusal for an owner at their limit.
func RepoLimitError(limit int) error {
	return status.Errorf(codes.PermissionDenied, "user has reached maximum limit of repositories [limit: %d]", limit)
}

// CreateRepository stores the record of a new repository of owner that
// caller creates (caller watches it), within owner's repository limit
// (RepoLimit). Every way of creating a repository goes through here. The
// count and the insert share one transaction with the owner's row locked
// (store.CreateRepositoryWithin), so concurrent creations cannot overshoot
// the limit. Errors: RepoLimitError, AlreadyExists, Internal.
func (c *Checker) CreateRepository(ctx context.Context, rec *store.Repository, owner *store.User, caller *auth.Principal) error {
	limit := c.RepoLimit(owner, caller)
	err := c.store.CreateRepositoryWithin(ctx, rec, caller.ID(), limit)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrRepoLimit):
		return RepoLimitError(limit)
	case errors.Is(err, store.ErrRepoExists):
		return err // declares Gitea's message and 409
	}
	return rpcerr.Internal(err)
}
