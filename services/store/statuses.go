package store

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// Commit statuses: what external systems report about a commit, per
// context. commit_statuses holds every report, numbered per commit;
// commit_status_index the last number handed out per commit;
// commit_status_latest the latest report of each context of a commit
// with its state, moved in the transaction of every insert, so the
// combined status of a commit costs its number of contexts, not its
// history.

// The commit states, from worst to best: Gitea's precedence for the
// combined state (the worst latest state of the contexts).
const (
	StatusError   = "error"
	StatusFailure = "failure"
	StatusWarning = "warning"
	StatusPending = "pending"
	StatusSuccess = "success"
)

// statusRank orders the states from worst (0) to best.
var statusRank = map[string]int{StatusError: 0, StatusFailure: 1, StatusWarning: 2, StatusPending: 3, StatusSuccess: 4}

// ValidCommitState reports whether s is one of the five states.
func ValidCommitState(s string) bool {
	_, ok := statusRank[s]
	return ok
}

// WorseCommitState is the worse of two states in Gitea's precedence; ""
// stands for no state and loses to any state.
func WorseCommitState(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	if statusRank[b] < statusRank[a] {
		return b
	}
	return a
}

// CommitStatus is one reported state of a commit.
type CommitStatus struct {
	ID     int64
	RepoID int64
	SHA    string `gorm:"column:sha"`
	// Index numbers the statuses of one commit from 1, in the order they
	// were stored.
	Index       int64
	State       string
	Context     string
	ContextHash string
	TargetURL   string
	Description string
	CreatorID   int64
	CreatedUnix int64
	UpdatedUnix int64
}

// TableName is the table of commit statuses.
func (CommitStatus) TableName() string { return "commit_statuses" }

// commitStatusLatest is the latest status of one context of a commit.
type commitStatusLatest struct {
	RepoID      int64
	SHA         string `gorm:"column:sha"`
	ContextHash string
	StatusIndex int64
	State       string
}

func (commitStatusLatest) TableName() string { return "commit_status_latest" }

// contextHash keys a context of any length in the indexes.
func contextHash(context string) string {
	sum := sha1.Sum([]byte(context))
	return hex.EncodeToString(sum[:])
}

// CreateCommitStatus stores st as the newest status of st.SHA in
// st.RepoID: it allocates the commit's next index, inserts the status
// and makes it its context's latest, in one transaction, so concurrent
// reporters (also in several processes on PostgreSQL) get consecutive
// indexes with no gap and no duplicate. st's ID, Index, ContextHash and
// times are filled in.
func (s *Store) CreateCommitStatus(ctx context.Context, st *CommitStatus) error {
	now := time.Now().Unix()
	st.CreatedUnix, st.UpdatedUnix = now, now
	st.ContextHash = contextHash(st.Context)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The upsert locks the commit's row of commit_status_index until
		// commit: the next reporter of this commit waits, then sees the
		// new value; other commits are not held up.
		var idx int64
		err := tx.Raw(`INSERT INTO commit_status_index (repo_id, sha, max_index) VALUES (?, ?, 1)
ON CONFLICT (repo_id, sha) DO UPDATE SET max_index = commit_status_index.max_index + 1
RETURNING max_index`, st.RepoID, st.SHA).Scan(&idx).Error
		if err != nil {
			return errs.Wrap(err, "allocate commit status index")
		}
		st.ID, st.Index = 0, idx
		if err := tx.Create(st).Error; err != nil {
			return errs.Wrap(err, "insert commit status")
		}
		// The index row serialises the writers of this commit, so the
		// guard only matters if that ever changes: an older status never
		// replaces a newer one.
		err = tx.Exec(`INSERT INTO commit_status_latest (repo_id, sha, context_hash, status_index, state) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (repo_id, sha, context_hash) DO UPDATE SET status_index = excluded.status_index, state = excluded.state
WHERE excluded.status_index > commit_status_latest.status_index`,
			st.RepoID, st.SHA, st.ContextHash, st.Index, st.State).Error
		if err != nil {
			return errs.Wrap(err, "record latest commit status")
		}
		return nil
	})
}

// CommitStatusListOptions selects a page of a commit's statuses.
type CommitStatusListOptions struct {
	RepoID int64
	SHA    string
	// State keeps only statuses in that state; "" (or anything that is no
	// state) keeps all, as Gitea.
	State string
	// Sort is Gitea's: "oldest", "leastupdate" and "leastindex" are
	// oldest first; anything else ("", "recentupdate", "highestindex")
	// newest first. Statuses are never edited and their index follows
	// their creation, so every order is the index's.
	Sort          string
	Offset, Limit int
}

// ListCommitStatuses returns a page of a commit's statuses and how many
// match. The page and the total read an index that starts with the
// filters (repo, sha[, state]), so they cost the page, not the history.
func (s *Store) ListCommitStatuses(ctx context.Context, o CommitStatusListOptions) ([]CommitStatus, int64, error) {
	q := s.db.WithContext(ctx).Model(&CommitStatus{}).Where("repo_id = ? AND sha = ?", o.RepoID, o.SHA)
	if ValidCommitState(o.State) {
		q = q.Where("state = ?", o.State)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count commit statuses")
	}
	order := `"index" DESC`
	switch o.Sort {
	case "oldest", "leastupdate", "leastindex":
		order = `"index" ASC`
	}
	list := []CommitStatus{}
	if total > 0 {
		if err := q.Order(order).Offset(o.Offset).Limit(o.Limit).Find(&list).Error; err != nil {
			return nil, 0, errs.Wrap(err, "list commit statuses")
		}
	}
	return list, total, nil
}

// LatestCommitStatuses returns a page of the latest status of each
// context of a commit, newest first, and the number of contexts.
func (s *Store) LatestCommitStatuses(ctx context.Context, repoID int64, sha string, offset, limit int) ([]CommitStatus, int64, error) {
	db := s.db.WithContext(ctx)
	var total int64
	err := db.Model(&commitStatusLatest{}).Where("repo_id = ? AND sha = ?", repoID, sha).Count(&total).Error
	if err != nil {
		return nil, 0, errs.Wrap(err, "count commit status contexts")
	}
	list := []CommitStatus{}
	if total == 0 {
		return list, 0, nil
	}
	err = db.Table("commit_status_latest AS l").Select("s.*").
		Joins(`JOIN commit_statuses AS s ON s.repo_id = l.repo_id AND s.sha = l.sha AND s."index" = l.status_index`).
		Where("l.repo_id = ? AND l.sha = ?", repoID, sha).
		Order("l.status_index DESC").Offset(offset).Limit(limit).Find(&list).Error
	if err != nil {
		return nil, 0, errs.Wrap(err, "list latest commit statuses")
	}
	return list, total, nil
}

// CombinedCommitStates returns the combined state of each of shas in a
// repository (the worst latest state of its contexts, Gitea's
// precedence) in one query whose cost is their number of contexts.
// A sha without statuses is absent from the map.
func (s *Store) CombinedCommitStates(ctx context.Context, repoID int64, shas []string) (map[string]string, error) {
	out := map[string]string{}
	if len(shas) == 0 {
		return out, nil
	}
	var rows []commitStatusLatest
	err := s.db.WithContext(ctx).Select("sha", "state").
		Where("repo_id = ? AND sha IN ?", repoID, shas).Find(&rows).Error
	if err != nil {
		return nil, errs.Wrap(err, "read combined commit states")
	}
	for _, r := range rows {
		out[r.SHA] = WorseCommitState(out[r.SHA], r.State)
	}
	return out, nil
}
