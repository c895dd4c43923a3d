package auth

import (
	"context"

	"forge/services/store"
)

// ResourceKind is what a method acts on, beside who may call it.
type ResourceKind int

const (
	// NoResource: the method acts on no single resource (lists, creation,
	// the caller's own account), or one whose rule is Access (SelfOrAdmin).
	NoResource ResourceKind = iota
	// RepositoryResource: the request names a repository by its owner and
	// repo fields (GetOwner/GetRepo), or by id (GetId) with ByID.
	RepositoryResource
	// UserResource is the kind today's SelfOrAdmin access stands for: the
	// request's username field names the account acted on. Declared so the
	// kinds are listed in one place; SelfOrAdmin still carries the rule.
	UserResource
	// OrganizationResource: the request names an organization by its org
	// field; Resource.Role is what the caller must be there.
	OrganizationResource
	// TeamResource: the request names a team by its id field; the caller
	// must be in its organization (else 404), OrgMember means a member of
	// the team (or an owner), OrgOwner an owner of the organization.
	TeamResource
)

// String names the kind ("repository", "organization", "team", "user",
// "none"), for errors, logs and tests.
func (k ResourceKind) String() string {
	switch k {
	case RepositoryResource:
		return "repository"
	case UserResource:
		return "user"
	case OrganizationResource:
		return "organization"
	case TeamResource:
		return "team"
	}
	return "none"
}

// OrgRole is what a caller must be in an organization.
type OrgRole int

const (
	// OrgVisible: the organization is visible to the caller (public, or
	// limited and signed in, or private and a member).
	OrgVisible OrgRole = iota + 1
	// OrgMember: a member of any of its teams.
	OrgMember
	// OrgOwner: a member of its Owners team, or a site administrator.
	OrgOwner
)

// Unit is the part of a repository a method uses. As in Gitea,
// permissions can differ per unit: an organization's team gives its mode
// per unit (services/access narrows the caller's mode to the declared
// unit), and a unit can be switched off (Repository.HasReleases and
// friends).
type Unit int

const (
	UnitCode Unit = iota
	UnitIssues
	UnitPulls
	UnitReleases
	UnitWiki
	// UnitAny is the best of the caller's modes over the units the
	// repository has on (Gitea's reqAnyRepoReader): a team member with
	// only the issues unit reads the repository record.
	UnitAny
	// UnitIssuesOrPulls is the better of the caller's modes on the issues
	// and pull requests units the repository has on (Gitea's
	// reqRepoWriter(issues, pulls)): milestones serve both.
	UnitIssuesOrPulls
)

// Resource declares the resource a method acts on and the access it needs
// there. The interceptor resolves it from the request once, before the
// handler runs, through the ResourceAuthorizer wired in cmd (access.Checker),
// and refuses the call when the caller cannot see it (404, as Gitea) or has
// less than Need (403 with Gitea's message for that level).
type Resource struct {
	Kind ResourceKind
	Unit Unit
	// Need is the repository access required: read, write, admin or owner.
	Need store.AccessMode
	// ByID: the request names the repository by id (GetId) instead of
	// owner and name.
	ByID bool
	// Role is what organization and team resources need.
	Role OrgRole
}

// ResourceAuthorizer resolves the resource a policy declares from the
// request, applies visibility, the needed level and the read-only rule
// (Policy.Writes), and returns ctx carrying the resolved resource for the
// handler. auth cannot import the repository rules (they import auth), so
// they come in through this interface.
type ResourceAuthorizer interface {
	AuthorizeResource(ctx context.Context, pol Policy, req any, caller *Principal) (context.Context, error)
}
