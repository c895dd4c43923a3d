package migrations

import "gorm.io/gorm"

// Step0063_attachments creates attachments: release assets and issue and
// comment files. The file lives in the blob store under uuid; the row is
// written after the file and removed before it, and the sweep removes
// files without a row (services/attachments). Recorded as
// 0050_attachments before ids followed the order steps run in (see
// renamed).
func (History) Step0063_attachments(tx *gorm.DB) error {
	type Attachment struct {
		ID            int64  `gorm:"primaryKey"`
		UUID          string `gorm:"column:uuid;size:40;not null;uniqueIndex:idx_attachments_uuid"`
		RepoID        int64  `gorm:"not null;index"`
		IssueID       int64  `gorm:"not null;default:0;index"`
		CommentID     int64  `gorm:"not null;default:0;index"`
		ReleaseID     int64  `gorm:"not null;default:0;index"`
		UploaderID    int64  `gorm:"not null;default:0"`
		Name          string `gorm:"size:255;not null;default:''"`
		Size          int64  `gorm:"not null;default:0"`
		DownloadCount int64  `gorm:"not null;default:0"`
		CreatedUnix   int64  `gorm:"not null;default:0"`
	}
	return tx.Table("attachments").Migrator().CreateTable(&Attachment{})
}
