package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ErrPushMirrorExists: the repository already has a push mirror with that
// remote name.
var ErrPushMirrorExists = errs.New(errs.AlreadyExists, "push mirror remote name already in use")

// Scheduling. Mirrors and push mirrors with an interval carry the time of
// their next sync in next_update_unix. A scheduler lists the due ones and
// claims each with a conditional UPDATE that moves next_update_unix forward
// only if it still holds the value the scheduler read, so when several
// forge processes share a database exactly one of them syncs a due mirror.
// A claimed mirror whose sync never finishes (the process died) becomes due
// again one interval later.

// CreateMirror inserts the pull-mirror state of a repository (one per
// repository) and schedules its next sync one interval from now unless
// NextUpdateUnix is set.
func (s *Store) CreateMirror(ctx context.Context, m *Mirror) error {
	if m.NextUpdateUnix == 0 {
		m.NextUpdateUnix = nextRun(time.Now().Unix(), m.IntervalSecs)
	}
	return s.db.WithContext(ctx).Create(m).Error
}

// MirrorByRepoID returns a repository's pull-mirror state, or ErrNotFound
// when the repository is not a mirror.
func (s *Store) MirrorByRepoID(ctx context.Context, repoID int64) (*Mirror, error) {
	var m Mirror
	if err := s.db.WithContext(ctx).Where("repo_id = ?", repoID).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}

// MirrorsOf is MirrorByRepoID for several repositories at once; those
// without a mirror record are absent.
func (s *Store) MirrorsOf(ctx context.Context, repoIDs []int64) (map[int64]*Mirror, error) {
	out := map[int64]*Mirror{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	var rows []Mirror
	if err := s.db.WithContext(ctx).Where("repo_id IN ?", uniqueIDs(repoIDs)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load mirrors")
	}
	for i := range rows {
		out[rows[i].RepoID] = &rows[i]
	}
	return out, nil
}

// SetMirrorInterval changes how often a mirror is synced (0: never
// automatically) and schedules the next sync one interval from now.
// Returns ErrNotFound when the repository is not a mirror.
func (s *Store) SetMirrorInterval(ctx context.Context, repoID int64, interval time.Duration) error {
	secs := int64(interval / time.Second)
	res := s.db.WithContext(ctx).Model(&Mirror{}).Where("repo_id = ?", repoID).
		Updates(map[string]any{"interval_secs": secs, "next_update_unix": nextRun(time.Now().Unix(), secs)})
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrNotFound
	}
	return res.Error
}

// DueMirrors lists up to limit mirrors with an interval whose next sync is
// at or before now, the longest overdue first. Claim each with ClaimMirror
// before syncing it.
func (s *Store) DueMirrors(ctx context.Context, now int64, limit int) ([]Mirror, error) {
	var out []Mirror
	err := s.db.WithContext(ctx).Where("interval_secs > 0 AND next_update_unix <= ?", now).
		Order("next_update_unix").Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// ClaimMirror moves a due mirror's next sync from seen (the value DueMirrors
// returned) to next, and reports whether this caller won it: false when
// another process claimed or rescheduled it meanwhile.
func (s *Store) ClaimMirror(ctx context.Context, id, seen, next int64) (bool, error) {
	return s.claim(ctx, &Mirror{}, id, seen, next)
}

// FinishMirrorSync records the outcome of a sync that ended at now: on
// success (syncErr "") the sync time and a cleared error, on failure the
// error (the last success time stays). The next sync is one interval after
// now. ErrNotFound when the mirror is gone.
func (s *Store) FinishMirrorSync(ctx context.Context, repoID, now int64, syncErr string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var m Mirror
		if err := s.forUpdate(tx).Where("repo_id = ?", repoID).Take(&m).Error; err != nil {
			return notFound(err)
		}
		fields := map[string]any{"last_error": syncErr, "next_update_unix": nextRun(now, m.IntervalSecs)}
		if syncErr == "" {
			fields["updated_unix"] = now
		}
		return tx.Model(&Mirror{}).Where("id = ?", m.ID).Updates(fields).Error
	})
}

// CreatePushMirror inserts a push mirror, scheduling its first push one
// interval after creation. ErrPushMirrorExists when the remote name is
// taken in the repository.
func (s *Store) CreatePushMirror(ctx context.Context, pm *PushMirror) error {
	if pm.CreatedUnix == 0 {
		pm.CreatedUnix = time.Now().Unix()
	}
	pm.NextUpdateUnix = nextRun(pm.CreatedUnix, pm.IntervalSecs)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&PushMirror{}).Where("repo_id = ? AND remote_name = ?", pm.RepoID, pm.RemoteName).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrPushMirrorExists
		}
		return tx.Create(pm).Error
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrPushMirrorExists
	}
	return err
}

