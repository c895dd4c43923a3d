// Package mirrors serves forge.mirrors.v1.MirrorService: migrations from
// other git servers, pull mirrors kept in step with their source, and push
// mirrors. It also runs the periodic sync of both kinds (Scheduler) and the
// push after a push to a repository with sync_on_commit mirrors
// (Server.AfterPush).
//
// Remote credentials arrive in requests and are stored only sealed with
// [security] SECRET_KEY (mirrors.remote_sealed, push_mirrors.remote_sealed).
// They are never returned, logged or put into error messages: every text
// that could carry them goes through redact.
package mirrors

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	mirrorsv1 "forge/gen/forge/mirrors/v1"
	"forge/services/access"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/secretbox"
	"forge/services/store"
)

// Store is what the mirror service needs from the database.
type Store interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	UserByID(ctx context.Context, id int64) (*store.User, error)
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
	RepositoryByID(ctx context.Context, id int64) (*store.Repository, error)
	CreateRepositoryAtomic(ctx context.Context, n store.NewRepository, place func() error) error
	CheckNewRepository(ctx context.Context, ownerID int64, name string, limit int) error

	MirrorByRepoID(ctx context.Context, repoID int64) (*store.Mirror, error)
	DueMirrors(ctx context.Context, now int64, limit int) ([]store.Mirror, error)
	ClaimMirror(ctx context.Context, id, seen, next int64) (bool, error)
	FinishMirrorSync(ctx context.Context, repoID, now int64, syncErr string) error

	CreatePushMirror(ctx context.Context, pm *store.PushMirror) error
	ListPushMirrors(ctx context.Context, repoID int64, offset, limit int) ([]store.PushMirror, int64, error)
	PushMirrorsOfRepo(ctx context.Context, repoID int64, onCommitOnly bool) ([]store.PushMirror, error)
	PushMirrorByName(ctx context.Context, repoID int64, remoteName string) (*store.PushMirror, error)
	DeletePushMirror(ctx context.Context, repoID int64, remoteName string) error
	DuePushMirrors(ctx context.Context, now int64, limit int) ([]store.PushMirror, error)
	ClaimPushMirror(ctx context.Context, id, seen, next int64) (bool, error)
	FinishPushMirrorSync(ctx context.Context, id, now int64, syncErr string) error
}

// Git is what the mirror service does with repositories on disk.
type Git interface {
	RepoPath(owner, name string) (string, error)
	InitStaged(ctx context.Context, defaultBranch string) (string, error)
	CloneStaged(ctx context.Context, remote git.Remote) (string, error)
	Place(staged, path string) error
	Discard(staged string) error
	Delete(path string) error
	FetchMirror(ctx context.Context, path string, remote git.Remote) ([]git.RefUpdate, error)
	PushMirror(ctx context.Context, path string, remote git.Remote) error
	DefaultBranch(ctx context.Context, path string) (string, error)
	SetDefaultBranch(ctx context.Context, path, name string) error
	ListBranches(ctx context.Context, path string) ([]git.Branch, error)
	IsEmpty(ctx context.Context, path string) (bool, error)
}

// BranchSyncer records branch changes (repos.Syncer).
type BranchSyncer interface {
	Apply(ctx context.Context, repo *store.Repository, pusherID int64, updates []git.RefUpdate) error
}

// Options are the server's dependencies and settings.
type Options struct {
	Store  Store
	Git    Git
	Access *access.Checker
	Render repos.Renderer
	Syncer BranchSyncer
	// SecretKey is [security] SECRET_KEY; remote URLs with their
	// credentials are sealed with a key derived from it.
	SecretKey string
	Limits    paging.Limits
	// AllowLocalNetworks is [migrations] ALLOW_LOCALNETWORKS.
	AllowLocalNetworks bool
	// Resolver resolves remote hosts for the local-network check; nil is
	// the system resolver.
	Resolver Resolver
}

// Timing rules (Gitea's [mirror] defaults).
const (
	DefaultInterval = 8 * time.Hour
	MinInterval     = repos.MinMirrorInterval // one minimum for pull and push mirrors
	// syncTimeout bounds one fetch or push.
	syncTimeout = 30 * time.Minute
)

