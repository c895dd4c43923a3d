package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// BranchUpdate is a branch's new state after a push (or an API change).
type BranchUpdate struct {
	Name          string
	CommitID      string
	CommitMessage string
	CommitUnix    int64
	Deleted       bool
}

// SyncBranches brings a repository's branch records in step with git.
//
// If the repository has no branch records yet, all() is called (inside the
// transaction) and records are written for every branch it returns;
// otherwise only updates are applied: each named branch is inserted,
// updated or removed. The cost of the second case does not depend on how
// many branches the repository has. Concurrent calls for one repository are
// serialised on its row. The repository's empty flag follows: it is empty
// exactly when no branch records remain.
func (s *Store) SyncBranches(ctx context.Context, repoID, pusherID int64, updates []BranchUpdate, all func(context.Context) ([]BranchUpdate, error)) error {
	names := make([]string, len(updates))
	for i, u := range updates {
		names[i] = u.Name
	}
	given := func(context.Context, []string) ([]BranchUpdate, error) {
		kept := make([]BranchUpdate, 0, len(updates))
		for _, u := range updates {
			if !u.Deleted {
				kept = append(kept, u)
			}
		}
		return kept, nil
	}
	_, err := s.SyncBranchHeads(ctx, repoID, pusherID, names, given, all)
	return err
}

// SyncBranchHeads brings the records of the named branches in step with
// git and reports whether any record changed.
//
// read is called inside the transaction, after the repository's row is
// locked, and returns the branches among names that exist in git; a named
// branch it does not return has no ref and its record is removed. Because
// every writer reads git while holding the lock, the last record written
// reflects the last ref move, whatever order concurrent writers (a push, an
// API write, the reconciler) reach the database in. The cost is
// proportional to len(names), except that a repository without any branch
// record gets records for all() instead ("zero records → full sync"). The
// repository's empty flag follows, as in SyncBranches.
func (s *Store) SyncBranchHeads(ctx context.Context, repoID, pusherID int64, names []string,
	read func(ctx context.Context, names []string) ([]BranchUpdate, error),
	all func(context.Context) ([]BranchUpdate, error)) (changed bool, err error) {
	now := time.Now().Unix()
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		changed = false
		var repo Repository
		if err := s.forUpdate(tx).Select("id", "is_empty").Where("id = ?", repoID).Take(&repo).Error; err != nil {
			return notFound(err)
		}
		has, err := hasBranches(tx, repoID)
		if err != nil {
			return err
		}
		var updates []BranchUpdate
		switch {
		case !has && all != nil:
			if updates, err = all(ctx); err != nil {
				return err
			}
			// No records: the counter starts again from zero, whatever
			// it said (records removed behind the store's back).
			if err := tx.Model(&Repository{}).Where("id = ?", repoID).Update("num_branches", 0).Error; err != nil {
				return err
			}
		case len(names) > 0:
			if updates, err = headsOrDeleted(ctx, names, read); err != nil {
				return err
			}
		}
		// Each branch created, moved or deleted is a webhook event, in
		// this transaction (nothing is written when no hook listens).
		hookEvent := func(name, old, new string) error {
			e := HookEvent{RepoID: repoID, ActorID: pusherID, Ref: name, OldSHA: old, NewSHA: new, CreatedUnix: now}
			switch {
			case new == "":
				e.Kind = HookKindDelete
			case old == "":
				e.Kind = HookKindCreate
				if err := s.enqueueHookEvent(tx, e); err != nil {
					return err
				}
				e.Kind = HookKindPush
			default:
				e.Kind = HookKindPush
			}
			return s.enqueueHookEvent(tx, e)
		}
		if changed, err = applyChanges(tx, repoID, pusherID, now, updates, hookEvent); err != nil {
			return err
		}
		if has, err = hasBranches(tx, repoID); err != nil {
			return err
		}
		if repo.IsEmpty == has { // flag out of step
			changed = true
			return tx.Model(&Repository{}).Where("id = ?", repoID).Update("is_empty", !has).Error
		}
		return nil
	})
	return changed, err
}

// headsOrDeleted reads the named branches and marks the missing ones
// deleted.
func headsOrDeleted(ctx context.Context, names []string, read func(context.Context, []string) ([]BranchUpdate, error)) ([]BranchUpdate, error) {
	heads, err := read(ctx, names)
	if err != nil {
		return nil, err
	}
	found := make(map[string]bool, len(heads))
	for _, h := range heads {
		found[h.Name] = true
	}
	for _, n := range names {
		if !found[n] {
			heads = append(heads, BranchUpdate{Name: n, Deleted: true})
			found[n] = true
		}
	}
	return heads, nil
}

