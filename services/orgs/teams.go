package orgs

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/repos"
	"forge/services/store"
)

// TeamInput is Gitea's CreateTeamOption / EditTeamOption, decoded; nil
// pointers are unset (edit).
type TeamInput struct {
	Name                    *string
	Description             *string
	IncludesAllRepositories *bool
	CanCreateOrgRepo        *bool
	Permission              string
	Units                   []string
	UnitsMap                map[string]string
}

// teamName is Gitea's AlphaDashDot binding rule for team names.
var teamName = regexp.MustCompile(`^[\w.-]+$`)

func checkTeamName(name string) error {
	if !teamName.MatchString(name) {
		return errs.New(errs.Invalid, "[Name]: AlphaDashDot")
	}
	return nil
}

// parseTeamMode is Gitea's reading of a team permission: read, write or
// admin; anything else (owner included) is none.
func parseTeamMode(s string) store.AccessMode {
	switch s {
	case "read":
		return store.AccessRead
	case "write":
		return store.AccessWrite
	case "admin":
		return store.AccessAdmin
	}
	return store.AccessNone
}

// applyUnits sets the team's access and units from in, as Gitea: an admin
// team gets admin on every unit (read on the external ones) and ignores
// units_map; otherwise units_map wins over units, and with units_map the
// team's access is the lowest access above none among its values.
//
// Unlike Gitea, a unit's mode above write is stored as write on a team
// below admin: repository admin comes only from the team's permission
// (admin), never from a unit, so units_map cannot make a team that reports
// read or write the repositories' administrator (access.modes holds the
// same ceiling). Repeated unit names count once and an unknown unit name
// is a 422, so no team input reaches the database as a duplicate row or
// an unbounded statement.
func applyUnits(t *store.Team, in TeamInput, creating bool) error {
	units, err := unitList(in.Units)
	if err != nil {
		return err
	}
	unitsMap, err := unitModes(in.UnitsMap)
	if err != nil {
		return err
	}
	mode := t.Authorize
	if in.Permission != "" || creating {
		mode = parseTeamMode(in.Permission)
		if mode < store.AccessAdmin && len(unitsMap) > 0 {
			mode = minUnitMode(unitsMap)
		}
	}
	t.Authorize = mode
	if mode >= store.AccessAdmin {
		t.Units = nil
		for _, u := range store.AllUnitTypes() {
			m := store.AccessAdmin
			if u == store.UnitTypeExternalTracker || u == store.UnitTypeExternalWiki {
				m = store.AccessRead
			}
			t.Units = append(t.Units, store.TeamUnit{Type: u, AccessMode: m})
		}
		return nil
	}
	switch {
	case len(unitsMap) > 0:
		t.Units = nil
		for _, u := range store.AllUnitTypes() {
			if m, ok := unitsMap[u]; ok {
				t.Units = append(t.Units, store.TeamUnit{Type: u, AccessMode: m})
			}
		}
	case len(units) > 0:
		t.Units = nil
		for _, u := range units {
			t.Units = append(t.Units, store.TeamUnit{Type: u, AccessMode: mode})
		}
	case creating:
		// Gitea answers 500; forge a client error (README row 13).
		return errs.New(errs.Invalid, "units permission should not be empty")
	}
	return nil
}

// unknownUnit refuses a unit name Gitea does not have (Gitea 1.22 skips
// it in units and stores an invalid row for it in units_map). The name is
// cut short in the message: it comes from the request, unbounded.
func unknownUnit(field, name string) error {
	return errs.Newf(errs.Invalid, "[%s]: unknown unit %.40q", field, name)
}

// unitList is units as unit types, each once, in the order given.
func unitList(names []string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, name := range names {
		u := unitType(name)
		if u == 0 {
			return nil, unknownUnit("Units", name)
		}
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out, nil
}

// unitModes is units_map by unit type, each mode at most write (see
// applyUnits). A mode Gitea does not read is none.
func unitModes(m map[string]string) (map[int]store.AccessMode, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[int]store.AccessMode, len(m))
	for name, v := range m {
		u := unitType(name)
		if u == 0 {
			return nil, unknownUnit("UnitsMap", name)
		}
		out[u] = min(parseTeamMode(v), store.AccessWrite)
	}
	return out, nil
}

// minUnitMode is the lowest access above none among m's values (the
// external units, read-only by nature, do not count); none when all are
// none.
func minUnitMode(m map[int]store.AccessMode) store.AccessMode {
	out := store.AccessNone
	for u, mode := range m {
		if u == store.UnitTypeExternalTracker || u == store.UnitTypeExternalWiki {
			continue
		}
		if mode > store.AccessNone && (out == store.AccessNone || mode < out) {
			out = mode
		}
	}
	return out
}

// teamExists is Gitea's 422 for a duplicate name.
func teamExists(orgID int64, name string) error {
	return errs.Newf(errs.AlreadyExists, "team already exists [org_id: %d, name: %s]", orgID, name)
}

// CreateTeam makes a team in the organization the call resolved.
func (s *Service) CreateTeam(ctx context.Context, in TeamInput) (*store.Team, *access.Org, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	name := deref(in.Name)
	if err := checkTeamName(name); err != nil {
		return nil, nil, err
	}
	t := &store.Team{OrgID: o.ID, Name: name, Description: deref(in.Description),
		IncludesAllRepositories: derefBool(in.IncludesAllRepositories), CanCreateOrgRepo: derefBool(in.CanCreateOrgRepo)}
	if err := applyUnits(t, in, true); err != nil {
		return nil, nil, err
	}
	if err := s.store.CreateTeam(ctx, t); err != nil {
		if errors.Is(err, store.ErrTeamExists) {
			return nil, nil, teamExists(o.ID, name)
		}
		return nil, nil, err
	}
	return t, o, nil
}

