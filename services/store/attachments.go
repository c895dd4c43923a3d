package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// Attachment is a stored file (a release asset, or a file attached to an
// issue or a comment). UUID is the file's key in the blob store.
type Attachment struct {
	ID            int64
	UUID          string `gorm:"column:uuid"`
	RepoID        int64
	IssueID       int64
	CommentID     int64
	ReleaseID     int64
	UploaderID    int64
	Name          string
	Size          int64
	DownloadCount int64
	CreatedUnix   int64
}

func (Attachment) TableName() string { return "attachments" }

// AttachmentParent names what attachments belong to: a release, an issue
// (its own files, not its comments') or a comment, in a repository.
// Exactly one of ReleaseID, IssueID and CommentID is set.
type AttachmentParent struct {
	RepoID    int64
	ReleaseID int64
	IssueID   int64
	CommentID int64
}

// scope restricts q to the parent's attachments.
func (p AttachmentParent) scope(q *gorm.DB) *gorm.DB {
	q = q.Where("repo_id = ?", p.RepoID)
	switch {
	case p.ReleaseID != 0:
		return q.Where("release_id = ?", p.ReleaseID)
	case p.CommentID != 0:
		return q.Where("comment_id = ?", p.CommentID)
	case p.IssueID != 0:
		return q.Where("issue_id = ? AND comment_id = 0", p.IssueID)
	}
	return q.Where("1 = 0")
}

// lockParent takes a lock on the parent's row (PostgreSQL) and reports
// ErrNotFound when it does not exist, so an attachment is never inserted
// for a parent a concurrent delete has just removed: the delete of a
// release removes its attachments in the same transaction, after locking
// the same row.
func (s *Store) lockParent(tx *gorm.DB, p AttachmentParent) error {
	var table, cond string
	var id int64
	switch {
	case p.ReleaseID != 0:
		table, cond, id = "releases", "id = ? AND repo_id = ? AND is_tag = false", p.ReleaseID
	case p.CommentID != 0:
		table, cond, id = "comments", "id = ? AND repo_id = ? AND type = 0", p.CommentID
	case p.IssueID != 0:
		table, cond, id = "issues", "id = ? AND repo_id = ?", p.IssueID
	default:
		return ErrNotFound
	}
	var found []int64
	if err := s.forUpdate(tx.Table(table)).Where(cond, id, p.RepoID).Limit(1).Pluck("id", &found).Error; err != nil {
		return err
	}
	if len(found) == 0 {
		return ErrNotFound
	}
	return nil
}

// CreateAttachment records an attachment whose file is already stored
// under a.UUID, for the parent its ids name. ErrNotFound if the parent
// does not exist (any more). a.ID and a.CreatedUnix are filled in.
func (s *Store) CreateAttachment(ctx context.Context, a *Attachment) error {
	if a.CreatedUnix == 0 {
		a.CreatedUnix = time.Now().Unix()
	}
	p := AttachmentParent{RepoID: a.RepoID, ReleaseID: a.ReleaseID, IssueID: a.IssueID, CommentID: a.CommentID}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.lockParent(tx, p); err != nil {
			return err
		}
		a.ID = 0
		return tx.Create(a).Error
	})
}

// ListAttachments returns a page of the parent's attachments, oldest
// first, and how many it has.
func (s *Store) ListAttachments(ctx context.Context, p AttachmentParent, offset, limit int) ([]Attachment, int64, error) {
	q := p.scope(s.db.WithContext(ctx).Model(&Attachment{}))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []Attachment{}
	err := q.Order("id").Offset(offset).Limit(limit).Find(&out).Error
	return out, total, err
}