// applyChanges writes updates that differ from the records and calls
// changed for each: the branch, its old commit ("" when created) and its
// new one ("" when deleted).
func applyChanges(tx *gorm.DB, repoID, pusherID, now int64, updates []BranchUpdate, onChange func(name, old, new string) error) (bool, error) {
	if len(updates) == 0 {
		return false, nil
	}
	names := make([]string, len(updates))
	for i, u := range updates {
		names[i] = u.Name
	}
	have := make(map[string]string, len(names))
	for start := 0; start < len(names); start += 500 { // stay under bind-variable limits
		chunk := names[start:min(start+500, len(names))]
		var recs []Branch
		if err := tx.Select("name", "commit_id").Where("repo_id = ? AND name IN ?", repoID, chunk).Find(&recs).Error; err != nil {
			return false, err
		}
		for _, r := range recs {
			have[r.Name] = r.CommitID
		}
	}
	changed := false
	added := 0 // records inserted less records removed: the counter's move
	for _, u := range updates {
		commit, exists := have[u.Name]
		switch {
		case u.Deleted && !exists, !u.Deleted && exists && commit == u.CommitID:
			continue
		case u.Deleted:
			if err := tx.Where("repo_id = ? AND name = ?", repoID, u.Name).Delete(&Branch{}).Error; err != nil {
				return changed, err
			}
			added--
		case exists:
			err := tx.Model(&Branch{}).Where("repo_id = ? AND name = ?", repoID, u.Name).Updates(map[string]any{
				"commit_id": u.CommitID, "commit_message": storableText(u.CommitMessage), "commit_unix": u.CommitUnix,
				"pusher_id": pusherID, "updated_unix": now,
			}).Error
			if err != nil {
				return changed, err
			}
		default:
			b := Branch{RepoID: repoID, Name: u.Name, CommitID: u.CommitID, CommitMessage: storableText(u.CommitMessage),
				CommitUnix: u.CommitUnix, PusherID: pusherID, CreatedUnix: now, UpdatedUnix: now}
			if err := tx.Create(&b).Error; err != nil {
				return changed, err
			}
			added++
		}
		changed = true
		newCommit := u.CommitID
		if u.Deleted {
			newCommit = ""
		}
		if err := onChange(u.Name, commit, newCommit); err != nil {
			return changed, err
		}
		have[u.Name] = u.CommitID
		if u.Deleted {
			delete(have, u.Name)
		}
	}
	if added != 0 {
		if err := tx.Model(&Repository{}).Where("id = ?", repoID).
			Update("num_branches", gorm.Expr("num_branches + ?", added)).Error; err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func hasBranches(tx *gorm.DB, repoID int64) (bool, error) {
	var ids []int64
	err := tx.Model(&Branch{}).Where("repo_id = ?", repoID).Limit(1).Pluck("id", &ids).Error
	return len(ids) > 0, err
}

// ListBranches returns a page of branch records, latest commit first, then
// by name, and their total number. Both cost the same whatever the number
// of branches: the page is read from an index in its order and the total
// is the repository's counter (migration 0094), not a count of the
// records. A page with records costs one statement (the counter rides
// along as a constant subquery); only an empty one reads the counter on
// its own, to tell a missing repository (0) from a page past the end.
func (s *Store) ListBranches(ctx context.Context, repoID int64, offset, limit int) ([]Branch, int64, error) {
	db := s.db.WithContext(ctx)
	rows, err := db.Raw(branchPageQuery, repoID, repoID, limit, offset).Rows()
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	branches := []Branch{}
	var total int64
	for rows.Next() {
		var b Branch
		if err := rows.Scan(&b.ID, &b.RepoID, &b.Name, &b.CommitID, &b.CommitMessage, &b.CommitUnix,
			&b.PusherID, &b.CreatedUnix, &b.UpdatedUnix, &total); err != nil {
			return nil, 0, err
		}
		branches = append(branches, b)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(branches) > 0 {
		return branches, total, nil
	}
	var totals []int64
	if err := db.Model(&Repository{}).Where("id = ?", repoID).Pluck("num_branches", &totals).Error; err != nil {
		return nil, 0, err
	}
	if len(totals) == 0 {
		return []Branch{}, 0, nil
	}
	return branches, totals[0], nil
}

// branchPageQuery reads a page of branches in the order of
// idx_branches_repo_commit_unix with the repository's counter beside
// each record. It names every column of Branch: keep the two in step.
const branchPageQuery = `SELECT id, repo_id, name, commit_id, commit_message, commit_unix, pusher_id,
 created_unix, updated_unix, (SELECT num_branches FROM repositories WHERE id = ?)
 FROM branches WHERE repo_id = ? ORDER BY commit_unix DESC, name LIMIT ? OFFSET ?`

// BranchByName returns one branch record.
func (s *Store) BranchByName(ctx context.Context, repoID int64, name string) (*Branch, error) {
	var b Branch
	if err := s.db.WithContext(ctx).Where("repo_id = ? AND name = ?", repoID, name).Take(&b).Error; err != nil {
		return nil, notFound(err)
	}
	return &b, nil
}
