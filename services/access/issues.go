package access

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// MayEditIssue allows the issue's poster and writers to change its
// title, body and state.
func MayEditIssue(r *Repo, caller *auth.Principal, is *store.Issue) error {
	return posterOrWriter(r, caller, is.PosterID)
}

// MayEditComment allows the comment's poster and writers to edit or
// delete it.
func MayEditComment(r *Repo, caller *auth.Principal, c *store.Comment) error {
	return posterOrWriter(r, caller, c.PosterID)
}

func posterOrWriter(r *Repo, caller *auth.Principal, posterID int64) error {
	if r.Mode >= store.AccessWrite || (caller != nil && posterID != 0 && caller.ID() == posterID) {
		return nil
	}
	return status.Error(codes.PermissionDenied, NotPosterMessage)
}

// MayComment allows comments on an unlocked issue to every reader, and
// on a locked one to writers only.
func MayComment(r *Repo, is *store.Issue) error {
	if is.IsLocked && r.Mode < store.AccessWrite {
		return status.Error(codes.PermissionDenied, NeedWriteMessage)
	}
	return nil
}

// MayManageIssues reports whether the caller may assign (and later label
// and set milestones): writers only. Others' assignments are dropped
// silently, as Gitea does.
func MayManageIssues(r *Repo) bool { return r.Mode >= store.AccessWrite }

// CanBeAssigned reports whether u may be assigned issues of r: they need
// write access to it, as Gitea's CanBeAssigned.
func (c *Checker) CanBeAssigned(ctx context.Context, r *Repo, u *store.User) (bool, error) {
	mode, err := c.Mode(ctx, r.Repository, &auth.Principal{User: u})
	if err != nil {
		return false, err
	}
	return mode >= store.AccessWrite, nil
}
