// Package releases serves forge.releases.v1.ReleaseService: a
// repository's releases (stored rows tied to git tags) and its git tags.
//
// Rules, in one place (the policies in the proto, enforced by the auth
// interceptor): reads
// need read access to the repository (anonymous callers may read public
// ones), writes need write access; with the releases unit disabled only
// repository administrators reach releases at all. Drafts exist only for
// callers with write access (everyone else gets 404 or an empty list). A release for a new tag creates the tag (from
// target_commitish, default branch by default) unless it is a draft, in
// which case the tag is created when the draft is published. Deleting a
// release keeps its tag.
package releases

import (
	"context"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// Store is what the release service reads and writes. Methods return
// store.ErrNotFound for missing releases and store.ErrReleaseExists when
// a tag already has a release.
type Store interface {
	CreateRelease(ctx context.Context, r *store.Release) error
	ReleaseByID(ctx context.Context, repoID, id int64) (*store.Release, error)
	ReleaseByTag(ctx context.Context, repoID int64, tag string) (*store.Release, error)
	LatestRelease(ctx context.Context, repoID int64) (*store.Release, error)
	ListReleases(ctx context.Context, o store.ReleaseListOptions) ([]store.Release, int64, error)
	UpdateRelease(ctx context.Context, repoID, id int64, change func(r *store.Release) error) (*store.Release, error)
	DeleteRelease(ctx context.Context, repoID, id, actorID int64) error
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	// EnqueueHookEvent records a webhook event (tags created or deleted
	// here, which have no record of their own).
	EnqueueHookEvent(ctx context.Context, e store.HookEvent) error
	// VisibleUserIDs applies account visibility to the publishers.
	access.VisibleAmong
	// AttachmentsOf returns the assets of releases (column "release_id"),
	// oldest first, by release id.
	AttachmentsOf(ctx context.Context, repoID int64, column string, ids []int64) (map[int64][]store.Attachment, error)
}

// Git is the part of the git store releases use. Errors wrap git's
// sentinels (ErrNotFound, ErrInvalid, ErrAlreadyExists, ErrConflict).
type Git interface {
	RepoPath(owner, name string) (string, error)
	// Identify names the database repository at path (see git.Store).
	Identify(path string, repoID int64)
	IsEmpty(ctx context.Context, path string) (bool, error)
	ResolveRef(ctx context.Context, path, ref string) (string, error)
	ListTags(ctx context.Context, path string) ([]git.Tag, error)
	GetTag(ctx context.Context, path, name string) (git.Tag, error)
	CreateTag(ctx context.Context, path, name, target, message string, tagger git.Signature) (git.Tag, error)
	DeleteTag(ctx context.Context, path, name string) error
}

// Server implements releasesv1.ReleaseServiceServer.
type Server struct {
	releasesv1.UnimplementedReleaseServiceServer
	store  Store
	git    Git
	view   view
	limits paging.Limits
	rec    Recorder
	guard  TagGuard
}

// TagGuard applies the repository's tag protection rules
// (protection.Service): CheckTag returns refusal when uid may not
// create, move or delete tag.
type TagGuard interface {
	CheckTag(ctx context.Context, repoID, ownerID int64, org bool, uid int64, tag string, refusal error) error
}

// WithTagGuard makes tag creation and deletion (the tag API, releases
// that create their tag) follow guard's rules.
func (s *Server) WithTagGuard(guard TagGuard) *Server {
	s.guard = guard
	return s
}

// checkTag refuses with refusal a change of tag the caller may not make.
func (s *Server) checkTag(ctx context.Context, r *repo, tag string, refusal error) error {
	if s.guard == nil {
		return nil
	}
	return s.guard.CheckTag(ctx, r.ID, r.OwnerID, r.Owner.Type == store.UserTypeOrganization, r.viewer.ID(), tag, refusal)
}

// Recorder records ref changes made through the API (repos.Syncer), so
// the change hooks (webhooks, mirrors) see tag creation and deletion as
// they see a push.
type Recorder interface {
	Apply(ctx context.Context, repo *store.Repository, pusherID int64, updates []git.RefUpdate) error
}

// WithRecorder makes the tag API record its ref changes with rec.
func (s *Server) WithRecorder(rec Recorder) *Server {
	s.rec = rec
	return s
}

// record hands the tag updates to the recorder, if any.
func (s *Server) record(ctx context.Context, r *repo, updates ...git.RefUpdate) error {
	if s.rec == nil {
		return nil
	}
	if err := s.rec.Apply(ctx, r.Repository, r.viewer.ID(), updates); err != nil {
		return errs.Wrap(err, "record tag update")
	}
	return nil
}

var _ releasesv1.ReleaseServiceServer = (*Server)(nil)

// NewServer builds the service; rootURL ends with "/".
func NewServer(s Store, g Git, u users.Renderer, rootURL string, limits paging.Limits) *Server {
	return &Server{store: s, git: g, view: view{root: rootURL, users: u}, limits: limits}
}

// errNotFound is Gitea's bare 404 for a missing or hidden release or tag.
var errNotFound = errs.New(errs.NotFound, "")

// repo is a resolved repository with the caller and its git path.
type repo struct {
	*access.Repo
	viewer *auth.Principal
	path   string
}

// resolve is the repository the interceptor resolved and authorized for
// the call (the policy declares the unit and level), with its git path.
func (s *Server) resolve(ctx context.Context) (*repo, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return nil, gitErr(err)
	}
	s.git.Identify(path, r.ID)
	return &repo{Repo: r, viewer: auth.FromContext(ctx), path: path}, nil
}

