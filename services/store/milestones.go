package store

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// Milestone is a repository milestone. Its issue counts are not stored:
// they are counted from issues.milestone_id (idx_issues_milestone) when
// milestones are read, so no write of an issue (create, close, reopen,
// delete, move, merge) has to keep a counter in step, and concurrent
// writers can never leave it wrong.
type Milestone struct {
	ID           int64 `gorm:"primaryKey"`
	RepoID       int64
	Name         string
	Content      string
	IsClosed     bool
	DeadlineUnix int64 // 0: no due date
	ClosedUnix   int64
	CreatedUnix  int64
	UpdatedUnix  int64
	// NumIssues (issues and pull requests) and NumClosedIssues are
	// counted when the milestone is read.
	NumIssues       int64 `gorm:"-"`
	NumClosedIssues int64 `gorm:"-"`
}

func (Milestone) TableName() string { return "milestones" }

// ErrMilestoneNotFound: an issue write names a milestone its repository
// does not have.
var ErrMilestoneNotFound = errs.New(errs.NotFound, "milestone not found")

// CreateMilestone stores a new milestone of m.RepoID; m's ID and times are
// filled in (ClosedUnix too when it is created closed).
func (s *Store) CreateMilestone(ctx context.Context, m *Milestone) error {
	now := time.Now().Unix()
	m.ID, m.CreatedUnix, m.UpdatedUnix = 0, now, now
	m.ClosedUnix = 0
	if m.IsClosed {
		m.ClosedUnix = now
	}
	return errs.Wrap(s.db.WithContext(ctx).Create(m).Error, "create milestone")
}

// MilestoneByID returns a milestone of a repository with its counts;
// ErrNotFound if the repository has none with that id.
func (s *Store) MilestoneByID(ctx context.Context, repoID, id int64) (*Milestone, error) {
	var m Milestone
	if err := s.db.WithContext(ctx).Where("repo_id = ? AND id = ?", repoID, id).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, s.countMilestones(ctx, []*Milestone{&m})
}

// MilestoneByName returns the repository's milestone with that name
// (case-insensitively, the oldest when several share it) with its counts;
// ErrNotFound if there is none.
func (s *Store) MilestoneByName(ctx context.Context, repoID int64, name string) (*Milestone, error) {
	var m Milestone
	err := s.db.WithContext(ctx).Where("repo_id = ? AND LOWER(name) = ?", repoID, strings.ToLower(name)).
		Order("id").Take(&m).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &m, s.countMilestones(ctx, []*Milestone{&m})
}

// MilestoneListOptions filters ListMilestones.
type MilestoneListOptions struct {
	RepoID int64
	// State is "open" (also ""), "closed" or "all".
	State string
	// Name keeps milestones whose name contains it, case-insensitively.
	Name          string
	Offset, Limit int
}

// ListMilestones returns a page of a repository's milestones with their
// counts, soonest due first (those without a due date last), and how many
// match.
func (s *Store) ListMilestones(ctx context.Context, o MilestoneListOptions) ([]Milestone, int64, error) {
	q := s.db.WithContext(ctx).Model(&Milestone{}).Where("repo_id = ?", o.RepoID)
	switch o.State {
	case "closed":
		q = q.Where("is_closed = ?", true)
	case "all":
	default:
		q = q.Where("is_closed = ?", false)
	}
	if o.Name != "" {
		q = q.Where("LOWER(name) LIKE ? ESCAPE '\\'", "%"+escapeLike(strings.ToLower(o.Name))+"%")
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count milestones")
	}
	out := []Milestone{}
	err := q.Order("CASE WHEN deadline_unix = 0 THEN 1 ELSE 0 END").Order("deadline_unix").Order("id").
		Offset(o.Offset).Limit(o.Limit).Find(&out).Error
	if err != nil {
		return nil, 0, errs.Wrap(err, "list milestones")
	}
	ptrs := make([]*Milestone, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	return out, total, s.countMilestones(ctx, ptrs)
}

// MilestonesByID loads milestones by id with their counts (for rendering
// issues); unknown ids are absent.
func (s *Store) MilestonesByID(ctx context.Context, ids []int64) (map[int64]*Milestone, error) {
	out := map[int64]*Milestone{}
	ids = uniqueIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Milestone
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load milestones")
	}
	ptrs := make([]*Milestone, len(rows))
	for i := range rows {
		out[rows[i].ID] = &rows[i]
		ptrs[i] = &rows[i]
	}
	return out, s.countMilestones(ctx, ptrs)
}

