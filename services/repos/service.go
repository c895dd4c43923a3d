package repos

import (
	"context"
	"time"

	"forge/services/access"
	"forge/services/git"
	"forge/services/store"
)

// Store is what the repository use cases read and write. *store.Store
// implements it (checked in cmd/forge/app); tests may pass a fake. Errors
// other than the sentinels named below are internal failures.
type Store interface {
	// UserByName returns store.ErrNotFound for an unknown name; with
	// UserVisible it is what users.Visible reads.
	access.VisibilityStore
	AtomicStore
	// CheckNewRepository: see NameChecker.
	NameChecker
	PurgeStore
	SyncStore
	TransferStore

	// RepositoryCounters reloads r's counters (its fork count after a
	// fork); store.ErrNotFound when it is gone.
	RepositoryCounters(ctx context.Context, r *store.Repository) error
	// CountReleases is the number of published releases of a repository.
	CountReleases(ctx context.Context, repoID int64) (int64, error)
	// CountReleasesOf and MirrorsOf read them for a page of repositories
	// at once; repositories without any are absent.
	CountReleasesOf(ctx context.Context, repoIDs []int64) (map[int64]int64, error)
	MirrorsOf(ctx context.Context, repoIDs []int64) (map[int64]*store.Mirror, error)
	// MirrorByRepoID returns store.ErrNotFound when the repository is not
	// a pull mirror.
	MirrorByRepoID(ctx context.Context, repoID int64) (*store.Mirror, error)
	// SetMirrorInterval returns store.ErrNotFound when the repository is
	// not a pull mirror.
	SetMirrorInterval(ctx context.Context, repoID int64, interval time.Duration) error
	// ListRepositories returns a page of the repositories o selects and
	// their total; errors are domain Internal errors.
	ListRepositories(ctx context.Context, o store.RepoListOptions) ([]store.Repository, int64, error)
	// UsersByID loads the users among ids; unknown ids are absent.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)

	// ListCollaborators returns a page of a repository's collaborators
	// that visible shows, and their total.
	ListCollaborators(ctx context.Context, repoID int64, visible store.UserFilter, offset, limit int) ([]store.Collaborator, int64, error)
	// CollaboratorMode is store.AccessNone for a user who is not a
	// collaborator (never store.ErrNotFound).
	CollaboratorMode(ctx context.Context, repoID, userID int64) (store.AccessMode, error)
	// SetCollaborator adds a collaborator or changes their mode.
	SetCollaborator(ctx context.Context, repoID, userID int64, mode store.AccessMode) error
	// DeleteCollaborator returns store.ErrNotFound when the user is not a
	// collaborator.
	DeleteCollaborator(ctx context.Context, repoID, userID int64) error

	// UpdateRepoTopics sets a repository's topics to what change makes of
	// the current ones, atomically; store.ErrNotFound for an unknown
	// repository, change's error as is.
	UpdateRepoTopics(ctx context.Context, repoID int64, change func(current []string) ([]string, error)) error
	// ListLabels returns a page of an owner's labels and their total
	// (Limit -1: all of them).
	ListLabels(ctx context.Context, o store.LabelListOptions) ([]store.Label, int64, error)
	// SearchTopics returns a page of the topics whose name contains
	// keyword, with their repository counts, and their total; errors are
	// domain Internal errors.
	SearchTopics(ctx context.Context, keyword string, offset, limit int) ([]store.Topic, int64, error)
}

// SyncStore is what the Syncer and its reconciler write and read.
type SyncStore interface {
	// UserByName returns store.ErrNotFound for an unknown name.
	UserByName(ctx context.Context, name string) (*store.User, error)
	// RepositoryByName returns store.ErrNotFound for an unknown name.
	RepositoryByName(ctx context.Context, ownerID int64, name string) (*store.Repository, error)
	// UpdateRepository applies change to the locked row and saves it;
	// store.ErrNotFound for an unknown id, store.ErrRepoExists when a
	// rename collides.
	UpdateRepository(ctx context.Context, id int64, change func(r *store.Repository) error) (*store.Repository, error)
	// SyncBranchHeads brings the named branch records in step with git
	// (see store.Store.SyncBranchHeads); store.ErrNotFound for an unknown
	// repository.
	SyncBranchHeads(ctx context.Context, repoID, pusherID int64, names []string,
		read func(ctx context.Context, names []string) ([]store.BranchUpdate, error),
		all func(context.Context) ([]store.BranchUpdate, error)) (bool, error)
	// SyncTagRefs brings the named tag records in step with git and
	// writes their webhook events (see store.Store.SyncTagRefs).
	SyncTagRefs(ctx context.Context, repoID, actorID int64, names []string,
		read func(ctx context.Context, names []string) (map[string]string, error),
		all func(ctx context.Context) (map[string]string, error),
		prior map[string]string) (int, error)
	// CountRefMove moves the answer mark of every process as a commit
	// would (see store.Store.CountRefMove).
	CountRefMove(ctx context.Context) error
}

// Service holds the repository rules apart from any transport: the gRPC
// adapter (Server) decodes a request, calls one of its methods and renders
// the result. Each use case lives in its own file (create.go, edit.go,
// delete.go, list.go, collaborators.go, details.go).
type Service struct {
	store  Store
	git    *git.Store
	access *access.Checker
	purger Purger
}

// NewService builds the use cases on st, the git store g and the access
// checker c (permission modes and repository limits).
func NewService(st Store, g *git.Store, c *access.Checker) *Service {
	return &Service{store: st, git: g, access: c, purger: Purger{Store: st, Git: g}}
}
