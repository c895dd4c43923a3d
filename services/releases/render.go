package releases

import (
	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/access"
	"forge/services/store"
	"forge/services/users"
)

// Renderer renders releases for other areas (webhook payloads) exactly as
// this area answers them.
type Renderer struct{ v view }

// NewRenderer returns the renderer; rootURL ends with "/".
func NewRenderer(u users.Renderer, rootURL string) Renderer {
	return Renderer{v: view{root: rootURL, users: u}}
}

// Release renders rel of r with its publisher (nil: the ghost) and assets.
func (r Renderer) Release(repo *access.Repo, rel *store.Release, publisher *store.User, assets []store.Attachment) *releasesv1.Release {
	return r.v.release(repo, rel, publisher, assets)
}