// Server implements mirrorsv1.MirrorServiceServer.
type Server struct {
	mirrorsv1.UnimplementedMirrorServiceServer
	store  Store
	git    Git
	access *access.Checker
	render repos.Renderer
	syncer BranchSyncer
	box    *secretbox.Box
	limits paging.Limits
	hosts  hostPolicy

	locks    keyedMutex // one fetch or push per mirror at a time in this process
	onCommit coalescer  // sync_on_commit pushes: at most one running and one pending per mirror

	// Background work (AfterPush) runs under bg and is awaited by Close.
	bg       context.Context
	stop     context.CancelFunc
	bgMu     sync.Mutex
	bgClosed bool
	bgWG     sync.WaitGroup
}

var _ mirrorsv1.MirrorServiceServer = (*Server)(nil)

// NewServer builds the service. Call Close when done.
func NewServer(o Options) (*Server, error) {
	box, err := secretbox.New(o.SecretKey, "mirrors")
	if err != nil {
		return nil, err
	}
	bg, stop := context.WithCancel(context.Background())
	return &Server{
		store: o.Store, git: o.Git, access: o.Access, render: o.Render, syncer: o.Syncer, box: box,
		limits: o.Limits, hosts: hostPolicy{allowLocal: o.AllowLocalNetworks, resolver: o.Resolver},
		bg: bg, stop: stop,
	}, nil
}

// Close cancels background pushes and waits for them to end.
func (s *Server) Close() {
	s.bgMu.Lock()
	s.bgClosed = true
	s.bgMu.Unlock()
	s.stop()
	s.bgWG.Wait()
}

// goBackground runs fn in a goroutine Close waits for; false after Close.
func (s *Server) goBackground(fn func(ctx context.Context)) bool {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.bgClosed {
		return false
	}
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		fn(s.bg)
	}()
	return true
}

func (s *Server) MirrorSync(ctx context.Context, req *mirrorsv1.MirrorSyncRequest) (*mirrorsv1.MirrorSyncResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	notMirror := errs.New(errs.FailedPrecondition, "Repository is not a mirror")
	if !r.IsMirror {
		return nil, notMirror
	}
	m, err := s.store.MirrorByRepoID(ctx, r.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notMirror
	}
	if err != nil {
		return nil, errs.Wrap(err, "load mirror")
	}
	// Gitea queues the sync and answers 200; forge syncs before answering
	// (so the caller sees the result) and, like Gitea, reports a failed
	// fetch in the mirror's state, not in this response. A client that
	// goes away does not abort the fetch.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncTimeout)
	defer cancel()
	s.syncPull(sctx, r.Repository, m)
	return &mirrorsv1.MirrorSyncResponse{}, nil
}

func (s *Server) ListPushMirrors(ctx context.Context, req *mirrorsv1.ListPushMirrorsRequest) (*mirrorsv1.ListPushMirrorsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListPushMirrors(ctx, r.ID, page.Offset(), page.Size)
	if err != nil {
		return nil, errs.Wrap(err, "list push mirrors")
	}
	out := &mirrorsv1.ListPushMirrorsResponse{PushMirrors: make([]*mirrorsv1.PushMirror, len(list)), TotalCount: total}
	for i := range list {
		out.PushMirrors[i] = renderPushMirror(r.Name, &list[i])
	}
	return out, nil
}

func (s *Server) AddPushMirror(ctx context.Context, req *mirrorsv1.AddPushMirrorRequest) (*mirrorsv1.AddPushMirrorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	interval, err := time.ParseDuration(req.GetInterval())
	if err != nil {
		return nil, errs.Newf(errs.FailedPrecondition, "invalid interval %q: want a Go duration such as 8h0m0s, or 0", req.GetInterval())
	}
	if interval != 0 && interval < MinInterval {
		return nil, errs.Newf(errs.FailedPrecondition, "interval %s is below the minimum interval of %s", interval, MinInterval)
	}
	remote, err := parseRemote(req.GetRemoteAddress(), req.GetRemoteUsername(), req.GetRemotePassword())
	if err != nil {
		return nil, errs.New(errs.FailedPrecondition, "Invalid mirror URL: only http://, https:// and git:// addresses are allowed")
	}
	if err := s.hosts.check(ctx, remote); err != nil {
		return nil, hostError(err)
	}
	name, err := remoteName()
	if err != nil {
		return nil, errs.Wrap(err, "remote name")
	}
	pm := &store.PushMirror{
		RepoID:        r.ID,
		RemoteName:    name,
		RemoteAddress: git.RedactURL(remote.String()),
		RemoteSealed:  s.box.Seal([]byte(remote.String())),
		SyncOnCommit:  req.GetSyncOnCommit(),
		IntervalSecs:  int64(interval / time.Second),
		CreatedUnix:   time.Now().Unix(),
	}
	if err := s.store.CreatePushMirror(ctx, pm); err != nil {
		return nil, err // ErrPushMirrorExists is AlreadyExists; rpcerr translates
	}
	return &mirrorsv1.AddPushMirrorResponse{PushMirror: renderPushMirror(r.Name, pm)}, nil
}

