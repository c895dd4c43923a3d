package access

import (
	"fmt"
	"net/http"

	"forge/services/auth"
	"forge/services/errs"
)

// ErrorInfo reasons of the read-only refusals, for gRPC clients.
const (
	ReasonArchived = "REPO_ARCHIVED"
	ReasonMirror   = "REPO_MIRROR"
)

// MirrorReadOnlyMessage is Gitea's refusal of a write to a pull mirror.
const MirrorReadOnlyMessage = "mirror repository is read-only"

// ReadOnly is the one rule for archived repositories and pull mirrors:
// nil when a method that writes w may proceed on r, else the refusal.
// Where Gitea's route carries not-archived (code, mirroring) an archived
// repository answers 423 Locked; every other refusal is 403. Settings (and
// so unarchiving) stay writable.
func ReadOnly(r *Repo, w auth.RepoWrite) error {
	switch w {
	case auth.WritesCode, auth.WritesMirroring:
		if r.IsArchived {
			return errs.New(errs.Locked, archivedMessage(r)).WithReason(ReasonArchived)
		}
	case auth.WritesIssues:
		// Gitea's issue routes carry not-archived; a pull mirror keeps its
		// own issue tracker, so mirrors stay writable here.
		if r.IsArchived {
			return errs.New(errs.Locked, archivedMessage(r)).WithReason(ReasonArchived)
		}
		return nil
	case auth.WritesReleases, auth.WritesPush:
		if r.IsArchived {
			return errs.New(errs.PermissionDenied, archivedMessage(r)).WithHTTPStatus(http.StatusForbidden).WithReason(ReasonArchived)
		}
	default:
		// Settings, nothing in the repository, or no repository write.
		return nil
	}
	if r.IsMirror && w != auth.WritesMirroring {
		return errs.New(errs.PermissionDenied, MirrorReadOnlyMessage).WithHTTPStatus(http.StatusForbidden).WithReason(ReasonMirror)
	}
	return nil
}

// archivedMessage is Gitea's text: the repository's log string, e.g.
// "<Repository 5:alice/demo> is archived".
func archivedMessage(r *Repo) string {
	owner := ""
	if r.Owner != nil {
		owner = r.Owner.Name
	}
	return fmt.Sprintf("<Repository %d:%s/%s> is archived", r.ID, owner, r.Name)
}
