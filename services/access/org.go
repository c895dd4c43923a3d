package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// OrgStore is what the organization and team rules read.
type OrgStore interface {
	// OrgMembership is the zero value for a user who is not a member.
	OrgMembership(ctx context.Context, orgID, uid int64) (store.OrgMembership, error)
	// TeamGrants lists the grants of uid's teams reaching the repository
	// (none for an individual's repository).
	TeamGrants(ctx context.Context, repoID, ownerID, uid int64) ([]store.TeamGrant, error)
	// TeamByID returns store.ErrNotFound for an unknown team.
	TeamByID(ctx context.Context, id int64) (*store.Team, error)
	// IsTeamMember reports a member of the team.
	IsTeamMember(ctx context.Context, teamID, uid int64) (bool, error)
	// CanCreateOrgRepo reports membership of a team that may create
	// repositories.
	CanCreateOrgRepo(ctx context.Context, orgID, uid int64) (bool, error)
}

// Gitea's refusals on organizations and teams.
const (
	NeedOrgOwnerMessage  = "Must be an organization owner"
	NeedOrgMemberMessage = "Must be an organization member"
	NeedTeamMemberMsg    = "Must be a team member"
	PublicOnlyOrgMessage = "token scope is limited to public orgs"
)

// Org is an organization the caller can see, with their membership.
type Org struct {
	*store.User
	Membership store.OrgMembership
}

// Team is a team the caller may act on, with its organization.
type Team struct {
	*store.Team
	Org *Org
	// Member: the caller is a member of this team.
	Member bool
}

type orgKey struct{}
type teamKey struct{}

// OrgFrom is the organization the interceptor resolved and authorized for
// this call (a policy declaring RESOURCE_KIND_ORGANIZATION, named by the
// request's org field). A method declaring none gets an Internal error.
func OrgFrom(ctx context.Context) (*Org, error) {
	if o, _ := ctx.Value(orgKey{}).(*Org); o != nil {
		return o, nil
	}
	if t, _ := ctx.Value(teamKey{}).(*Team); t != nil {
		return t.Org, nil
	}
	return nil, errs.New(errs.Internal, "the method's policy declares no organization")
}

// TeamFrom is the team the interceptor resolved and authorized for this
// call (RESOURCE_KIND_TEAM, named by the request's id field).
func TeamFrom(ctx context.Context) (*Team, error) {
	if t, _ := ctx.Value(teamKey{}).(*Team); t != nil {
		return t, nil
	}
	return nil, errs.New(errs.Internal, "the method's policy declares no team")
}

// WithOrg and WithTeam return ctx carrying a resolved organization or
// team, for tests and callers outside the interceptor.
func WithOrg(ctx context.Context, o *Org) context.Context {
	return context.WithValue(ctx, orgKey{}, o)
}

func WithTeam(ctx context.Context, t *Team) context.Context {
	return context.WithValue(ctx, teamKey{}, t)
}

// OrgNotFound is the answer for an unknown organization and for one the
// caller may not see (the same, so a hidden one cannot be told apart).
func OrgNotFound(name string) error {
	return errs.Newf(errs.NotFound, "org does not exist [id: 0, name: %s]", name)
}

// ErrTeamNotFound is the answer for an unknown team and for one the
// caller may not reach.
var ErrTeamNotFound = errs.New(errs.NotFound, "")

type namesOrg interface{ GetOrg() string }

// ResolveOrg finds the organization named name as viewer sees it:
// missing, an individual's name, or invisible (users.Filter: public;
// limited to the signed-in; private to members) is NotFound; a public-only
// token on a non-public organization is PermissionDenied.
func (c *Checker) ResolveOrg(ctx context.Context, name string, viewer *auth.Principal) (*Org, error) {
	u, err := c.store.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.Type != store.UserTypeOrganization) {
		return nil, OrgNotFound(name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "access")
	}
	return c.finishOrg(ctx, u, viewer)
}

func (c *Checker) finishOrg(ctx context.Context, u *store.User, viewer *auth.Principal) (*Org, error) {
	// What the token's user sees decides 404; a public-only token, which
	// sees no organization that is not public (UserFilter), then gets
	// Gitea's 403 on one its user sees, as on the organization routes of
	// Gitea.
	visible, err := seesUser(ctx, c.store, u, accountFilter(viewer))
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, OrgNotFound(u.Name)
	}
	if viewer.PublicOnly() && u.Visibility != store.VisibilityPublic {
		return nil, errs.New(errs.PermissionDenied, PublicOnlyOrgMessage)
	}
	m, err := c.store.OrgMembership(ctx, u.ID, viewer.ID())
	if err != nil {
		return nil, err
	}
	return &Org{User: u, Membership: m}, nil
}

