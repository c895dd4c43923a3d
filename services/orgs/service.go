// Package orgs serves forge.orgs.v1 (OrganizationService, TeamService):
// organizations, their members and repositories, and teams. Who may call
// what is declared in the proto; the organization or team a method acts
// on is resolved by the interceptor (access.OrgFrom, access.TeamFrom).
package orgs

import (
	"context"

	"forge/services/access"
	"forge/services/repos"
	"forge/services/store"
)

// Store is what the organization use cases read and write. *store.Store
// implements it (checked in cmd/forge/app). Errors other than the
// sentinels named are internal failures.
type Store interface {
	access.VisibilityStore
	// CreateOrganization returns store.ErrUserExists for a taken name.
	CreateOrganization(ctx context.Context, org *store.User, creatorID int64) error
	// UpdateUser returns store.ErrNotFound for an unknown name.
	UpdateUser(ctx context.Context, name string, change func(u *store.User) error) (*store.User, error)
	// DeleteOrganization returns store.ErrOrgOwnsRepos while the
	// organization owns repositories.
	DeleteOrganization(ctx context.Context, orgID int64) error
	ListOrganizations(ctx context.Context, o store.OrgListOptions) ([]store.User, int64, error)
	OrgMembership(ctx context.Context, orgID, uid int64) (store.OrgMembership, error)
	ListOrgMembers(ctx context.Context, o store.OrgMemberListOptions) ([]store.User, int64, error)
	// SetOrgMemberPublic returns store.ErrNotFound for a non-member.
	SetOrgMemberPublic(ctx context.Context, orgID, uid int64, public bool) error
	// RemoveOrgMember returns store.ErrNotFound for a non-member and
	// store.ErrLastOrgOwner for the last owner.
	RemoveOrgMember(ctx context.Context, orgID, uid int64) error
	CanCreateOrgRepo(ctx context.Context, orgID, uid int64) (bool, error)

	ListTeams(ctx context.Context, o store.TeamListOptions) ([]store.Team, int64, error)
	// CreateTeam returns store.ErrTeamExists for a taken name.
	CreateTeam(ctx context.Context, t *store.Team) error
	// UpdateTeam returns store.ErrNotFound or store.ErrTeamExists.
	UpdateTeam(ctx context.Context, id int64, change func(t *store.Team) error) (*store.Team, error)
	// DeleteTeam returns store.ErrOwnersTeam for the Owners team.
	DeleteTeam(ctx context.Context, id int64) error
	ListTeamMembers(ctx context.Context, teamID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
	IsTeamMember(ctx context.Context, teamID, uid int64) (bool, error)
	AddTeamMember(ctx context.Context, teamID, uid int64) error
	// RemoveTeamMember returns store.ErrNotFound for a non-member and
	// store.ErrLastOrgOwner for the last owner.
	RemoveTeamMember(ctx context.Context, teamID, uid int64) error
	HasTeamRepo(ctx context.Context, teamID, repoID int64) (bool, error)
	// AddTeamRepo returns store.ErrRepoNotInOrg for another owner's
	// repository.
	AddTeamRepo(ctx context.Context, teamID, repoID int64) error
	RemoveTeamRepo(ctx context.Context, teamID, repoID int64) error
	ListRepoTeams(ctx context.Context, orgID, repoID int64) ([]store.Team, error)
	// TeamByName returns store.ErrNotFound for an unknown team.
	TeamByName(ctx context.Context, orgID int64, name string) (*store.Team, error)
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
}

// Service holds the organization and team rules apart from any
// transport; Server and TeamServer decode, call one method and render.
type Service struct {
	store  Store
	access *access.Checker
	repos  *repos.Service
}

// NewService builds the use cases; repository creation and listing are
// the repos area's (repos.Service), with the organization as owner.
func NewService(st Store, c *access.Checker, r *repos.Service) *Service {
	return &Service{store: st, access: c, repos: r}
}
