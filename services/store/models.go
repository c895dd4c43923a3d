package store

// UserType separates individual users from organizations, which share the
// users table (and its name space), as in Gitea.
type UserType int

const (
	UserTypeIndividual   UserType = 0
	UserTypeOrganization UserType = 1
)

// Visibility of a user or organization.
type Visibility int

const (
	VisibilityPublic  Visibility = 0
	VisibilityLimited Visibility = 1
	VisibilityPrivate Visibility = 2
)

var visibilityNames = map[Visibility]string{
	VisibilityPublic: "public", VisibilityLimited: "limited", VisibilityPrivate: "private",
}

func (v Visibility) String() string { return visibilityNames[v] }

// ParseVisibility maps Gitea's names to a Visibility.
func ParseVisibility(s string) (Visibility, bool) {
	for v, name := range visibilityNames {
		if name == s {
			return v, true
		}
	}
	return 0, false
}

// User is an account: an individual user or an organization.
type User struct {
	ID                      int64  `gorm:"primaryKey"`
	LowerName               string `gorm:"size:255;not null;uniqueIndex"`
	Name                    string `gorm:"size:255;not null"`
	FullName                string
	Email                   string
	LowerEmail              *string `gorm:"size:255;uniqueIndex"` // nil for organizations without e-mail
	Type                    UserType
	PasswdHash              string
	LoginSource             int64
	LoginName               string
	MustChangePassword      bool
	IsAdmin                 bool
	IsActive                bool
	ProhibitLogin           bool
	Restricted              bool
	Visibility              Visibility
	Location                string
	Website                 string
	Description             string
	Language                string
	MaxRepoCreation         int `gorm:"default:-1"` // -1: the site default; a zero value at creation is stored as -1
	AllowGitHook            bool
	AllowImportLocal        bool
	AllowCreateOrganization bool
	// RepoAdminChangeTeamAccess: an organization's repository
	// administrators may change which teams reach a repository.
	RepoAdminChangeTeamAccess bool
	TOTPSecret                []byte // encrypted with SECRET_KEY; nil when not enrolled
	LastLoginUnix             int64
	CreatedUnix               int64
	UpdatedUnix               int64
	// Version is bumped by every update (UpdateUser is the only writer of
	// existing rows); the authentication cache depends on it.
	Version int64
	// TOTPLastStep is the time step (Unix time / 30 s) of the last accepted
	// one-time code. Read-only to gorm: only ClaimTOTPStep writes it, so
	// saving a user read earlier cannot wind it back.
	TOTPLastStep int64 `gorm:"column:totp_last_step;->"`
	// The user's settings (/user/settings): KeepEmailPrivate hides the
	// e-mail from other signed-in callers, KeepActivityPrivate the
	// activity feeds; Theme and DiffViewStyle are web preferences kept
	// for clients.
	KeepEmailPrivate    bool
	KeepActivityPrivate bool
	Theme               string
	DiffViewStyle       string
}

func (User) TableName() string { return "users" }

// AccessToken is a personal access token. Only the SHA-256 of the value is
// stored.
type AccessToken struct {
	ID             int64  `gorm:"primaryKey"`
	UID            int64  `gorm:"not null;uniqueIndex:idx_access_tokens_uid_name,priority:1"`
	Name           string `gorm:"size:255;not null;uniqueIndex:idx_access_tokens_uid_name,priority:2"`
	TokenHash      string `gorm:"size:64;not null;uniqueIndex"`
	TokenLastEight string `gorm:"size:8;not null"`
	Scope          string
	CreatedUnix    int64
	UpdatedUnix    int64
	LastUsedUnix   int64
}

func (AccessToken) TableName() string { return "access_tokens" }