// countMilestones fills the counts of ms in one query.
func (s *Store) countMilestones(ctx context.Context, ms []*Milestone) error {
	if len(ms) == 0 {
		return nil
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	var rows []struct {
		MilestoneID int64
		IsClosed    bool
		N           int64
	}
	err := s.db.WithContext(ctx).Model(&Issue{}).Select("milestone_id, is_closed, COUNT(*) AS n").
		Where("milestone_id IN ?", ids).Group("milestone_id, is_closed").Scan(&rows).Error
	if err != nil {
		return errs.Wrap(err, "count milestone issues")
	}
	for _, m := range ms {
		m.NumIssues, m.NumClosedIssues = 0, 0
		for _, r := range rows {
			if r.MilestoneID == m.ID {
				m.NumIssues += r.N
				if r.IsClosed {
					m.NumClosedIssues += r.N
				}
			}
		}
	}
	return nil
}

// UpdateMilestone applies change to a repository's milestone, locked, and
// saves it; a change of IsClosed sets or clears ClosedUnix. change may
// return an error to abort. ErrNotFound if the repository has no such
// milestone.
func (s *Store) UpdateMilestone(ctx context.Context, repoID, id int64, change func(m *Milestone) error) (*Milestone, error) {
	var out Milestone
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var old Milestone
		if err := s.forUpdate(tx).Where("repo_id = ? AND id = ?", repoID, id).Take(&old).Error; err != nil {
			return notFound(err)
		}
		m := old
		if err := change(&m); err != nil {
			return err
		}
		now := time.Now().Unix()
		m.ID, m.RepoID, m.CreatedUnix, m.UpdatedUnix = old.ID, old.RepoID, old.CreatedUnix, now
		switch {
		case m.IsClosed && !old.IsClosed:
			m.ClosedUnix = now
		case !m.IsClosed:
			m.ClosedUnix = 0
		default:
			m.ClosedUnix = old.ClosedUnix
		}
		err := tx.Model(&Milestone{}).Where("id = ?", id).Updates(map[string]any{
			"name": m.Name, "content": m.Content, "is_closed": m.IsClosed, "deadline_unix": m.DeadlineUnix,
			"closed_unix": m.ClosedUnix, "updated_unix": m.UpdatedUnix,
		}).Error
		if err != nil {
			return errs.Wrap(err, "save milestone")
		}
		out = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, s.countMilestones(ctx, []*Milestone{&out})
}

// DeleteMilestone deletes a repository's milestone and takes it off its
// issues, in one transaction (the timeline keeps its events, which then
// name no milestone). ErrNotFound if the repository has no such milestone.
func (s *Store) DeleteMilestone(ctx context.Context, repoID, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("repo_id = ? AND id = ?", repoID, id).Delete(&Milestone{})
		if res.Error != nil {
			return errs.Wrap(res.Error, "delete milestone")
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		err := tx.Model(&Issue{}).Where("repo_id = ? AND milestone_id = ?", repoID, id).Update("milestone_id", 0).Error
		return errs.Wrap(err, "clear issue milestones")
	})
}

// lockMilestone checks, inside an issue write, that the repository has
// milestone id, and holds the row (PostgreSQL) until commit so a
// concurrent DeleteMilestone cannot clear the issues before this write
// sets the id. ErrMilestoneNotFound if there is none.
func (s *Store) lockMilestone(tx *gorm.DB, repoID, id int64) error {
	var m Milestone
	if err := s.forUpdate(tx).Select("id").Where("repo_id = ? AND id = ?", repoID, id).Take(&m).Error; err != nil {
		if notFound(err) == ErrNotFound {
			return ErrMilestoneNotFound
		}
		return errs.Wrap(err, "lock milestone")
	}
	return nil
}

// MilestonesByNames resolves a list filter's milestone names, case-
// insensitively, to the repository's milestone ids (lower-case name to
// the oldest milestone of that name); unknown names are absent.
func (s *Store) MilestonesByNames(ctx context.Context, repoID int64, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(names) == 0 {
		return out, nil
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	var rows []Milestone
	err := s.db.WithContext(ctx).Select("id", "name").Where("repo_id = ? AND LOWER(name) IN ?", repoID, lower).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, errs.Wrap(err, "find milestones")
	}
	for _, m := range rows {
		if _, ok := out[strings.ToLower(m.Name)]; !ok {
			out[strings.ToLower(m.Name)] = m.ID
		}
	}
	return out, nil
}
