package store

// AccessMode is a user's access to a repository.
type AccessMode int

const (
	AccessNone  AccessMode = 0
	AccessRead  AccessMode = 1
	AccessWrite AccessMode = 2
	AccessAdmin AccessMode = 3
	AccessOwner AccessMode = 4
)

var accessNames = [...]string{"none", "read", "write", "admin", "owner"}

func (m AccessMode) String() string { return accessNames[m] }

// ParseAccessMode maps read/write/admin to a mode.
func ParseAccessMode(s string) (AccessMode, bool) {
	for i, n := range accessNames {
		if n == s && i >= int(AccessRead) && i <= int(AccessAdmin) {
			return AccessMode(i), true
		}
	}
	return AccessNone, false
}

// Repository is a git repository owned by a user or an organization. Its
// git data lives on disk under [repository] ROOT/<owner>/<name>.git.
type Repository struct {
	ID            int64
	OwnerID       int64
	OwnerName     string
	LowerName     string
	Name          string
	Description   string
	Website       string
	DefaultBranch string
	IsPrivate     bool
	IsEmpty       bool
	IsArchived    bool
	IsMirror      bool
	IsTemplate    bool
	// IsFork and ForkID (the parent's id) mark a fork; a fork whose
	// parent is deleted becomes a plain repository, as in Gitea.
	IsFork          bool
	ForkID          int64
	OriginalURL     string // migration source, credentials removed
	NumWatches      int
	NumStars        int
	NumForks        int
	NumIssues       int // kept by the issue writes, as NumClosedIssues and the pull counts
	NumClosedIssues int
	NumPulls        int
	NumClosedPulls  int
	NumBranches     int // kept by the branch record writes (store/branches.go)
	// NumReleases is the number of published releases, read with the
	// counters (RepositoryCounters) when ReleasesCounted; not a column.
	NumReleases     int64 `gorm:"-"`
	ReleasesCounted bool  `gorm:"-"`
	// TransferPending is read with the counters too (when ReleasesCounted):
	// false means no transfer was pending then; not a column.
	TransferPending               bool  `gorm:"-"`
	Size                          int64 // KiB
	HasIssues                     bool
	HasWiki                       bool
	HasPullRequests               bool
	HasProjects                   bool
	HasReleases                   bool
	HasPackages                   bool
	HasActions                    bool
	IgnoreWhitespaceConflicts     bool
	AllowMergeCommits             bool
	AllowRebase                   bool
	AllowRebaseExplicit           bool
	AllowSquashMerge              bool
	AllowFastForwardOnlyMerge     bool
	AllowManualMerge              bool
	AllowRebaseUpdate             bool
	DefaultDeleteBranchAfterMerge bool
	DefaultMergeStyle             string
	DefaultAllowMaintainerEdit    bool
	ArchivedUnix                  int64
	CreatedUnix                   int64
	UpdatedUnix                   int64
	// Topics is the sorted names of the repository's topics, a copy
	// UpdateRepoTopics keeps with repo_topics (see topics.go).
	Topics TopicNames `gorm:"type:text"`
}

func (Repository) TableName() string { return "repositories" }

// Collaboration gives a user explicit access to a repository.
type Collaboration struct {
	ID          int64
	RepoID      int64
	UserID      int64
	Mode        AccessMode
	CreatedUnix int64
}

func (Collaboration) TableName() string { return "collaborations" }

// Branch is the database record of a branch, kept in step with pushes.
type Branch struct {
	ID            int64
	RepoID        int64
	Name          string
	CommitID      string
	CommitMessage string
	CommitUnix    int64
	PusherID      int64
	CreatedUnix   int64
	UpdatedUnix   int64
}

func (Branch) TableName() string { return "branches" }

// Release is a release or a bare tag record of a repository.
type Release struct {
	ID           int64
	RepoID       int64
	PublisherID  int64
	TagName      string
	LowerTagName string
	Target       string // branch or commit the tag was created from
	Title        string
	Sha1         string // commit the tag points at
	Note         string
	IsDraft      bool
	IsPrerelease bool
	IsTag        bool // a plain git tag without release data
	CreatedUnix  int64
	UpdatedUnix  int64
}

func (Release) TableName() string { return "releases" }

// Watch records that a user watches a repository.
type Watch struct {
	ID          int64
	UserID      int64
	RepoID      int64
	CreatedUnix int64
}

func (Watch) TableName() string { return "watches" }

// Star records that a user starred a repository.
type Star struct {
	ID          int64
	UserID      int64
	RepoID      int64
	CreatedUnix int64
}

func (Star) TableName() string { return "stars" }

// Mirror is the pull-mirror state of a repository.
type Mirror struct {
	ID             int64
	RepoID         int64
	IntervalSecs   int64
	RemoteAddress  string // credentials removed
	RemoteSealed   []byte // full remote URL with credentials, sealed with SECRET_KEY
	LastError      string
	UpdatedUnix    int64 // last successful sync
	NextUpdateUnix int64
}

func (Mirror) TableName() string { return "mirrors" }

// PushMirror pushes a repository to a remote.
type PushMirror struct {
	ID             int64
	RepoID         int64
	RemoteName     string
	RemoteAddress  string // credentials removed
	RemoteSealed   []byte // full remote URL with credentials, sealed with SECRET_KEY
	SyncOnCommit   bool
	IntervalSecs   int64
	LastError      string
	LastUpdateUnix int64
	NextUpdateUnix int64
	CreatedUnix    int64
}

func (PushMirror) TableName() string { return "push_mirrors" }