// AttachmentsOf returns the attachments of several parents of one kind
// at once (release ids, issue ids or comment ids, by column), oldest
// first, for rendering lists (Release.assets, Issue.assets,
// Comment.assets). repoID 0 does not restrict the repository (lists that
// span repositories; the ids are global).
func (s *Store) AttachmentsOf(ctx context.Context, repoID int64, column string, ids []int64) (map[int64][]Attachment, error) {
	switch column {
	case "release_id", "issue_id", "comment_id":
	default:
		return nil, errors.New("store: attachments have no parent column " + column)
	}
	out := map[int64][]Attachment{}
	if len(ids) == 0 {
		return out, nil
	}
	q := s.db.WithContext(ctx).Where(column+" IN ?", ids)
	if repoID != 0 {
		q = q.Where("repo_id = ?", repoID)
	}
	if column == "issue_id" {
		q = q.Where("comment_id = 0")
	}
	var rows []Attachment
	if err := q.Order("id").Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, a := range rows {
		var k int64
		switch column {
		case "release_id":
			k = a.ReleaseID
		case "issue_id":
			k = a.IssueID
		default:
			k = a.CommentID
		}
		out[k] = append(out[k], a)
	}
	return out, nil
}

// AttachmentOf returns one of the parent's attachments; ErrNotFound if it
// has none with that id.
func (s *Store) AttachmentOf(ctx context.Context, p AttachmentParent, id int64) (*Attachment, error) {
	var a Attachment
	if err := p.scope(s.db.WithContext(ctx)).Where("id = ?", id).Take(&a).Error; err != nil {
		return nil, notFound(err)
	}
	return &a, nil
}

// RenameAttachment sets the name of one of the parent's attachments;
// ErrNotFound if it has none with that id.
func (s *Store) RenameAttachment(ctx context.Context, p AttachmentParent, id int64, name string) (*Attachment, error) {
	res := p.scope(s.db.WithContext(ctx).Model(&Attachment{})).Where("id = ?", id).Update("name", name)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrNotFound
	}
	return s.AttachmentOf(ctx, p, id)
}

// DeleteAttachment deletes the row of one of the parent's attachments and
// returns it (the caller removes the file afterwards); ErrNotFound if it
// has none with that id, also when a concurrent call deleted it first.
func (s *Store) DeleteAttachment(ctx context.Context, p AttachmentParent, id int64) (*Attachment, error) {
	var a Attachment
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := p.scope(tx).Where("id = ?", id).Take(&a).Error; err != nil {
			return notFound(err)
		}
		res := tx.Where("id = ?", a.ID).Delete(&Attachment{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// AttachmentByUUID returns the attachment stored under uuid; ErrNotFound
// if there is none.
func (s *Store) AttachmentByUUID(ctx context.Context, uuid string) (*Attachment, error) {
	var a Attachment
	if err := s.db.WithContext(ctx).Where("uuid = ?", uuid).Take(&a).Error; err != nil {
		return nil, notFound(err)
	}
	return &a, nil
}

// CountAttachmentDownload adds one to an attachment's download count, in
// one statement (concurrent downloads all count).
func (s *Store) CountAttachmentDownload(ctx context.Context, id int64) error {
	return s.db.WithContext(ctx).Model(&Attachment{}).Where("id = ?", id).
		UpdateColumn("download_count", gorm.Expr("download_count + 1")).Error
}

// AttachmentUUIDsExisting returns which of uuids have an attachment row.
func (s *Store) AttachmentUUIDsExisting(ctx context.Context, uuids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(uuids) == 0 {
		return out, nil
	}
	var found []string
	if err := s.db.WithContext(ctx).Model(&Attachment{}).Where("uuid IN ?", uuids).Pluck("uuid", &found).Error; err != nil {
		return nil, err
	}
	for _, u := range found {
		out[u] = true
	}
	return out, nil
}

// DeleteOrphanAttachments deletes the rows of attachments whose release,
// issue or comment no longer exists (a parent deleted by code that does
// not know about attachments); their files are then removed by the
// blob sweep. It returns how many rows went.
func (s *Store) DeleteOrphanAttachments(ctx context.Context) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM attachments WHERE
		(release_id <> 0 AND NOT EXISTS (SELECT 1 FROM releases r WHERE r.id = attachments.release_id AND r.is_tag = ?))
		OR (comment_id <> 0 AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = attachments.comment_id))
		OR (issue_id <> 0 AND comment_id = 0 AND NOT EXISTS (SELECT 1 FROM issues i WHERE i.id = attachments.issue_id))`, false)
	return res.RowsAffected, res.Error
}