// IsOwner and IsMember apply the roles; site administrators pass both.
func (o *Org) IsOwner(viewer *auth.Principal) bool { return viewer.IsAdmin() || o.Membership.Owner }
func (o *Org) IsMember(viewer *auth.Principal) bool {
	return viewer.IsAdmin() || o.Membership.Member
}

// authorizeOrg resolves the organization the request's org field names
// and checks the declared role there.
func (c *Checker) authorizeOrg(ctx context.Context, res auth.Resource, req any, caller *auth.Principal) (context.Context, error) {
	named, ok := req.(namesOrg)
	if !ok {
		return nil, errs.New(errs.Internal, "the request names no organization")
	}
	o, err := c.ResolveOrg(ctx, named.GetOrg(), caller)
	if err != nil {
		return nil, err
	}
	switch res.Role {
	case auth.OrgMember:
		if !o.IsMember(caller) {
			return nil, errs.New(errs.PermissionDenied, NeedOrgMemberMessage)
		}
	case auth.OrgOwner:
		if !o.IsOwner(caller) {
			return nil, errs.New(errs.PermissionDenied, NeedOrgOwnerMessage)
		}
	}
	return WithOrg(ctx, o), nil
}

// authorizeTeam resolves the team the request's id field names. As in
// Gitea's /teams/{id} routes, a caller outside the organization gets 404
// whatever the role; then:
//   - OrgVisible (NEED_READ): any member of the organization;
//   - OrgMember (NEED_MEMBER): a member of the team or an owner of the
//     organization, else 403 "Must be a team member";
//   - OrgOwner (NEED_OWNER): that, then an owner, else 403 "Must be an
//     organization owner" (Gitea answers 404 there; forge's issue asks
//     403 for non-owners editing teams, and the caller already sees the
//     team).
//
// Site administrators pass everything.
func (c *Checker) authorizeTeam(ctx context.Context, res auth.Resource, req any, caller *auth.Principal) (context.Context, error) {
	named, ok := req.(byID)
	if !ok {
		return nil, errs.New(errs.Internal, "the request has no team id")
	}
	t, err := c.store.TeamByID(ctx, named.GetId())
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrTeamNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "access")
	}
	orgUser, err := c.store.UserByID(ctx, t.OrgID)
	if err != nil {
		return nil, notFoundOr(err, errTargetNotFound)
	}
	m, err := c.store.OrgMembership(ctx, t.OrgID, caller.ID())
	if err != nil {
		return nil, err
	}
	org := &Org{User: orgUser, Membership: m}
	member := false
	if caller != nil {
		if member, err = c.store.IsTeamMember(ctx, t.ID, caller.ID()); err != nil {
			return nil, err
		}
	}
	team := &Team{Team: t, Org: org, Member: member}
	if !caller.IsAdmin() && !m.Member {
		return nil, ErrTeamNotFound
	}
	// As for organizations: visible first, then the token's reach, then
	// the role.
	if caller.PublicOnly() && orgUser.Visibility != store.VisibilityPublic {
		return nil, errs.New(errs.PermissionDenied, PublicOnlyOrgMessage)
	}
	if !caller.IsAdmin() {
		if res.Role >= auth.OrgMember && !member && !m.Owner {
			return nil, errs.New(errs.PermissionDenied, NeedTeamMemberMsg)
		}
		if res.Role == auth.OrgOwner && !m.Owner {
			return nil, errs.New(errs.PermissionDenied, NeedOrgOwnerMessage)
		}
	}
	return WithTeam(ctx, team), nil
}

// SeesAllMembers is the filter of an organization's member lists: whether
// viewer sees every member of the
// organization (members and site administrators), or only the public
// ones.
func SeesAllMembers(o *Org, viewer *auth.Principal) bool { return o.IsMember(viewer) }

// SeesAllMembershipsOf is the filter of a user's organization lists:
// whether viewer sees every organization the
// user u belongs to (u themself and site administrators), or only those
// where u's membership is public.
func SeesAllMembershipsOf(u *store.User, viewer *auth.Principal) bool {
	return viewer.IsAdmin() || viewer.ID() == u.ID
}

// SeesMembership is the filter of one membership, m being u's in o:
// whether viewer may learn it. Public memberships are everyone's to see;
// a concealed one only what the two list filters above show (members of o,
// u themself, site administrators). Anyone else is answered as about a
// non-member.
func SeesMembership(o *Org, u *store.User, m store.OrgMembership, viewer *auth.Principal) bool {
	return m.Public || SeesAllMembers(o, viewer) || SeesAllMembershipsOf(u, viewer)
}
