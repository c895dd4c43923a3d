package store

import (
	"time"

	"gorm.io/gorm"
)

// enqueueActivity records something that notifies people, inside the
// transaction tx of the change itself: the notifier (services/notify)
// fans the row out later and deletes it, so an activity is never lost
// with a crash and never recorded for a change that rolled back.
func enqueueActivity(tx *gorm.DB, a Activity) error {
	a.ID = 0
	if a.CreatedUnix == 0 {
		a.CreatedUnix = time.Now().Unix()
	}
	return tx.Create(&a).Error
}
