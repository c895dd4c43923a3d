package issues

import (
	"context"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/users"
)

// Renderer renders issues for other areas (issue dependencies) exactly as
// this area does.
type Renderer struct{ v view }

// NewRenderer returns the renderer; rootURL ends with "/".
func NewRenderer(s Store, u users.Renderer, rootURL string) Renderer {
	return Renderer{v: view{root: rootURL, users: u, store: s}}
}

// Issues renders list as seen by viewer; repoOf names each issue's
// repository (owner login and name).
func (r Renderer) Issues(ctx context.Context, viewer *auth.Principal, list []store.Issue, repoOf func(repoID int64) (owner, name string)) ([]*issuesv1.Issue, error) {
	return r.v.issues(ctx, viewer, list, func(id int64) repoRef {
		owner, name := repoOf(id)
		return repoRef{id: id, owner: owner, name: name}
	})
}

// Label renders a label of the repository owner/name (or of its
// organization) exactly as issues show it.
func (r Renderer) Label(l *store.Label, owner, name string) *issuesv1.Label {
	return r.v.label(l, repoRef{owner: owner, name: name})
}

// Comment renders comment c of issue is in the repository owner/name
// exactly as this area does (webhook payloads).
func (r Renderer) Comment(ctx context.Context, viewer *auth.Principal, c *store.Comment, is *store.Issue, owner, name string) (*issuesv1.Comment, error) {
	out, err := r.v.comments(ctx, viewer, []store.Comment{*c}, repoRef{id: is.RepoID, owner: owner, name: name},
		map[int64]*store.Issue{is.ID: is})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out[0], nil
}
