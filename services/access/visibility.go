package access

import (
	"forge/services/auth"
	"forge/services/store"
)

// restricted reports a restricted account (Gitea's "restricted" flag):
// it reads only repositories it owns, is a collaborator of or reaches
// through a team, and sees only the accounts related to those
// (users.Filter). Site administrators are never
// restricted.
func restricted(viewer *auth.Principal) bool {
	return viewer != nil && viewer.User.Restricted && !viewer.IsAdmin()
}

// Filter is the store filter matching Resolve and Mode, for lists: the
// owner must be visible (users.Filter), and the repository public (not
// for restricted viewers), owned by the viewer, shared with them or
// reached through one of their teams;
// public-only tokens drop private repositories and, their owners being
// kept to public accounts (UserFilter), the repositories of accounts that
// are not public: a site administrator's public-only token is no
// exception.
func Filter(viewer *auth.Principal) store.RepoFilter {
	return store.RepoFilter{
		ViewerID:      viewer.ID(),
		ViewerIsAdmin: viewer.IsAdmin() && !viewer.PublicOnly(),
		ExplicitOnly:  restricted(viewer),
		OnlyPublic:    viewer.PublicOnly(),
		Owners:        UserFilter(viewer),
	}
}