// pushMirrorNotFound is Gitea's 404 for an unknown remote name.
func pushMirrorNotFound(name string) error {
	return errs.Newf(errs.NotFound, "push mirror does not exist [remote name: %s]", name)
}

func (s *Server) GetPushMirror(ctx context.Context, req *mirrorsv1.GetPushMirrorRequest) (*mirrorsv1.GetPushMirrorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	pm, err := s.store.PushMirrorByName(ctx, r.ID, req.GetName())
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, pushMirrorNotFound(req.GetName()))
	}
	return &mirrorsv1.GetPushMirrorResponse{PushMirror: renderPushMirror(r.Name, pm)}, nil
}

func (s *Server) DeletePushMirror(ctx context.Context, req *mirrorsv1.DeletePushMirrorRequest) (*mirrorsv1.DeletePushMirrorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeletePushMirror(ctx, r.ID, req.GetName()); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, pushMirrorNotFound(req.GetName())
		}
		return nil, errs.Wrap(err, "delete push mirror")
	}
	return &mirrorsv1.DeletePushMirrorResponse{}, nil
}

func (s *Server) SyncPushMirrors(ctx context.Context, req *mirrorsv1.SyncPushMirrorsRequest) (*mirrorsv1.SyncPushMirrorsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.store.PushMirrorsOfRepo(ctx, r.ID, false)
	if err != nil {
		return nil, errs.Wrap(err, "list push mirrors")
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncTimeout)
	defer cancel()
	var failed []string
	for i := range list {
		if err := s.push(sctx, r.Repository, &list[i]); err != nil {
			failed = append(failed, list[i].RemoteName)
		}
	}
	if len(failed) > 0 {
		// Gitea answers 500; the cause is in each mirror's last_error.
		return nil, errs.Newf(errs.Internal, "push mirror sync failed for %v; see last_error", failed)
	}
	return &mirrorsv1.SyncPushMirrorsResponse{}, nil
}

// AfterPush pushes the repository to its sync_on_commit push mirrors in
// the background and returns at once. The git push path calls it after a
// push changed refs (it matches githost.AfterPush). Pushes to one mirror
// never overlap: a push arriving while one runs schedules exactly one more.
func (s *Server) AfterPush(_ context.Context, repoID int64) {
	s.goBackground(func(ctx context.Context) {
		list, err := s.store.PushMirrorsOfRepo(ctx, repoID, true)
		if err != nil || len(list) == 0 {
			if err != nil {
				logError("list push mirrors", repoID, err)
			}
			return
		}
		for i := range list {
			pm := list[i]
			s.goBackground(func(ctx context.Context) {
				s.onCommit.run(pm.ID, func() {
					repo, err := s.store.RepositoryByID(ctx, repoID)
					if err != nil {
						return // deleted meanwhile
					}
					sctx, cancel := context.WithTimeout(ctx, syncTimeout)
					defer cancel()
					s.push(sctx, repo, &pm)
				})
			})
		}
	})
}

// hostError is Gitea's answer for a refused remote host (the push path
// records the sentinels' own words in last_error).
func hostError(err error) error {
	if errors.Is(err, errUnresolvable) {
		return errs.New(errs.Invalid, "The host of the remote address could not be resolved.")
	}
	return errs.New(errs.Invalid, "You can not import from disallowed hosts.")
}

// openRemote unseals a stored remote URL.
func (s *Server) openRemote(sealed []byte) (*url.URL, error) {
	raw, err := s.box.Open(sealed)
	if err != nil {
		return nil, errors.New("cannot decrypt the remote address (was SECRET_KEY changed?)")
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return nil, errInvalidURL
	}
	return u, nil
}
