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
// caller needs read on that issue's own unit (issues, or pull requests
// for a pull request) in its own repository — not just any unit: a team
// may give code only — and need (write for the issue a request changes)
// there, and the read-only rule for w. It returns the repository and the
// issue.
//
// Nothing about the issue may leak to a caller who may not read it: a
// repository the caller cannot read (hidden, private beyond a public-only
// token, or missing), or whose issue units they may not read, is 403
// RelateDeniedMessage (Gitea answers 404 both for missing issues and
// unreadable ones; forge says "not permitted", and says it alike for an
// issue that does not exist, so numbers cannot be probed). A missing
// issue is 404 only to a caller who reads both units (who can list every
// number anyway). An issue the caller reads but may not write, where the
// request changes it, is 404 as in Gitea.
func (c *Checker) mayRelate(ctx context.Context, from *Repo, owner, name string, index int64,
	need store.AccessMode, w auth.RepoWrite, viewer *auth.Principal) (*Repo, *store.Issue, error) {
	denied := errs.New(errs.PermissionDenied, RelateDeniedMessage)
	r := from
	if !SameRepo(from, owner, name) {
		var err error
		r, err = c.Resolve(ctx, owner, name, viewer)
		if err != nil {
			switch errs.KindOf(err) {
			case errs.NotFound, errs.PermissionDenied:
				return nil, nil, denied
			}
			return nil, nil, err
		}
	}
	issues, pulls := r.issueUnitMode(auth.UnitIssues), r.issueUnitMode(auth.UnitPulls)
	if issues < store.AccessRead && pulls < store.AccessRead {
		return nil, nil, denied
	}
	is, err := c.store.IssueByIndex(ctx, r.ID, index)
	if errors.Is(err, store.ErrNotFound) {
		if issues < store.AccessRead || pulls < store.AccessRead {
			// The number might be one of the unit the caller may not
			// read: answer as for it.
			return nil, nil, denied
		}
		return nil, nil, errs.New(errs.NotFound, "issue does not exist")
	}
	if err != nil {
		return nil, nil, errs.Wrap(err, "access")
	}
	mode := issues
	if is.IsPull {
		mode = pulls
	}
	if mode < store.AccessRead {
		return nil, nil, denied
	}
	if mode < need {
		return nil, nil, errTargetNotFound
	}
	if err := ReadOnly(r, w); err != nil {
		return nil, nil, err
	}
	return r, is, nil
}

// issueUnitMode is the caller's mode on unit u of r (issues or pull
// requests), as issueUnit rules.
func (r *Repo) issueUnitMode(u auth.Unit) store.AccessMode {
	return issueUnit(r.Repository, u, r.UnitMode(u))
}

// IssueUnitMode is user's mode (nil: anonymous) on unit u of r, issues or
// pull requests, for any account: the caller, or a notification's
// recipient. The store applies the same rule in SQL to lists and to the
// notification fan-out (services/store/units.go); TestUnitRuleAgrees
// holds the two together.
func (c *Checker) IssueUnitMode(ctx context.Context, r *store.Repository, user *store.User, u auth.Unit) (store.AccessMode, error) {
	var viewer *auth.Principal
	if user != nil {
		viewer = &auth.Principal{User: user}
	}
	mode, err := c.UnitMode(ctx, r, viewer, u)
	if err != nil {
		return store.AccessNone, err
	}
	return issueUnit(r, u, mode), nil
}

// issueUnit is mode, the access a user's grants give to unit u of r, as
// an issue of that unit is checked: none when the unit is off, unless
// they administer it (Authorize's rule).
func issueUnit(r *store.Repository, u auth.Unit, mode store.AccessMode) store.AccessMode {
	if !unitEnabled(r, u) && mode < store.AccessAdmin {
		return store.AccessNone
	}
	return mode
}
