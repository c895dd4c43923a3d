package orgs

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
	"forge/services/users"
)

// OrgInput is Gitea's CreateOrgOption / EditOrgOption, decoded.
type OrgInput struct {
	Name, FullName, Email, Description, Website, Location, Visibility string
	RepoAdminChangeTeamAccess                                         *bool
}

// Create makes an organization owned by caller (POST /orgs), when the
// policy's rule org-creator allows it.
func (s *Service) Create(ctx context.Context, caller *auth.Principal, in OrgInput) (*store.User, error) {
	return s.create(ctx, caller.User, in)
}

// AdminCreate makes an organization owned by the user named owner (POST
// /admin/users/{username}/orgs); as Gitea, e-mail and
// repo_admin_change_team_access are not taken.
func (s *Service) AdminCreate(ctx context.Context, owner string, in OrgInput, caller *auth.Principal) (*store.User, error) {
	u, err := access.VisibleUser(ctx, s.store, owner, caller)
	if err != nil {
		return nil, err
	}
	if u.Type != store.UserTypeIndividual {
		return nil, access.UserNotFound(owner)
	}
	in.Email, in.RepoAdminChangeTeamAccess = "", nil
	return s.create(ctx, u, in)
}

func (s *Service) create(ctx context.Context, owner *store.User, in OrgInput) (*store.User, error) {
	// The name's form and the sizes are declared on the request.
	if err := users.CheckReserved(in.Name); err != nil {
		return nil, errs.New(errs.Invalid, err.Error())
	}
	vis, err := parseVisibility(in.Visibility, store.VisibilityPublic)
	if err != nil {
		return nil, err
	}
	if err := checkContact(in); err != nil {
		return nil, err
	}
	org := &store.User{
		Name: in.Name, FullName: in.FullName, Email: in.Email, Description: in.Description,
		Website: in.Website, Location: in.Location, Visibility: vis, MaxRepoCreation: -1,
	}
	if in.RepoAdminChangeTeamAccess != nil {
		org.RepoAdminChangeTeamAccess = *in.RepoAdminChangeTeamAccess
	}
	if err := s.store.CreateOrganization(ctx, org, owner.ID); err != nil {
		if errors.Is(err, store.ErrUserExists) {
			return nil, errs.Newf(errs.AlreadyExists, "user already exists [name: %s]", in.Name)
		}
		return nil, err
	}
	return org, nil
}

// parseVisibility reads "" (unset), public, limited or private.
func parseVisibility(name string, unset store.Visibility) (store.Visibility, error) {
	if name == "" {
		return unset, nil
	}
	v, ok := store.ParseVisibility(name)
	if !ok {
		return 0, errs.Newf(errs.Invalid, "[Visibility]: invalid visibility %q (public, limited, private)", name)
	}
	return v, nil
}

// checkContact checks the e-mail (when given). The website's form is
// declared on the request (FORMAT_URL) and checked before the handler.
func checkContact(in OrgInput) error {
	if in.Email != "" {
		if err := users.ValidateEmail(in.Email); err != nil {
			return errs.New(errs.Invalid, err.Error())
		}
	}
	return nil
}

// Edit changes the organization the call resolved (PATCH /orgs/{org}).
// As Gitea, full name, description, website and location are always
// written; e-mail and visibility only when given.
func (s *Service) Edit(ctx context.Context, in OrgInput) (*store.User, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	vis, err := parseVisibility(in.Visibility, o.Visibility)
	if err != nil {
		return nil, err
	}
	if err := checkContact(in); err != nil {
		return nil, err
	}
	return s.store.UpdateUser(ctx, o.Name, func(u *store.User) error {
		u.FullName, u.Description, u.Website, u.Location = in.FullName, in.Description, in.Website, in.Location
		if in.Email != "" {
			u.Email = in.Email
		}
		u.Visibility = vis
		if in.RepoAdminChangeTeamAccess != nil {
			u.RepoAdminChangeTeamAccess = *in.RepoAdminChangeTeamAccess
		}
		return nil
	})
}

// Delete deletes the organization the call resolved; refused while it
// owns repositories.
func (s *Service) Delete(ctx context.Context) error {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return err
	}
	return s.store.DeleteOrganization(ctx, o.ID)
}

// List is a page of the organizations viewer sees (GET /orgs).
func (s *Service) List(ctx context.Context, viewer *auth.Principal, offset, limit int) ([]store.User, int64, error) {
	f := access.UserFilter(viewer)
	return s.store.ListOrganizations(ctx, store.OrgListOptions{Visible: &f, Offset: offset, Limit: limit})
}

// ListMine is a page of the caller's organizations (GET /user/orgs), of
// those the caller sees (all of them, but for a public-only token).
func (s *Service) ListMine(ctx context.Context, caller *auth.Principal, offset, limit int) ([]store.User, int64, error) {
	f := access.UserFilter(caller)
	return s.store.ListOrganizations(ctx, store.OrgListOptions{MemberID: caller.ID(), Visible: &f, Offset: offset, Limit: limit})
}

// ListOfUser is a page of the organizations of the user named name (GET
// /users/{username}/orgs): every membership for the user themself and
// site administrators, else the public ones, of organizations viewer
// sees.
func (s *Service) ListOfUser(ctx context.Context, name string, viewer *auth.Principal, offset, limit int) ([]store.User, int64, error) {
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if err != nil {
		return nil, 0, err
	}
	f := access.UserFilter(viewer)
	return s.store.ListOrganizations(ctx, store.OrgListOptions{
		MemberID: u.ID, PublicMemberships: !access.SeesAllMembershipsOf(u, viewer),
		Visible: &f, Offset: offset, Limit: limit,
	})
}

// Permissions is what a user may do in an organization (Gitea's
// OrganizationPermissions).
type Permissions struct {
	IsOwner, IsAdmin, CanWrite, CanRead, CanCreateRepository bool
}

// UserPermissions is the permissions of the user named name in the
// organization the call resolved, from the highest access among their
// teams. A membership viewer may not learn of (access.SeesMembership: a
// concealed one, to a caller who is neither a member, the user nor a site
// administrator) is answered as a non-member's: all false.
func (s *Service) UserPermissions(ctx context.Context, name string, viewer *auth.Principal) (Permissions, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return Permissions{}, err
	}
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if err != nil {
		return Permissions{}, err
	}
	m, err := s.store.OrgMembership(ctx, o.ID, u.ID)
	if err != nil {
		return Permissions{}, err
	}
	if !access.SeesMembership(o, u, m, viewer) {
		return Permissions{}, nil
	}
	teams, _, err := s.store.ListTeams(ctx, store.TeamListOptions{OrgID: o.ID, MemberID: u.ID, Limit: maxTeamsPerUser})
	if err != nil {
		return Permissions{}, err
	}
	level := store.AccessNone
	for _, t := range teams {
		level = max(level, t.Authorize)
	}
	create, err := s.store.CanCreateOrgRepo(ctx, o.ID, u.ID)
	if err != nil {
		return Permissions{}, err
	}
	return Permissions{
		IsOwner: level >= store.AccessOwner, IsAdmin: level >= store.AccessAdmin, CanWrite: level >= store.AccessWrite,
		CanRead: level >= store.AccessRead, CanCreateRepository: create,
	}, nil
}

// maxTeamsPerUser bounds the teams read for one user's permissions.
const maxTeamsPerUser = 1000

// notFound is Gitea's bare 404 of membership checks.
var notFound = errs.New(errs.NotFound, "")
