package store

import (
	"context"
	"sort"
	"time"

	"gorm.io/gorm"
)

// TagRef is the record of a tag's ref: the object it points at (a tag
// object, or the commit of a lightweight tag). Tag lists read git; these
// records exist so that each tag change gets its webhook events exactly
// once (SyncTagRefs).
type TagRef struct {
	ID          int64
	RepoID      int64
	Name        string
	SHA         string `gorm:"column:sha"`
	UpdatedUnix int64
}

func (TagRef) TableName() string { return "tag_refs" }

// SyncTagRefs brings the records of the named tags in step with git and
// writes, in the same transaction, the webhook events of every record it
// changes (TagHookEvents), by actorID. It returns how many records
// changed.
//
// read is called inside the transaction, after the repository's row is
// locked, and returns git's value of each named tag that has a ref; a
// named tag it leaves out has none. As with SyncBranchHeads, every writer
// (the pusher, the reconciler, in any process) reads git under the lock,
// so a change is recorded, with its events, by whichever comes first and
// is a no-op for the others: no event is lost or written twice.
//
// A repository whose tags were never recorded (created before the
// records existed) is recorded whole first, from all(), without events
// for the tags not named; the named tags' events then start from prior
// (their values before the change, as the caller saw them; missing or
// zeros: absent). The cost is otherwise proportional to len(names).
func (s *Store) SyncTagRefs(ctx context.Context, repoID, actorID int64, names []string,
	read func(ctx context.Context, names []string) (map[string]string, error),
	all func(ctx context.Context) (map[string]string, error),
	prior map[string]string) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	names = uniqueSorted(names)
	now := time.Now().Unix()
	changed := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		changed = 0
		var repo struct {
			ID              int64
			TagRefsRecorded bool
		}
		if err := s.forUpdate(tx.Table("repositories")).Select("id", "tag_refs_recorded").
			Where("id = ?", repoID).Take(&repo).Error; err != nil {
			return notFound(err)
		}
		have := map[string]string{}
		if repo.TagRefsRecorded {
			for start := 0; start < len(names); start += 500 { // stay under bind-variable limits
				var recs []TagRef
				if err := tx.Select("name", "sha").Where("repo_id = ? AND name IN ?", repoID,
					names[start:min(start+500, len(names))]).Find(&recs).Error; err != nil {
					return err
				}
				for _, r := range recs {
					have[r.Name] = r.SHA
				}
			}
		} else {
			if err := s.baselineTagRefs(ctx, tx, repoID, names, all, now); err != nil {
				return err
			}
			for _, n := range names {
				if old := prior[n]; !zeroSHA(old) {
					have[n] = old
				}
			}
		}
		current, err := read(ctx, names)
		if err != nil {
			return err
		}
		for _, n := range names {
			old, had := have[n]
			sha, exists := current[n]
			switch {
			case !had && !exists, had && exists && old == sha:
				continue
			case !exists:
				if err := tx.Where("repo_id = ? AND name = ?", repoID, n).Delete(&TagRef{}).Error; err != nil {
					return err
				}
			default:
				// Insert or update: the row may exist even when had is
				// false (a repository recorded just now, prior given).
				res := tx.Model(&TagRef{}).Where("repo_id = ? AND name = ?", repoID, n).
					Updates(map[string]any{"sha": sha, "updated_unix": now})
				if res.Error != nil {
					return res.Error
				}
				if res.RowsAffected == 0 {
					if err := tx.Create(&TagRef{RepoID: repoID, Name: n, SHA: sha, UpdatedUnix: now}).Error; err != nil {
						return err
					}
				}
			}
			changed++
			for _, e := range TagHookEvents(repoID, actorID, n, old, sha) {
				e.CreatedUnix = now
				if err := s.enqueueHookEvent(tx, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return changed, err
}

// baselineTagRefs records every tag of a repository whose tags were never
// recorded, except those named (the caller compares and records them), and
// marks the repository recorded.
func (s *Store) baselineTagRefs(ctx context.Context, tx *gorm.DB, repoID int64, names []string,
	all func(context.Context) (map[string]string, error), now int64) error {
	tags, err := all(ctx)
	if err != nil {
		return err
	}
	skip := make(map[string]bool, len(names))
	for _, n := range names {
		skip[n] = true
	}
	var recs []TagRef
	for n, sha := range tags {
		if !skip[n] {
			recs = append(recs, TagRef{RepoID: repoID, Name: n, SHA: sha, UpdatedUnix: now})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Name < recs[j].Name })
	// No rows exist without the flag (it is set in this transaction);
	// clearing keeps the insert safe should a restored database have some.
	if err := tx.Where("repo_id = ?", repoID).Delete(&TagRef{}).Error; err != nil {
		return err
	}
	if len(recs) > 0 {
		if err := tx.CreateInBatches(recs, 200).Error; err != nil {
			return err
		}
	}
	return tx.Table("repositories").Where("id = ?", repoID).Update("tag_refs_recorded", true).Error
}

func uniqueSorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	j := 0
	for i, n := range out {
		if i == 0 || n != out[j-1] {
			out[j] = n
			j++
		}
	}
	return out[:j]
}

func zeroSHA(sha string) bool {
	for _, c := range sha {
		if c != '0' {
			return false
		}
	}
	return true
}
