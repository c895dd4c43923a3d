package store

import (
	"context"

	"gorm.io/gorm"

	"forge/services/errs"
)

// RepositoriesAfter returns up to limit repositories whose id is above
// afterID, by id: the pages of a walk over every repository.
func (s *Store) RepositoriesAfter(ctx context.Context, afterID int64, limit int) ([]Repository, error) {
	var out []Repository
	if err := s.db.WithContext(ctx).Where("id > ?", afterID).Order("id").Limit(limit).Find(&out).Error; err != nil {
		return nil, errs.Wrap(err, "list repositories")
	}
	return out, nil
}

// SweepPullHeads finds, among the numbers of a repository's
// refs/pull/<index>/head refs, those that belong to no pull request (a
// creation cut short between writing the ref and committing the row, its
// number since taken by a plain issue or not taken at all), and calls drop
// with them. It holds the repository's issue index row locked meanwhile:
// a pull request being created holds it from allocating its number until
// it commits, after writing its ref, so no ref of a pull request still
// being created is taken for a stray.
func (s *Store) SweepPullHeads(ctx context.Context, repoID int64, indexes []int64, drop func(stray []int64) error) error {
	if len(indexes) == 0 {
		return nil
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Exec(`INSERT INTO issue_index (repo_id, max_index) SELECT id, 0 FROM repositories WHERE id = ?
ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index`, repoID).Error
		if err != nil {
			return errs.Wrap(err, "lock the issue index")
		}
		pulls := map[int64]bool{}
		for start := 0; start < len(indexes); start += 500 {
			var chunk []int64
			err := tx.Model(&PullRequest{}).Where(`repo_id = ? AND "index" IN ?`, repoID, indexes[start:min(start+500, len(indexes))]).
				Pluck("index", &chunk).Error
			if err != nil {
				return errs.Wrap(err, "find pull requests")
			}
			for _, index := range chunk {
				pulls[index] = true
			}
		}
		var stray []int64
		for _, index := range indexes {
			if !pulls[index] {
				stray = append(stray, index)
			}
		}
		if len(stray) == 0 {
			return nil
		}
		return drop(stray)
	})
}
