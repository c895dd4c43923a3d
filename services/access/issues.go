package access

import (
	"context"

	"forge/services/auth"
	"forge/services/store"
)

// The issue tracker's rules on a second object (an issue's or a comment's
// poster, an assignee), beside the repository rule the interceptor
// already applied (read access with the issues unit on).

// NotPosterMessage refuses an edit by someone who neither posted the
// issue or comment nor writes the repository. (Gitea answers this 403
// with an empty body; forge always sends a message.)
const NotPosterMessage = "user should be the poster or have a permission to write to a repo"

// CanBeAssigned reports whether u may be assigned issues of r: they need
// write access to it, as Gitea's CanBeAssigned.
func (c *Checker) CanBeAssigned(ctx context.Context, r *Repo, u *store.User) (bool, error) {
	mode, err := c.Mode(ctx, r.Repository, &auth.Principal{User: u})
	if err != nil {
		return false, err
	}
	return mode >= store.AccessWrite, nil
}
