package migrations

import "gorm.io/gorm"

// Step0124_tracked_times adds tracked times (seconds a user spent on an
// issue; deleted ones are kept, marked) and stopwatches (one running per
// user and issue).
func (History) Step0124_tracked_times(tx *gorm.DB) error {
	type TrackedTime struct {
		ID          int64 `gorm:"primaryKey"`
		RepoID      int64 `gorm:"not null;index"`
		IssueID     int64 `gorm:"not null;index"`
		UserID      int64 `gorm:"not null;index"`
		CreatedUnix int64 `gorm:"not null;default:0"`
		Time        int64 `gorm:"not null;default:0"`
		Deleted     bool  `gorm:"not null;default:false"`
	}
	if err := tx.Table("tracked_times").Migrator().CreateTable(&TrackedTime{}); err != nil {
		return err
	}
	type Stopwatch struct {
		ID          int64 `gorm:"primaryKey"`
		RepoID      int64 `gorm:"not null;index"`
		IssueID     int64 `gorm:"not null;uniqueIndex:idx_stopwatches_user_issue,priority:2"`
		UserID      int64 `gorm:"not null;uniqueIndex:idx_stopwatches_user_issue,priority:1"`
		CreatedUnix int64 `gorm:"not null;default:0"`
	}
	return tx.Table("stopwatches").Migrator().CreateTable(&Stopwatch{})
}