// EditTeam changes the team the call resolved; the Owners team keeps its
// name, access and units (the store enforces it).
func (s *Service) EditTeam(ctx context.Context, in TeamInput) (*store.Team, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, err
	}
	if in.Name != nil && *in.Name != "" {
		if err := checkTeamName(*in.Name); err != nil {
			return nil, err
		}
	}
	out, err := s.store.UpdateTeam(ctx, t.ID, func(st *store.Team) error {
		if in.Name != nil && *in.Name != "" {
			st.Name = *in.Name
		}
		if in.Description != nil {
			st.Description = *in.Description
		}
		if in.IncludesAllRepositories != nil {
			st.IncludesAllRepositories = *in.IncludesAllRepositories
		}
		if in.CanCreateOrgRepo != nil {
			st.CanCreateOrgRepo = *in.CanCreateOrgRepo
		}
		return applyUnits(st, in, false)
	})
	if errors.Is(err, store.ErrTeamExists) {
		return nil, teamExists(t.OrgID, deref(in.Name))
	}
	return out, err
}

// DeleteTeam deletes the team the call resolved (not the Owners team).
func (s *Service) DeleteTeam(ctx context.Context) error {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return err
	}
	return s.store.DeleteTeam(ctx, t.ID)
}

// Teams is a page of the organization's teams, or of those matching q
// (in names, and descriptions with includeDesc).
func (s *Service) Teams(ctx context.Context, q string, includeDesc bool, offset, limit int) ([]store.Team, int64, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.store.ListTeams(ctx, store.TeamListOptions{OrgID: o.ID, Keyword: strings.TrimSpace(q), IncludeDesc: includeDesc, Offset: offset, Limit: limit})
}

// MyTeams is a page of the caller's teams with their organizations, in
// the organizations the caller sees (all of them, but for a public-only
// token).
func (s *Service) MyTeams(ctx context.Context, caller *auth.Principal, offset, limit int) ([]store.Team, map[int64]*store.User, int64, error) {
	f := access.UserFilter(caller)
	teams, total, err := s.store.ListTeams(ctx, store.TeamListOptions{MemberID: caller.ID(), Visible: &f, Offset: offset, Limit: limit})
	if err != nil {
		return nil, nil, 0, err
	}
	ids := make([]int64, len(teams))
	for i := range teams {
		ids[i] = teams[i].OrgID
	}
	orgs, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, nil, 0, err
	}
	return teams, orgs, total, nil
}

// TeamMembers is a page of the team's members viewer sees.
func (s *Service) TeamMembers(ctx context.Context, viewer *auth.Principal, offset, limit int) ([]store.User, int64, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.store.ListTeamMembers(ctx, t.ID, access.UserFilter(viewer), offset, limit)
}

// TeamMember is the user named name if a member of the team, else 404.
func (s *Service) TeamMember(ctx context.Context, name string, viewer *auth.Principal) (*store.User, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, err
	}
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if err != nil {
		return nil, err
	}
	ok, err := s.store.IsTeamMember(ctx, t.ID, u.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFound
	}
	return u, nil
}

// AddTeamMember adds the individual user named name to the team (and so
// to the organization).
func (s *Service) AddTeamMember(ctx context.Context, name string, caller *auth.Principal) error {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return err
	}
	u, err := access.VisibleUser(ctx, s.store, name, caller)
	if err != nil {
		return err
	}
	if u.Type != store.UserTypeIndividual {
		return access.UserNotFound(name)
	}
	return s.store.AddTeamMember(ctx, t.ID, u.ID)
}

// RemoveTeamMember removes the user named name from the team (nothing
// when not a member); the Owners team keeps its last member.
func (s *Service) RemoveTeamMember(ctx context.Context, name string, caller *auth.Principal) error {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return err
	}
	u, err := access.VisibleUser(ctx, s.store, name, caller)
	if err != nil {
		return err
	}
	if err := s.store.RemoveTeamMember(ctx, t.ID, u.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// TeamRepos is a page of the team's repositories viewer sees: all of the
// organization's with includes_all_repositories.
func (s *Service) TeamRepos(ctx context.Context, viewer *auth.Principal, offset, limit int) ([]repos.Details, int64, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	opts := store.RepoListOptions{OwnerID: t.OrgID, Offset: offset, Limit: limit}
	if !t.IncludesAllRepositories {
		opts.TeamID = t.ID
	}
	return s.repos.List(ctx, opts, viewer)
}

// TeamRepo is the repository owner/name if the team reaches it, else
// 404.
func (s *Service) TeamRepo(ctx context.Context, owner, name string, viewer *auth.Principal) (*access.Repo, error) {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.access.Resolve(ctx, owner, name, viewer)
	if err != nil {
		return nil, err
	}
	if r.OwnerID != t.OrgID {
		return nil, notFound
	}
	if !t.IncludesAllRepositories {
		ok, err := s.store.HasTeamRepo(ctx, t.ID, r.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notFound
		}
	}
	return r, nil
}

// SetTeamRepo gives the team the repository the request names, or takes
// it away (the policy's rule team-repo-admin resolved it as the caller
// sees it and requires admin access there).
func (s *Service) SetTeamRepo(ctx context.Context, add bool) error {
	t, err := access.TeamFrom(ctx)
	if err != nil {
		return err
	}
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return err
	}
	if add {
		return s.store.AddTeamRepo(ctx, t.ID, on.Repo.ID)
	}
	return s.store.RemoveTeamRepo(ctx, t.ID, on.Repo.ID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefBool(b *bool) bool { return b != nil && *b }