// ListPushMirrors returns a page of a repository's push mirrors, oldest
// first, and their total number.
func (s *Store) ListPushMirrors(ctx context.Context, repoID int64, offset, limit int) ([]PushMirror, int64, error) {
	q := s.db.WithContext(ctx).Model(&PushMirror{}).Where("repo_id = ?", repoID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []PushMirror{}
	err := q.Order("id").Offset(offset).Limit(limit).Find(&out).Error
	return out, total, err
}

// PushMirrorsOfRepo returns all push mirrors of a repository (for a sync of
// them all), oldest first; onCommitOnly keeps those with sync_on_commit.
func (s *Store) PushMirrorsOfRepo(ctx context.Context, repoID int64, onCommitOnly bool) ([]PushMirror, error) {
	q := s.db.WithContext(ctx).Where("repo_id = ?", repoID)
	if onCommitOnly {
		q = q.Where("sync_on_commit = ?", true)
	}
	var out []PushMirror
	err := q.Order("id").Find(&out).Error
	return out, err
}

// PushMirrorByName returns a repository's push mirror by remote name, or
// ErrNotFound.
func (s *Store) PushMirrorByName(ctx context.Context, repoID int64, remoteName string) (*PushMirror, error) {
	var pm PushMirror
	if err := s.db.WithContext(ctx).Where("repo_id = ? AND remote_name = ?", repoID, remoteName).Take(&pm).Error; err != nil {
		return nil, notFound(err)
	}
	return &pm, nil
}

// PushMirrorByID returns a push mirror by id, or ErrNotFound.
func (s *Store) PushMirrorByID(ctx context.Context, id int64) (*PushMirror, error) {
	var pm PushMirror
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&pm).Error; err != nil {
		return nil, notFound(err)
	}
	return &pm, nil
}

// DeletePushMirror removes a repository's push mirror; ErrNotFound if it
// has none of that name.
func (s *Store) DeletePushMirror(ctx context.Context, repoID int64, remoteName string) error {
	res := s.db.WithContext(ctx).Where("repo_id = ? AND remote_name = ?", repoID, remoteName).Delete(&PushMirror{})
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrNotFound
	}
	return res.Error
}

// DuePushMirrors is DueMirrors for push mirrors.
func (s *Store) DuePushMirrors(ctx context.Context, now int64, limit int) ([]PushMirror, error) {
	var out []PushMirror
	err := s.db.WithContext(ctx).Where("interval_secs > 0 AND next_update_unix <= ?", now).
		Order("next_update_unix").Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// ClaimPushMirror is ClaimMirror for push mirrors.
func (s *Store) ClaimPushMirror(ctx context.Context, id, seen, next int64) (bool, error) {
	return s.claim(ctx, &PushMirror{}, id, seen, next)
}

// FinishPushMirrorSync records the outcome of a push that ended at now:
// last_update is set on success, last_error is the error or cleared, and
// the next push is one interval after now. ErrNotFound when the push mirror
// was deleted meanwhile.
func (s *Store) FinishPushMirrorSync(ctx context.Context, id, now int64, syncErr string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var pm PushMirror
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&pm).Error; err != nil {
			return notFound(err)
		}
		fields := map[string]any{"last_error": syncErr, "next_update_unix": nextRun(now, pm.IntervalSecs)}
		if syncErr == "" {
			fields["last_update_unix"] = now
		}
		return tx.Model(&PushMirror{}).Where("id = ?", id).Updates(fields).Error
	})
}

// claim is the conditional UPDATE behind ClaimMirror and ClaimPushMirror.
func (s *Store) claim(ctx context.Context, model any, id, seen, next int64) (bool, error) {
	res := s.db.WithContext(ctx).Model(model).
		Where("id = ? AND next_update_unix = ? AND interval_secs > 0", id, seen).
		Update("next_update_unix", next)
	if res.Error != nil {
		return false, res.Error
	}
	return res.RowsAffected == 1, nil
}

// nextRun is when a mirror synced at now is due again; 0 (never) without an
// interval.
func nextRun(now, intervalSecs int64) int64 {
	if intervalSecs <= 0 {
		return 0
	}
	return now + intervalSecs
}
