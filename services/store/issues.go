package store

import (
	"context"
	"errors"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// Issues and pull requests share the issues table and the per-repository
// index (issue_index). The repository's counters (num_issues,
// num_closed_issues, num_pulls, num_closed_pulls) are moved in the
// transaction of every write that changes them, and every write that
// notifies people enqueues an Activity in the same transaction.

// NewIssue is an issue (or pull request) to create with its assignees.
type NewIssue struct {
	Issue
	AssigneeIDs []int64
}

// CreateIssue stores a new issue: it allocates the next index of the
// repository, inserts the issue and its assignees, moves the repository's
// counters and enqueues ActivityIssueCreated, all in one transaction, so
// concurrent creators (also in several processes on PostgreSQL) get
// consecutive indexes with no gap and no duplicate. n.Issue's ID, Index
// and times are filled in (CreatedUnix is kept when set). ErrNotFound if
// the repository does not exist.
func (s *Store) CreateIssue(ctx context.Context, n *NewIssue) error {
	is := &n.Issue
	now := time.Now().Unix()
	if is.CreatedUnix == 0 {
		is.CreatedUnix = now
	}
	is.UpdatedUnix = is.CreatedUnix
	if is.IsClosed && is.ClosedUnix == 0 {
		is.ClosedUnix = now
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The row of issue_index is locked by the upsert until commit, so
		// the next creator waits for it and then sees the new value; a
		// rollback takes the increment back with it.
		var idx int64
		err := tx.Raw(`INSERT INTO issue_index (repo_id, max_index) VALUES (?, 1)
ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index + 1
RETURNING max_index`, is.RepoID).Scan(&idx).Error
		if err != nil {
			return errs.Wrap(err, "allocate issue index")
		}
		if err := moveIssueCounters(tx, is.RepoID, is.IsPull, 1, b2i(is.IsClosed)); err != nil {
			return err
		}
		is.ID, is.Index = 0, idx
		if err := tx.Create(is).Error; err != nil {
			return errs.Wrap(err, "insert issue")
		}
		if err := addAssignees(tx, is, uniqueIDs(n.AssigneeIDs)); err != nil {
			return err
		}
		return enqueueActivity(tx, Activity{Kind: ActivityIssueCreated, RepoID: is.RepoID, IssueID: is.ID, ActorID: is.PosterID, CreatedUnix: now})
	})
}

// moveIssueCounters adds total and closed to the repository's issue (or
// pull request) counters. ErrNotFound if the repository does not exist.
func moveIssueCounters(tx *gorm.DB, repoID int64, pull bool, total, closed int) error {
	if total == 0 && closed == 0 {
		return nil
	}
	numCol, closedCol := "num_issues", "num_closed_issues"
	if pull {
		numCol, closedCol = "num_pulls", "num_closed_pulls"
	}
	res := tx.Model(&Repository{}).Where("id = ?", repoID).Updates(map[string]any{
		numCol:    gorm.Expr(numCol+" + ?", total),
		closedCol: gorm.Expr(closedCol+" + ?", closed),
	})
	if res.Error != nil {
		return errs.Wrap(res.Error, "move issue counters")
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func uniqueIDs(ids []int64) []int64 {
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if id != 0 && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func addAssignees(tx *gorm.DB, is *Issue, ids []int64) error {
	for _, id := range ids {
		a := IssueAssignee{RepoID: is.RepoID, IssueID: is.ID, AssigneeID: id}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&a).Error; err != nil {
			return errs.Wrap(err, "assign issue")
		}
	}
	return nil
}

// IssueByIndex returns the issue (or pull request) with that index in a
// repository; ErrNotFound if there is none.
func (s *Store) IssueByIndex(ctx context.Context, repoID, index int64) (*Issue, error) {
	var is Issue
	if err := s.db.WithContext(ctx).Where(`repo_id = ? AND "index" = ?`, repoID, index).Take(&is).Error; err != nil {
		return nil, notFound(err)
	}
	return &is, nil
}

// IssueByID returns an issue (or pull request) by id; ErrNotFound if
// there is none.
func (s *Store) IssueByID(ctx context.Context, id int64) (*Issue, error) {
	var is Issue
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&is).Error; err != nil {
		return nil, notFound(err)
	}
	return &is, nil
}

// IssueAssignees returns the ids of the users assigned to each of the
// issues, in the order they were assigned.
func (s *Store) IssueAssignees(ctx context.Context, issueIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	var rows []IssueAssignee
	if err := s.db.WithContext(ctx).Where("issue_id IN ?", issueIDs).Order("id").Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load assignees")
	}
	for _, r := range rows {
		out[r.IssueID] = append(out[r.IssueID], r.AssigneeID)
	}
	return out, nil
}

var _ = errors.Is
