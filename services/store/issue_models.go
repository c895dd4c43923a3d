package store

// The issue tracker's rows. Issues and pull requests share the issues
// table and its per-repository index (IsPull tells them apart), as in
// Gitea. Every row that belongs to a repository carries repo_id, so the
// repository delete clears it through the areas' declarations.

// Issue is an issue or a pull request of a repository.
type Issue struct {
	ID          int64 `gorm:"primaryKey"`
	RepoID      int64
	Index       int64 // per repository, shared with pull requests; allocated by the issue_index row
	PosterID    int64
	Title       string
	Content     string
	IsClosed    bool
	IsPull      bool
	IsLocked    bool
	NumComments int
	CreatedUnix int64
	UpdatedUnix int64
	ClosedUnix  int64
	// MilestoneID is the repository milestone the issue belongs to (0: none).
	MilestoneID int64
	// Ref is the branch or tag the issue is about (Gitea's ref).
	Ref string
	// DeadlineUnix is the due date (0: none).
	DeadlineUnix int64
	// PinOrder is the issue's place among its repository's pinned issues
	// of its kind, from 1 (0: not pinned).
	PinOrder int
}

func (Issue) TableName() string { return "issues" }

// IssueIndex is the last index handed out in a repository. Allocation increments it in the transaction that
// inserts the issue, so a rolled-back insert leaves no gap and two
// inserts never share an index. Keyed by repo_id, so it goes with the
// repository.
type IssueIndex struct {
	RepoID   int64 `gorm:"primaryKey;autoIncrement:false"`
	MaxIndex int64
}

func (IssueIndex) TableName() string { return "issue_index" }

// Comment is a comment on an issue (Type 0), or an event in its timeline.
type Comment struct {
	ID       int64 `gorm:"primaryKey"`
	Type     int
	RepoID   int64
	IssueID  int64
	PosterID int64
	Content  string
	// OldRef and NewRef are a change-target-branch comment's old and new
	// base branch (empty for other types).
	OldRef string
	NewRef string
	// LabelID is a label event's label (Content "1" added, "" removed).
	LabelID int64
	// AssigneeID is an assignee event's user, RemovedAssignee whether
	// they were unassigned.
	AssigneeID      int64
	RemovedAssignee bool
	// OldTitle and NewTitle are a title change's.
	OldTitle string
	NewTitle string
	// ReviewID is the review a review or dismissal event is about.
	ReviewID int64
	// CommitSHA is a merge event's merge commit.
	CommitSHA string
	// OldMilestoneID and MilestoneID are a milestone change's (0: none).
	OldMilestoneID int64
	MilestoneID    int64
	CreatedUnix    int64
	UpdatedUnix    int64
}

func (Comment) TableName() string { return "comments" }

// Comment types, with Gitea's numbers. Only CommentTypeComment rows are
// comments (listed, counted in num_comments, editable); the others are
// events of the issue's timeline, written in the transaction of the
// change they record.
const (
	CommentTypeComment = 0
	CommentTypeReopen  = 1
	CommentTypeClose   = 2
	// CommentTypeLabel: a label (LabelID) added (Content "1") or removed.
	CommentTypeLabel = 7
	// CommentTypeMilestone: the milestone changed from OldMilestoneID to
	// MilestoneID.
	CommentTypeMilestone = 8
	// CommentTypeAssignees: AssigneeID assigned, or unassigned (RemovedAssignee).
	CommentTypeAssignees = 9
	// CommentTypeChangeTitle: OldTitle became NewTitle.
	CommentTypeChangeTitle = 10
	// CommentTypeReview: review ReviewID submitted (Content its body).
	CommentTypeReview = 22
	// CommentTypeChangeTargetBranch: a pull request's base branch changed
	// (OldRef to NewRef).
	CommentTypeChangeTargetBranch = 25
	// CommentTypeMergePull: the pull request was merged as CommitSHA.
	CommentTypeMergePull = 28
	// CommentTypeDismissReview: review ReviewID dismissed (Content the message).
	CommentTypeDismissReview = 32
)

// IssueAssignee assigns a user to an issue.
type IssueAssignee struct {
	ID         int64 `gorm:"primaryKey"`
	RepoID     int64
	IssueID    int64
	AssigneeID int64
}

func (IssueAssignee) TableName() string { return "issue_assignees" }

// IssueMention records that an issue's body or one of its comments
// mentions a user (@name).
type IssueMention struct {
	ID      int64 `gorm:"primaryKey"`
	RepoID  int64
	IssueID int64
	UserID  int64
}

func (IssueMention) TableName() string { return "issue_mentions" }

// Label is a repository label (RepoID set) or an organization label
// (OrgID set).
type Label struct {
	ID              int64 `gorm:"primaryKey"`
	RepoID          int64
	OrgID           int64
	Name            string
	Exclusive       bool
	Description     string
	Color           string // "#rrggbb"
	NumIssues       int
	NumClosedIssues int
	ArchivedUnix    int64 // 0: not archived
	CreatedUnix     int64
	UpdatedUnix     int64
}

func (Label) TableName() string { return "labels" }

// IssueLabel puts a label on an issue.
type IssueLabel struct {
	ID      int64 `gorm:"primaryKey"`
	RepoID  int64
	IssueID int64
	LabelID int64
}

func (IssueLabel) TableName() string { return "issue_labels" }

// Activity is something that happened on an issue and that notifies
// people: written in the transaction of the change itself (so it is never
// lost and never recorded for a change that rolled back), and fanned out
// to notification threads by the notifier, which deletes the row once
// done. Kind is one of the Activity* constants.
type Activity struct {
	ID          int64 `gorm:"primaryKey"`
	Kind        string
	RepoID      int64
	IssueID     int64
	CommentID   int64
	ActorID     int64
	CreatedUnix int64
}

func (Activity) TableName() string { return "activities" }

// Activity kinds.
const (
	ActivityIssueCreated  = "issue_created"
	ActivityCommented     = "commented"
	ActivityIssueClosed   = "issue_closed"
	ActivityIssueReopened = "issue_reopened"
	ActivityTitleChanged  = "title_changed"
	ActivityLabeled       = "labeled"
	ActivityAssigned      = "assigned"
)
