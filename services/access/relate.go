package access

import (
	"context"
	"errors"
	"strings"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// ErrRelatedIssueNotFound is Gitea's answer for an unknown issue number
// in a relation's URL.
var ErrRelatedIssueNotFound = errs.New(errs.NotFound, "IsErrIssueNotExist")

// errCrossRepo is Gitea's refusal of a link to another repository when
// [service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES is off (400).
var errCrossRepo = errs.New(errs.FailedPrecondition, "CrossRepositoryDependencies not enabled")

// RelateDeniedMessage is the refusal of an issue relation (a dependency)
// to an issue the caller may not access.
const RelateDeniedMessage = "the caller may not access the related issue"

// SameRepo reports whether owner/name (empty: from itself) names from.
func SameRepo(from *Repo, owner, name string) bool {
	if owner == "" && name == "" {
		return true
	}
	return from.Owner != nil && strings.EqualFold(owner, from.Owner.Name) && strings.EqualFold(name, from.Name)
}

// mayRelate is the rule for the second issue of a relation between
// issues (dependencies and blocks): the issue numbered index in owner/name
// (from, the repository the policy resolved, when both are empty). The
// caller needs need (read, or write for the issue a request changes) on
// that issue's own repository and unit (issues, or pull requests for a
// pull request), and the read-only rule for w there. It returns the
// repository and the issue.
//
// A repository the caller cannot read — hidden, private beyond a
// public-only token, or missing, which cannot be told apart from hidden
// without saying that it exists — is 403 (not 404): the caller may not
// relate issues there, whether or not the issue exists. A missing issue
// in a repository the caller reads is 404.
func (c *Checker) mayRelate(ctx context.Context, from *Repo, owner, name string, index int64,
	need store.AccessMode, w auth.RepoWrite, viewer *auth.Principal) (*Repo, *store.Issue, error) {
	r := from
	if !SameRepo(from, owner, name) {
		var err error
		r, err = c.Resolve(ctx, owner, name, viewer)
		if err != nil {
			switch errs.KindOf(err) {
			case errs.NotFound, errs.PermissionDenied:
				return nil, nil, errs.New(errs.PermissionDenied, RelateDeniedMessage)
			}
			return nil, nil, err
		}
	}
	is, err := c.store.IssueByIndex(ctx, r.ID, index)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errs.New(errs.NotFound, "issue does not exist")
	}
	if err != nil {
		return nil, nil, errs.Wrap(err, "access")
	}
	unit := auth.UnitIssues
	if is.IsPull {
		unit = auth.UnitPulls
	}
	if !unitEnabled(r.Repository, unit) && r.Mode < store.AccessAdmin {
		return nil, nil, errs.New(errs.PermissionDenied, RelateDeniedMessage)
	}
	if err := r.Require(need); err != nil {
		return nil, nil, err
	}
	if err := ReadOnly(r, w); err != nil {
		return nil, nil, err
	}
	return r, is, nil
}
