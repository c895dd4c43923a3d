package pulls

import (
	"context"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
)

// Renderer renders pull requests for other areas (webhook payloads)
// exactly as this area answers them.
type Renderer struct{ v view }

// NewRenderer renders with o's renderers, store, git and access.
func NewRenderer(o Options) Renderer {
	return Renderer{v: view{root: o.RootURL, users: o.Users, repos: o.Repos, labels: o.Labels,
		store: o.Store, git: o.Git, modes: o.Access}}
}

// Pull renders the pull request of issue is in base as viewer sees it;
// nil when it has no pull request record.
func (r Renderer) Pull(ctx context.Context, viewer *auth.Principal, base *access.Repo, is *store.Issue) (*pullsv1.PullRequest, error) {
	out, err := r.v.page(ctx, viewer, base, []store.Issue{*is})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out[0], nil
}
