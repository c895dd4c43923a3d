package access

import (
	"forge/services/auth"
	"forge/services/store"
	"forge/services/users"
)

// restricted reports a restricted account (Gitea's "restricted" flag):
// it reads only repositories it owns or is a collaborator of (teams and
// organizations it belongs to will join here), and sees only the accounts
// related to those (users.Filter). Site administrators are never
// restricted.
func restricted(viewer *auth.Principal) bool {
	return viewer != nil && viewer.User.Restricted && !viewer.IsAdmin()
}

// Filter is the store filter matching Resolve and Mode, for lists: the
// owner must be visible (users.Filter), and the repository public (not
// for restricted viewers), owned by the viewer or shared with them;
// public-only tokens drop private repositories.
func Filter(viewer *auth.Principal) store.RepoFilter {
	return store.RepoFilter{
		ViewerID:      viewer.ID(),
		ViewerIsAdmin: viewer.IsAdmin(),
		ExplicitOnly:  restricted(viewer),
		OnlyPublic:    viewer.PublicOnly(),
		Owners:        users.Filter(viewer),
	}
}
