package access

import (
	"context"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's 403 messages, by the level a route requires (its reqRepoWriter,
// reqAdmin and reqOwner middleware) and for a unit switched off.
const (
	NeedWriteMessage = "user should have a permission to write to a repo"
	NeedAdminMessage = "user should be an owner or a collaborator with admin write of a repository"
	NeedOwnerMessage = "user should be the owner of the repo"
	UnitOffMessage   = "user should have specific read permission or be a repo admin or a site admin"
)

// repoKey is the context key of the resolved repository.
type repoKey struct{}

// WithRepo returns ctx carrying r, the repository the method's policy
// declared, as the interceptor resolved it.
func WithRepo(ctx context.Context, r *Repo) context.Context {
	return context.WithValue(ctx, repoKey{}, r)
}

// RepoFrom is the repository the interceptor resolved and authorized for
// this call (Policy.Resource). A handler of a method that declares no
// repository gets an Internal error: its policy is missing the
// declaration, and nothing was checked.
func RepoFrom(ctx context.Context) (*Repo, error) {
	if r, _ := ctx.Value(repoKey{}).(*Repo); r != nil {
		return r, nil
	}
	return nil, errs.New(errs.Internal, "the method's policy declares no repository")
}

// ownerRepo and byID are the request fields a repository is named by.
type ownerRepo interface {
	GetOwner() string
	GetRepo() string
}

type byID interface{ GetId() int64 }

// AuthorizeResource implements auth.ResourceAuthorizer: it resolves the
// repository the policy declares from req as caller sees it, applies the
// policy (Authorize) and returns ctx carrying it (RepoFrom).
func (c *Checker) AuthorizeResource(ctx context.Context, pol auth.Policy, req any, caller *auth.Principal) (context.Context, error) {
	s := &subject{caller: caller}
	var err error
	switch pol.Resource.Kind {
	case auth.OrganizationResource:
		if ctx, err = c.authorizeOrg(ctx, pol.Resource, req, caller); err != nil {
			return nil, err
		}
		s.org, _ = OrgFrom(ctx)
	case auth.TeamResource:
		if ctx, err = c.authorizeTeam(ctx, pol.Resource, req, caller); err != nil {
			return nil, err
		}
		s.team, _ = TeamFrom(ctx)
		s.org = s.team.Org
	case auth.RepositoryResource:
		r, err := c.resolveRequest(ctx, pol.Resource, req, caller)
		if err != nil {
			return nil, err
		}
		if err := Authorize(r, pol.Resource, writes(pol)); err != nil {
			return nil, err
		}
		ctx, s.repo = WithRepo(ctx, r), r
	case auth.NoResource:
		if pol.Rule == "" {
			return nil, errs.New(errs.Internal, "no resolver for the method's resource")
		}
	default:
		return nil, errs.New(errs.Internal, "no resolver for the method's resource")
	}
	if pol.Rule == "" && len(pol.WriterFields) == 0 {
		return ctx, nil
	}
	return c.applyRule(ctx, pol, req, s)
}

func (c *Checker) resolveRequest(ctx context.Context, res auth.Resource, req any, caller *auth.Principal) (*Repo, error) {
	if res.ByID {
		named, ok := req.(byID)
		if !ok {
			return nil, errs.New(errs.Internal, "the request has no repository id")
		}
		return c.ResolveByID(ctx, named.GetId(), caller)
	}
	named, ok := req.(ownerRepo)
	if !ok {
		return nil, errs.New(errs.Internal, "the request names no repository")
	}
	return c.Resolve(ctx, named.GetOwner(), named.GetRepo(), caller)
}

// CachedRepoID is the id of the repository a call to a method with pol
// and req would resolve, as far as the cache of resolved repositories
// knows without reading the database (0 when it does not): the
// authenticator prefetches its counters with the generation (see
// store.WithCountersPrefetch). A wrong guess costs nothing but the
// prefetch: the resolution itself is unchanged.
func (c *Checker) CachedRepoID(pol auth.Policy, req any) int64 {
	if pol.Resource.Kind != auth.RepositoryResource || req == nil {
		return 0
	}
	if pol.Resource.ByID {
		if named, ok := req.(byID); ok {
			return named.GetId()
		}
		return 0
	}
	if named, ok := req.(ownerRepo); ok {
		return c.cache.idByName(named.GetOwner(), named.GetRepo())
	}
	return 0
}

// writes is what a method writes, for the read-only rule. A write that
// forgot its declaration is treated as writing code (fail closed;
// TestRepositoryWritesAreDeclared reports it).
func writes(pol auth.Policy) auth.RepoWrite {
	if pol.Writes == auth.WritesUndeclared && pol.Level == auth.LevelWrite {
		return auth.WritesCode
	}
	return pol.Writes
}

// Authorize is the one repository rule after resolution, in Gitea's route
// order: the unit must be on (else only repository administrators pass),
// the caller needs res.Need (403 with Gitea's message for that level),
// and a method that writes w must respect the read-only states (ReadOnly).
// The API's interceptor and git smart HTTP both call it.
func Authorize(r *Repo, res auth.Resource, w auth.RepoWrite) error {
	// From here on Mode is the caller's access to the declared unit.
	if r.grants != nil {
		switch res.Unit {
		case auth.UnitAny:
			r.Mode = r.grants.anyEnabled(r.Repository)
		case auth.UnitIssuesOrPulls:
			r.Mode = r.grants.issuesOrPulls(r.Repository)
		default:
			r.Mode = r.grants.unit(res.Unit)
		}
	}
	if !unitEnabled(r.Repository, res.Unit) && r.Mode < store.AccessAdmin {
		return errs.New(errs.PermissionDenied, UnitOffMessage)
	}
	if err := r.Require(res.Need); err != nil {
		return err
	}
	return ReadOnly(r, w)
}

// unitEnabled reports whether the repository has unit switched on.
func unitEnabled(r *store.Repository, u auth.Unit) bool {
	switch u {
	case auth.UnitReleases:
		return r.HasReleases
	case auth.UnitIssues:
		return r.HasIssues
	case auth.UnitIssuesOrPulls:
		return r.HasIssues || r.HasPullRequests
	case auth.UnitPulls:
		return r.HasPullRequests
	case auth.UnitWiki:
		return r.HasWiki
	}
	return true
}