// visible hides drafts from callers without write access.
func visible(r *repo, rel *store.Release, err error) (*store.Release, error) {
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if rel.IsDraft && !r.CanWrite() {
		return nil, errNotFound
	}
	return rel, nil
}

func (s *Server) ListReleases(ctx context.Context, req *releasesv1.ListReleasesRequest) (*releasesv1.ListReleasesResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListReleases(ctx, store.ReleaseListOptions{
		RepoID: r.ID, IncludeDrafts: r.CanWrite(), Draft: req.Draft, Prerelease: req.PreRelease,
		Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	ids := make([]int64, len(list))
	relIDs := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].PublisherID
		relIDs[i] = list[i].ID
	}
	publishers, err := s.publishers(ctx, ids...)
	if err != nil {
		return nil, err
	}
	assets, err := s.store.AttachmentsOf(ctx, r.ID, "release_id", relIDs)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	out := &releasesv1.ListReleasesResponse{Releases: make([]*releasesv1.Release, len(list)), TotalCount: total}
	for i := range list {
		out.Releases[i] = s.view.release(r.Repo, &list[i], publishers[list[i].PublisherID], assets[list[i].ID])
	}
	return out, nil
}

// render renders one release with its publisher.
func (s *Server) render(ctx context.Context, r *repo, rel *store.Release) (*releasesv1.Release, error) {
	publishers, err := s.publishers(ctx, rel.PublisherID)
	if err != nil {
		return nil, err
	}
	assets, err := s.store.AttachmentsOf(ctx, r.ID, "release_id", []int64{rel.ID})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return s.view.release(r.Repo, rel, publishers[rel.PublisherID], assets[rel.ID]), nil
}

// publishers loads the publishers the caller may see; a hidden one is
// rendered as the ghost, like a deleted one.
func (s *Server) publishers(ctx context.Context, ids ...int64) (map[int64]*store.User, error) {
	found, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if err := access.DropHidden(ctx, s.store, auth.FromContext(ctx), found); err != nil {
		return nil, err
	}
	return found, nil
}

func (s *Server) GetRelease(ctx context.Context, req *releasesv1.GetReleaseRequest) (*releasesv1.GetReleaseResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	rel, err := visibleFetch(r, func() (*store.Release, error) { return s.store.ReleaseByID(ctx, r.ID, req.GetId()) })
	if err != nil {
		return nil, err
	}
	out, err := s.render(ctx, r, rel)
	if err != nil {
		return nil, err
	}
	return &releasesv1.GetReleaseResponse{Release: out}, nil
}

func (s *Server) GetLatestRelease(ctx context.Context, req *releasesv1.GetLatestReleaseRequest) (*releasesv1.GetLatestReleaseResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	rel, err := s.store.LatestRelease(ctx, r.ID)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	out, err := s.render(ctx, r, rel)
	if err != nil {
		return nil, err
	}
	return &releasesv1.GetLatestReleaseResponse{Release: out}, nil
}

func (s *Server) GetReleaseByTag(ctx context.Context, req *releasesv1.GetReleaseByTagRequest) (*releasesv1.GetReleaseByTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	rel, err := visibleFetch(r, func() (*store.Release, error) { return s.store.ReleaseByTag(ctx, r.ID, req.GetTag()) })
	if err != nil {
		return nil, err
	}
	out, err := s.render(ctx, r, rel)
	if err != nil {
		return nil, err
	}
	return &releasesv1.GetReleaseByTagResponse{Release: out}, nil
}

func (s *Server) DeleteRelease(ctx context.Context, req *releasesv1.DeleteReleaseRequest) (*releasesv1.DeleteReleaseResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteRelease(ctx, r.ID, req.GetId(), r.viewer.ID()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return &releasesv1.DeleteReleaseResponse{}, nil
}

func (s *Server) DeleteReleaseByTag(ctx context.Context, req *releasesv1.DeleteReleaseByTagRequest) (*releasesv1.DeleteReleaseByTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	rel, err := s.store.ReleaseByTag(ctx, r.ID, req.GetTag())
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if err := s.store.DeleteRelease(ctx, r.ID, rel.ID, r.viewer.ID()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return &releasesv1.DeleteReleaseByTagResponse{}, nil
}

// visibleFetch loads a release and hides drafts from non-writers.
func visibleFetch(r *repo, fetch func() (*store.Release, error)) (*store.Release, error) {
	rel, err := fetch()
	return visible(r, rel, err)
}
