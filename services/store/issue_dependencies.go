package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// IssueDependency records that IssueID depends on (is blocked by)
// DependencyID. RepoID is the dependent issue's repository, so the row goes
// with it; a row whose blocker was deleted with another repository is
// never shown (every read joins the issues) and cannot come back (issue
// ids are not reused).
type IssueDependency struct {
	ID           int64 `gorm:"primaryKey"`
	RepoID       int64
	IssueID      int64
	DependencyID int64
	CreatedUnix  int64
}

func (IssueDependency) TableName() string { return "issue_dependencies" }

var (
	// ErrDependencyExists: the issue already depends on that one. Gitea
	// 1.22 answers 500; forge 409.
	ErrDependencyExists = errs.New(errs.AlreadyExists, "issue dependency does already exist")
	// ErrDependencySelf: an issue cannot depend on itself.
	ErrDependencySelf = errs.New(errs.Invalid, "an issue cannot depend on itself")
	// ErrDependencyCycle: the new dependency would close a cycle (the
	// blocker already depends on the issue, directly or through others).
	ErrDependencyCycle = errs.New(errs.Invalid, "circular dependencies exists: the blocking issue already depends on this issue, directly or through other issues")
	// ErrDependencyNotFound: removing a dependency that does not exist.
	ErrDependencyNotFound = errs.New(errs.NotFound, "issue dependency does not exist")
	// ErrDependenciesOpen: closing an issue that depends on open issues
	// (UpdateIssue); Gitea answers 412.
	ErrDependenciesOpen = errs.New(errs.FailedPrecondition, "cannot close this issue because it still has open dependencies")
)

// dependencyLock is the advisory lock key serialising dependency inserts
// on PostgreSQL (migrations use 4242001, admin changes 4242002).
const dependencyLock = 4242060

// AddIssueDependency makes issueID depend on dependencyID. In one
// transaction it locks both issue rows (in id order, so two requests on
// the same pair cannot deadlock; a close of either waits for it), checks
// that the pair is new and that dependencyID does not already depend on
// issueID through any chain, and inserts the row.
//
// Cycle checks must see every committed edge: two inserts a→b and c→d
// closing a cycle a→b→c→d→a touch disjoint issue rows, so on PostgreSQL
// all dependency inserts are serialised by one transaction-scoped advisory
// lock taken first (inserts are rare; reads and deletes do not take it).
// SQLite's immediate transactions already serialise writers.
//
// Returns ErrDependencySelf, ErrNotFound (either issue is gone),
// ErrDependencyExists or ErrDependencyCycle.
func (s *Store) AddIssueDependency(ctx context.Context, issueID, dependencyID int64) error {
	if issueID == dependencyID {
		return ErrDependencySelf
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if s.postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", dependencyLock).Error; err != nil {
				return errs.Wrap(err, "lock dependencies")
			}
		}
		lo, hi := min(issueID, dependencyID), max(issueID, dependencyID)
		var locked []Issue
		if err := s.forUpdate(tx).Where("id IN ?", []int64{lo, hi}).Order("id").Find(&locked).Error; err != nil {
			return errs.Wrap(err, "lock issues")
		}
		if len(locked) != 2 {
			return ErrNotFound
		}
		issue := locked[0]
		if issue.ID != issueID {
			issue = locked[1]
		}
		var n int64
		if err := tx.Model(&IssueDependency{}).Where("issue_id = ? AND dependency_id = ?", issueID, dependencyID).Count(&n).Error; err != nil {
			return errs.Wrap(err, "find dependency")
		}
		if n > 0 {
			return ErrDependencyExists
		}
		cycle, err := dependsOn(tx, dependencyID, issueID)
		if err != nil {
			return err
		}
		if cycle {
			return ErrDependencyCycle
		}
		row := IssueDependency{RepoID: issue.RepoID, IssueID: issueID, DependencyID: dependencyID, CreatedUnix: time.Now().Unix()}
		if err := tx.Create(&row).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrDependencyExists
			}
			return errs.Wrap(err, "insert dependency")
		}
		return nil
	})
}

