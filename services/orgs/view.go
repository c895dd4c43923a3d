package orgs

import (
	"sort"

	orgsv1 "forge/gen/forge/orgs/v1"
	"forge/services/auth"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// Renderer turns organizations and teams into API objects.
type Renderer struct {
	RootURL string
	Users   users.Renderer
	Repos   repos.Renderer
}

// Org renders an organization as viewer sees it: the e-mail only for
// signed-in callers (forge README row 10; Gitea blanks it for anonymous
// callers on GET /orgs/{org} only).
func (r Renderer) Org(o *store.User, viewer *auth.Principal) *orgsv1.Organization {
	out := &orgsv1.Organization{
		Id:                        o.ID,
		Name:                      o.Name,
		Username:                  o.Name,
		FullName:                  o.FullName,
		Email:                     o.Email,
		AvatarUrl:                 r.Users.AvatarURL(o),
		Description:               o.Description,
		Website:                   o.Website,
		Location:                  o.Location,
		Visibility:                o.Visibility.String(),
		RepoAdminChangeTeamAccess: o.RepoAdminChangeTeamAccess,
	}
	if viewer == nil {
		out.Email = ""
	}
	return out
}

// Orgs renders a list.
func (r Renderer) Orgs(list []store.User, viewer *auth.Principal) []*orgsv1.Organization {
	out := make([]*orgsv1.Organization, len(list))
	for i := range list {
		out[i] = r.Org(&list[i], viewer)
	}
	return out
}

// unitNames are Gitea's unit keys by unit type.
var unitNames = map[int]string{
	store.UnitTypeCode: "repo.code", store.UnitTypeIssues: "repo.issues", store.UnitTypePullRequests: "repo.pulls",
	store.UnitTypeReleases: "repo.releases", store.UnitTypeWiki: "repo.wiki", store.UnitTypeExternalWiki: "repo.ext_wiki",
	store.UnitTypeExternalTracker: "repo.ext_issues", store.UnitTypeProjects: "repo.projects",
	store.UnitTypePackages: "repo.packages", store.UnitTypeActions: "repo.actions",
}

// unitType is the unit type of a Gitea unit key, 0 for an unknown one.
func unitType(name string) int {
	for t, n := range unitNames {
		if n == name {
			return t
		}
	}
	return 0
}

// Team renders a team; org nil leaves organization null (lists, edits).
func (r Renderer) Team(t *store.Team, org *store.User, viewer *auth.Principal) *orgsv1.Team {
	out := &orgsv1.Team{
		Id:                      t.ID,
		Name:                    t.Name,
		Description:             t.Description,
		IncludesAllRepositories: t.IncludesAllRepositories,
		Permission:              t.Authorize.String(),
		CanCreateOrgRepo:        t.CanCreateOrgRepo,
		UnitsMap:                map[string]string{},
	}
	for _, u := range t.Units {
		name, ok := unitNames[u.Type]
		if !ok {
			continue
		}
		out.Units = append(out.Units, name)
		out.UnitsMap[name] = u.AccessMode.String()
	}
	sort.Strings(out.Units)
	if org != nil {
		out.Organization = r.Org(org, viewer)
	}
	return out
}
