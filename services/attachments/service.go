// Package attachments serves forge.attachments.v1.AttachmentService:
// files attached to releases (assets), issues and comments.
//
// Who may call is declared per method in attachments.proto and enforced
// by the interceptor; the rules on the issue or comment a write touches
// (its poster) are the declared object rules issue-files-poster-or-writer
// and comment-files-poster-or-admin, and a download by uuid is authorized by
// access.AuthorizeAttachmentRead once the attachment names its
// repository.
//
// Crash consistency: an upload writes the file first (blob.Store.Put is
// complete-or-nothing under the uuid), then inserts the row; a delete
// removes the row, then the file. A crash in between leaves a file
// without a row, which Sweep removes once it is older than an upload can
// be in flight; a parent (release, issue, comment, repository) deleted
// without its attachment rows leaves rows Sweep deletes first.
package attachments

import (
	"context"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/blob"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what attachments read and write. Methods return
// store.ErrNotFound for a missing attachment or parent.
type Store interface {
	// CreateAttachment inserts the row of a stored file; ErrNotFound if the
	// parent is gone (checked under a lock in the same transaction).
	CreateAttachment(ctx context.Context, a *store.Attachment) error
	ListAttachments(ctx context.Context, p store.AttachmentParent, offset, limit int) ([]store.Attachment, int64, error)
	AttachmentOf(ctx context.Context, p store.AttachmentParent, id int64) (*store.Attachment, error)
	RenameAttachment(ctx context.Context, p store.AttachmentParent, id int64, name string) (*store.Attachment, error)
	// DeleteAttachment deletes the row and returns it.
	DeleteAttachment(ctx context.Context, p store.AttachmentParent, id int64) (*store.Attachment, error)
	AttachmentByUUID(ctx context.Context, uuid string) (*store.Attachment, error)
	CountAttachmentDownload(ctx context.Context, id int64) error
	AttachmentUUIDsExisting(ctx context.Context, uuids []string) (map[string]bool, error)
	DeleteOrphanAttachments(ctx context.Context) (int64, error)

	ReleaseByID(ctx context.Context, repoID, id int64) (*store.Release, error)
	IssueByIndex(ctx context.Context, repoID, index int64) (*store.Issue, error)
	IssueByID(ctx context.Context, id int64) (*store.Issue, error)
	CommentByID(ctx context.Context, repoID, id int64) (*store.Comment, error)
}

// Authorizer resolves the repository of a downloaded file for its caller
// (access.Checker).
type Authorizer interface {
	AuthorizeAttachmentRead(ctx context.Context, repoID int64, unit auth.Unit, viewer *auth.Principal) (*access.Repo, error)
}

// Limits are the configured bounds on uploads.
type Limits struct {
	MaxBytes            int64  // issue and comment files
	AllowedTypes        string // [attachment] ALLOWED_TYPES
	ReleaseMaxBytes     int64  // release assets
	ReleaseAllowedTypes string // [repository.release] ALLOWED_TYPES
}

// Options build a Server.
type Options struct {
	Store   Store
	Blobs   blob.Store
	Access  Authorizer
	RootURL string // ends with "/"
	Paging  paging.Limits
	Limits  Limits
}

// SweepAge is how old a file without a row must be before Sweep removes
// it: uploads in flight write their temporary file continuously and
// insert the row right after the rename, so an hour is far beyond any
// live upload's gap.
const SweepAge = time.Hour

// FailpointAfterFile is hit between storing an upload's file and
// inserting its row (crash tests).
const FailpointAfterFile = "attachment-after-file"
