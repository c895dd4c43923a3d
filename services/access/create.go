package access

import (
	"context"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// WithMaxCreationLimit sets the site default of how many repositories a
// user may own ([repository] MAX_CREATION_LIMIT, -1: unlimited), used for
// accounts whose own max_repo_creation is -1.
func (c *Checker) WithMaxCreationLimit(n int) *Checker {
	c.maxCreation = n
	return c
}

// WithDisableRegularOrgCreation sets [admin]
// DISABLE_REGULAR_ORG_CREATION: only site administrators create
// organizations.
func (c *Checker) WithDisableRegularOrgCreation(on bool) *Checker {
	c.noRegularOrgs = on
	return c
}

// OrgCreateForbiddenMessage is Gitea 1.22's 403 text for a user who may
// not create organizations: a formatting slip (a nil error printed with
// %s) that clients see, kept as the map records it.
const OrgCreateForbiddenMessage = "%!s(<nil>)"

// mayCreateOrg is the rule for POST /orgs (org-creator) (Gitea's CanCreateOrganization):
// site administrators always; other users when their account allows it
// (allow_create_organization) and the site has not disabled regular
// organization creation.
func (c *Checker) mayCreateOrg(caller *auth.Principal) error {
	if caller.IsAdmin() || (caller.User.AllowCreateOrganization && !c.noRegularOrgs) {
		return nil
	}
	return errs.New(errs.PermissionDenied, OrgCreateForbiddenMessage)
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
	return errs.Newf(errs.PermissionDenied, "user has reached maximum limit of repositories [limit: %d]", limit)
}

// mayCreateIn is the rule for migrating a repository into owner's
// account, a second object beside the caller: the caller's own account,
// an organization they own (its Owners team), or any as a site
// administrator. (POST /orgs/{org}/repos has its own, wider rule:
// org-repo-creator.)
func (c *Checker) mayCreateIn(ctx context.Context, caller *auth.Principal, owner *store.User) error {
	if owner.ID == caller.ID() || caller.IsAdmin() {
		return nil
	}
	if owner.Type == store.UserTypeOrganization {
		m, err := c.store.OrgMembership(ctx, owner.ID, caller.ID())
		if err != nil {
			return err
		}
		if m.Owner {
			return nil
		}
		return errs.New(errs.PermissionDenied, "Given user is not owner of organization.")
	}
	return errs.New(errs.PermissionDenied, "Given user is not an organization.")
}

// WithCrossRepositoryDependencies sets [service]
// ALLOW_CROSS_REPOSITORY_DEPENDENCIES: issues may depend on issues of
// other repositories.
func (c *Checker) WithCrossRepositoryDependencies(on bool) *Checker {
	c.crossRepoDeps = on
	return c
}
