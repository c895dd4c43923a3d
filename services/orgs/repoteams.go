package orgs

import (
	"context"
	"fmt"
	"net/http"

	orgsv1 "forge/gen/forge/orgs/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Repository teams (/repos/{owner}/{repo}/teams): the teams of the
// owning organization that reach a repository, seen from the repository.
// The policy resolved the repository (read to look, admin to change);
// giving or taking it is the team-repository link PUT /teams/{id}/repos
// writes, so the access caches follow on the next request. As Gitea: a
// repository of an individual is 405, an unknown team 404, adding a team
// that has the repository (a team with includes_all_repositories always
// has it) or removing one that has not 422.

// errNotOrgRepo is Gitea's answer for a repository of an individual.
var errNotOrgRepo = errs.New(errs.FailedPrecondition, "repo is not owned by an organization").WithHTTPStatus(http.StatusMethodNotAllowed)

// orgRepo returns the repository the policy resolved, refusing one an
// individual owns.
func orgRepo(ctx context.Context) (*access.Repo, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if r.Owner.Type != store.UserTypeOrganization {
		return nil, errNotOrgRepo
	}
	return r, nil
}

// RepoTeams lists the teams reaching the request's repository.
func (s *Service) RepoTeams(ctx context.Context) (*access.Repo, []store.Team, error) {
	r, err := orgRepo(ctx)
	if err != nil {
		return nil, nil, err
	}
	teams, err := s.store.ListRepoTeams(ctx, r.OwnerID, r.ID)
	if err != nil {
		return nil, nil, errs.Wrap(err, "repository teams")
	}
	return r, teams, nil
}

// repoTeam loads the named team of the repository's organization and
// whether it reaches the repository.
func (s *Service) repoTeam(ctx context.Context, name string) (*access.Repo, *store.Team, bool, error) {
	r, err := orgRepo(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	t, err := s.store.TeamByName(ctx, r.OwnerID, name)
	if err != nil {
		return nil, nil, false, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	if t.IncludesAllRepositories {
		return r, t, true, nil
	}
	has, err := s.store.HasTeamRepo(ctx, t.ID, r.ID)
	if err != nil {
		return nil, nil, false, err
	}
	return r, t, has, nil
}

// RepoTeam returns the named team when it reaches the repository.
func (s *Service) RepoTeam(ctx context.Context, name string) (*access.Repo, *store.Team, error) {
	r, t, has, err := s.repoTeam(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if !has {
		return nil, nil, errs.New(errs.NotFound, "")
	}
	return r, t, nil
}

// SetRepoTeam gives the named team the repository, or takes it away.
func (s *Service) SetRepoTeam(ctx context.Context, name string, add bool) error {
	r, t, has, err := s.repoTeam(ctx, name)
	if err != nil {
		return err
	}
	if add {
		if has {
			return errs.New(errs.Invalid, fmt.Sprintf("team '%s' is already added to repo", t.Name))
		}
		return s.store.AddTeamRepo(ctx, t.ID, r.ID)
	}
	if !has || t.IncludesAllRepositories {
		return errs.New(errs.Invalid, fmt.Sprintf("team '%s' was not added to repo", t.Name))
	}
	return s.store.RemoveTeamRepo(ctx, t.ID, r.ID)
}

func (s *TeamServer) ListRepoTeams(ctx context.Context, _ *orgsv1.ListRepoTeamsRequest) (*orgsv1.ListRepoTeamsResponse, error) {
	r, teams, err := s.svc.RepoTeams(ctx)
	if err != nil {
		return nil, err
	}
	viewer := auth.FromContext(ctx)
	out := &orgsv1.ListRepoTeamsResponse{Teams: make([]*orgsv1.Team, len(teams))}
	for i := range teams {
		out.Teams[i] = s.render.Team(&teams[i], r.Owner, viewer)
	}
	return out, nil
}

func (s *TeamServer) GetRepoTeam(ctx context.Context, req *orgsv1.GetRepoTeamRequest) (*orgsv1.GetRepoTeamResponse, error) {
	r, t, err := s.svc.RepoTeam(ctx, req.GetTeam())
	if err != nil {
		return nil, err
	}
	return &orgsv1.GetRepoTeamResponse{Team: s.render.Team(t, r.Owner, auth.FromContext(ctx))}, nil
}

func (s *TeamServer) AddRepoTeam(ctx context.Context, req *orgsv1.AddRepoTeamRequest) (*orgsv1.AddRepoTeamResponse, error) {
	if err := s.svc.SetRepoTeam(ctx, req.GetTeam(), true); err != nil {
		return nil, err
	}
	return &orgsv1.AddRepoTeamResponse{}, nil
}

func (s *TeamServer) RemoveRepoTeam(ctx context.Context, req *orgsv1.RemoveRepoTeamRequest) (*orgsv1.RemoveRepoTeamResponse, error) {
	if err := s.svc.SetRepoTeam(ctx, req.GetTeam(), false); err != nil {
		return nil, err
	}
	return &orgsv1.RemoveRepoTeamResponse{}, nil
}
