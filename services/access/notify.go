package access

import (
	"fmt"

	"forge/services/auth"
	"forge/services/errs"
)

// MayReadThread is the rule for one notification thread (GET and PATCH
// /notifications/threads/{id}), which depends on a second object, the
// thread's owner: the owner and site administrators may read and change
// it, anyone else gets Gitea's 403. (Gitea answers 500 when an
// administrator changes another user's thread; forge lets them.)
func MayReadThread(threadID, ownerID int64, viewer *auth.Principal) error {
	if viewer.ID() == ownerID || viewer.IsAdmin() {
		return nil
	}
	return errs.New(errs.PermissionDenied, fmt.Sprintf("only user itself and admin are allowed to read/change this thread %d", threadID))
}
