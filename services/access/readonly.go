package access

import (
	"context"
	"fmt"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"forge/services/auth"
	"forge/services/rpcerr"
	"forge/services/store"
)

// ErrorInfo reasons of the read-only refusals, for gRPC clients.
const (
	ReasonArchived = "REPO_ARCHIVED"
	ReasonMirror   = "REPO_MIRROR"
)

// MirrorReadOnlyMessage is Gitea's refusal of a write to a pull mirror.
const MirrorReadOnlyMessage = "mirror repository is read-only"

// WritesPush is a git push over smart HTTP. It has no gRPC method, so no
// policy declares it; services/githost passes it to ReadOnly itself. Both
// read-only states answer 403, as Gitea's git endpoint does.
const WritesPush auth.RepoWrite = -1

// ReadOnly is the one rule for archived repositories and pull mirrors:
// nil when a method that writes w may proceed on r, else the refusal.
// Where Gitea's route carries not-archived (code, mirroring) an archived
// repository answers 423 Locked; every other refusal is 403. Settings (and
// so unarchiving) stay writable.
func ReadOnly(r *Repo, w auth.RepoWrite) error {
	switch w {
	case auth.WritesCode, auth.WritesMirroring:
		if r.IsArchived {
			return rpcerr.WithHTTPStatus(codes.FailedPrecondition, http.StatusLocked, ReasonArchived, archivedMessage(r))
		}
	case auth.WritesReleases, WritesPush:
		if r.IsArchived {
			return rpcerr.WithHTTPStatus(codes.PermissionDenied, http.StatusForbidden, ReasonArchived, archivedMessage(r))
		}
	default:
		// Settings, nothing in the repository, or no repository write.
		return nil
	}
	if r.IsMirror && w != auth.WritesMirroring {
		return rpcerr.WithHTTPStatus(codes.PermissionDenied, http.StatusForbidden, ReasonMirror, MirrorReadOnlyMessage)
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

// WithPolicies makes the checker enforce ReadOnly on every repository it
// resolves inside a gRPC call, by what the calling method's policy
// declares in Writes. Resolution is the one step every repository method
// takes, so no handler checks archived or mirror state itself.
func (c *Checker) WithPolicies(p auth.Policies) *Checker {
	c.policies = p
	return c
}

// readOnly applies the calling method's declaration to r. A caller below
// write access is left to the handler's permission check, so they get
// Gitea's 403 before any 423, as Gitea's route order gives. Outside a gRPC
// call (git smart HTTP) there is no method: the caller applies ReadOnly.
func (c *Checker) readOnly(ctx context.Context, r *Repo) error {
	if r.Mode < store.AccessWrite {
		return nil
	}
	method, ok := grpc.Method(ctx)
	if !ok {
		return nil
	}
	pol := c.policies[method]
	w := pol.Writes
	if w == auth.WritesUndeclared && pol.Level == auth.LevelWrite {
		// Fail closed: a write that forgot its declaration is treated as
		// writing code (TestRepositoryWritesAreDeclared reports it).
		w = auth.WritesCode
	}
	return ReadOnly(r, w)
}