// dependsOn reports whether from depends on to through any chain of
// dependencies. UNION (not UNION ALL) stops at issues already reached, so
// it ends on data that holds a cycle.
func dependsOn(tx *gorm.DB, from, to int64) (bool, error) {
	var found []int64
	err := tx.Raw(`WITH RECURSIVE reach(id) AS (
	SELECT dependency_id FROM issue_dependencies WHERE issue_id = ?
	UNION
	SELECT d.dependency_id FROM issue_dependencies d JOIN reach r ON d.issue_id = r.id
)
SELECT id FROM reach WHERE id = ? LIMIT 1`, from, to).Scan(&found).Error
	if err != nil {
		return false, errs.Wrap(err, "walk dependencies")
	}
	return len(found) > 0, nil
}

// RemoveIssueDependency removes the dependency of issueID on
// dependencyID; ErrDependencyNotFound if there is none.
func (s *Store) RemoveIssueDependency(ctx context.Context, issueID, dependencyID int64) error {
	res := s.db.WithContext(ctx).Where("issue_id = ? AND dependency_id = ?", issueID, dependencyID).Delete(&IssueDependency{})
	if res.Error != nil {
		return errs.Wrap(res.Error, "delete dependency")
	}
	if res.RowsAffected == 0 {
		return ErrDependencyNotFound
	}
	return nil
}

// DependencyListOptions selects ListIssueDependencies' page.
type DependencyListOptions struct {
	// IssueID is the issue whose relations are listed.
	IssueID int64
	// Blocks lists the issues IssueID blocks (that depend on it) instead
	// of the issues it depends on.
	Blocks bool
	// Visible leaves out issues whose repository the viewer may not read
	// (RepoFilter), or whose unit (issues, or pull requests for a pull
	// request) they may not read there: not given (a team's code-only
	// grant), or off and not administered by them (issueUnitCond).
	Visible RepoFilter
	Offset  int
	Limit   int
}

// ListIssueDependencies returns a page of the issues related to
// opts.IssueID that the viewer may read, in the order the relations were
// made.
func (s *Store) ListIssueDependencies(ctx context.Context, opts DependencyListOptions) ([]Issue, error) {
	own, other := "issue_dependencies.issue_id", "issue_dependencies.dependency_id"
	if opts.Blocks {
		own, other = other, own
	}
	q := s.db.WithContext(ctx).Model(&Issue{}).Select("issues.*").
		Joins("JOIN issue_dependencies ON issues.id = "+other).
		Joins("JOIN repositories ON repositories.id = issues.repo_id").
		Where(own+" = ?", opts.IssueID)
	q = s.applyRepoFilter(q, opts.Visible)
	q = s.issueUnitCond(q, opts.Visible, "issues.repo_id", "issues.is_pull")
	var out []Issue
	if err := q.Order("issue_dependencies.id").Offset(opts.Offset).Limit(opts.Limit).Find(&out).Error; err != nil {
		return nil, errs.Wrap(err, "list dependencies")
	}
	return out, nil
}

// OpenDependencies counts the open issues issueID depends on: closing it
// is refused while there are any (UpdateIssue checks it inside its
// transaction, on the locked issue row, which AddIssueDependency locks
// too, so a close and a new dependency cannot pass each other).
func (s *Store) OpenDependencies(ctx context.Context, issueID int64) (int64, error) {
	return openDependencies(s.db.WithContext(ctx), issueID)
}

// openDependencies is OpenDependencies on a transaction.
func openDependencies(tx *gorm.DB, issueID int64) (int64, error) {
	var n int64
	err := tx.Model(&IssueDependency{}).
		Joins("JOIN issues ON issues.id = issue_dependencies.dependency_id").
		Where("issue_dependencies.issue_id = ? AND issues.is_closed = ?", issueID, false).
		Count(&n).Error
	if err != nil {
		return 0, errs.Wrap(err, "count open dependencies")
	}
	return n, nil
}
