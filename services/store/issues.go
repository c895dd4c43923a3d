package store

import (
	"context"
	"slices"
	"strings"
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
	// LabelIDs are put on the issue (labels area: labelNewIssue); they
	// name labels of the repository or of LabelOrgID, its owner.
	LabelIDs   []int64
	LabelOrgID int64
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
	return s.createIssueBatched(ctx, n, now) // issue_batch.go
}

// insertIssue is CreateIssue inside the caller's transaction: a batch of
// one (issue_rows.go).
func (s *Store) insertIssue(tx *gorm.DB, n *NewIssue, now int64) error {
	return s.insertIssues(tx, []*issueCreation{{n: n, now: now}})
}

// hasSettings reports whether n sets more than its row: a milestone,
// assignees, labels or the closed state, each with its timeline event.
func (n *NewIssue) hasSettings() bool {
	return n.MilestoneID != 0 || len(n.AssigneeIDs) > 0 || len(n.LabelIDs) > 0 || n.IsClosed
}

// addIssueSettings stores what the poster set on the inserted issue n
// besides its row: its milestone, assignees and labels, and their events.
func (s *Store) addIssueSettings(tx *gorm.DB, n *NewIssue, now int64) error {
	if !n.hasSettings() {
		return nil
	}
	is := &n.Issue
	if is.MilestoneID != 0 {
		if err := s.lockMilestone(tx, is.RepoID, is.MilestoneID); err != nil {
			return err
		}
	}
	assignees := uniqueIDs(n.AssigneeIDs)
	if err := addAssignees(tx, is, assignees); err != nil {
		return err
	}
	if is.MilestoneID != 0 {
		c := Comment{Type: CommentTypeMilestone, RepoID: is.RepoID, IssueID: is.ID, PosterID: is.PosterID, MilestoneID: is.MilestoneID, CreatedUnix: now}
		if err := recordEvent(tx, c); err != nil {
			return err
		}
	}
	if len(n.LabelIDs) > 0 {
		if err := s.labelNewIssue(tx, is, n.LabelOrgID, n.LabelIDs); err != nil {
			return err
		}
	}
	// The timeline shows what the poster set at creation, in forge's
	// order: milestone (above, first as in Gitea), labels (above),
	// assignees, state.
	for _, id := range assignees {
		c := Comment{Type: CommentTypeAssignees, RepoID: is.RepoID, IssueID: is.ID, PosterID: is.PosterID, AssigneeID: id, CreatedUnix: now}
		if err := recordEvent(tx, c); err != nil {
			return err
		}
	}
	if is.IsClosed {
		c := Comment{Type: CommentTypeClose, RepoID: is.RepoID, IssueID: is.ID, PosterID: is.PosterID, CreatedUnix: now}
		if err := recordEvent(tx, c); err != nil {
			return err
		}
	}
	return nil
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

// IssuesByID loads issues by id (for rendering comments of many issues).
func (s *Store) IssuesByID(ctx context.Context, ids []int64) (map[int64]*Issue, error) {
	out := map[int64]*Issue{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Issue
	if err := s.db.WithContext(ctx).Where("id IN ?", uniqueIDs(ids)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load issues")
	}
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}

// LabelsOfIssues returns the labels on each of the issues, by name.
func (s *Store) LabelsOfIssues(ctx context.Context, issueIDs []int64) (map[int64][]Label, error) {
	out := map[int64][]Label{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.WithContext(ctx).Table("issue_labels").
		Select("issue_labels.issue_id, "+labelColumns).
		Joins("JOIN labels ON labels.id = issue_labels.label_id").
		Where("issue_labels.issue_id IN ?", issueIDs).
		Order("labels.name").Order("labels.id").Rows()
	if err != nil {
		return nil, errs.Wrap(err, "load issue labels")
	}
	defer rows.Close()
	for rows.Next() {
		var issueID int64
		var l Label
		if err := rows.Scan(append([]any{&issueID}, labelFields(&l)...)...); err != nil {
			return nil, errs.Wrap(err, "load issue labels")
		}
		out[issueID] = append(out[issueID], l)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "load issue labels")
	}
	return out, nil
}

// IssueListOptions filters ListIssues. Zero values do not filter.
type IssueListOptions struct {
	// RepoID: one repository. 0: every repository Repos shows (search).
	RepoID int64
	// Repos limits a search to the repositories the viewer may read; with
	// it, issues need their repository's issues unit on and readable by
	// the viewer, and pull requests its pulls unit (issueUnitCond).
	Repos RepoFilter
	// OwnerID keeps repositories of that owner (search).
	OwnerID int64
	// State is "open", "closed" or "all" ("" is open).
	State string
	// IsPull keeps only pull requests (true) or only issues (false).
	IsPull *bool
	// Keyword is a case-insensitive substring of the title or body.
	Keyword string
	// PosterID, AssigneeID: the issue's poster, one of its assignees.
	PosterID, AssigneeID int64
	// MentionedID: the issue's body or one of its comments mentions the
	// user (@name).
	MentionedID int64
	// LabelNames: the issue carries a label of each name (of its
	// repository); names no label has are ignored.
	LabelNames []string
	// Since, Before bound the update time (Unix seconds).
	Since, Before int64
	// ByMilestone keeps issues of one of MilestoneIDs (none: no issue).
	ByMilestone   bool
	MilestoneIDs  []int64
	Offset, Limit int
}

// ListIssues returns a page of issues, newest first, and how many match.
func (s *Store) ListIssues(ctx context.Context, o IssueListOptions) ([]Issue, int64, error) {
	db := s.db.WithContext(ctx)
	q := db.Model(&Issue{})
	if o.RepoID != 0 {
		q = q.Where("issues.repo_id = ?", o.RepoID)
	} else {
		repos := s.applyRepoFilter(s.db.Model(&Repository{}).Select("repositories.id"), o.Repos)
		if o.OwnerID != 0 {
			repos = repos.Where("repositories.owner_id = ?", o.OwnerID)
		}
		withIssues := repos.Session(&gorm.Session{}).Where("repositories.has_issues = ?", true)
		withPulls := repos.Session(&gorm.Session{}).Where("repositories.has_pull_requests = ?", true)
		q = q.Where("((issues.is_pull = ? AND issues.repo_id IN (?)) OR (issues.is_pull = ? AND issues.repo_id IN (?)))",
			false, withIssues, true, withPulls)
		// And the caller may read that unit (a team may give code only).
		q = s.issueUnitCond(q, o.Repos, "issues.repo_id", "issues.is_pull")
	}
	switch o.State {
	case "closed":
		q = q.Where("issues.is_closed = ?", true)
	case "all":
	default:
		q = q.Where("issues.is_closed = ?", false)
	}
	if o.IsPull != nil {
		q = q.Where("issues.is_pull = ?", *o.IsPull)
	}
	if o.Keyword != "" {
		kw := "%" + escapeLike(strings.ToLower(o.Keyword)) + "%"
		q = q.Where("(LOWER(issues.title) LIKE ? ESCAPE '\\' OR LOWER(issues.content) LIKE ? ESCAPE '\\')", kw, kw)
	}
	if o.PosterID != 0 {
		q = q.Where("issues.poster_id = ?", o.PosterID)
	}
	if o.AssigneeID != 0 {
		q = q.Where("issues.id IN (?)", s.db.Model(&IssueAssignee{}).Select("issue_id").Where("assignee_id = ?", o.AssigneeID))
	}
	if o.MentionedID != 0 {
		q = q.Where("issues.id IN (?)", s.db.Model(&IssueMention{}).Select("issue_id").Where("user_id = ?", o.MentionedID))
	}
	if len(o.LabelNames) > 0 {
		var labels []Label
		lq := db.Model(&Label{}).Select("id", "name").Where("name IN ?", o.LabelNames)
		if o.RepoID != 0 {
			lq = lq.Where("repo_id = ?", o.RepoID)
		}
		if err := lq.Find(&labels).Error; err != nil {
			return nil, 0, errs.Wrap(err, "find labels")
		}
		byName := map[string][]int64{}
		for _, l := range labels {
			byName[l.Name] = append(byName[l.Name], l.ID)
		}
		for _, ids := range byName {
			q = q.Where("issues.id IN (?)", s.db.Model(&IssueLabel{}).Select("issue_id").Where("label_id IN ?", ids))
		}
	}
	if o.Since != 0 {
		q = q.Where("issues.updated_unix >= ?", o.Since)
	}
	if o.Before != 0 {
		q = q.Where("issues.updated_unix <= ?", o.Before)
	}
	if o.ByMilestone {
		if len(o.MilestoneIDs) == 0 {
			q = q.Where("1 = 0")
		} else {
			q = q.Where("issues.milestone_id IN ?", o.MilestoneIDs)
		}
	}
	total, counted, err := s.countFromCounters(ctx, o)
	if err != nil {
		return nil, 0, err
	}
	if !counted {
		if err := q.Count(&total).Error; err != nil {
			return nil, 0, errs.Wrap(err, "count issues")
		}
	}
	out := []Issue{}
	err = q.Order("issues.created_unix DESC").Order("issues.id DESC").Offset(o.Offset).Limit(o.Limit).Find(&out).Error
	if err != nil {
		return nil, 0, errs.Wrap(err, "list issues")
	}
	return out, total, nil
}

// countFromCounters answers ListIssues' total from the repository's
// counters (moved in the transaction of every issue write) when o filters
// by nothing else than repository, state and kind: counting the rows
// would cost as much as the repository has issues (idx_issues_repo_*
// serve the page itself). counted is false when o needs the rows counted.
func (s *Store) countFromCounters(ctx context.Context, o IssueListOptions) (total int64, counted bool, err error) {
	if o.RepoID == 0 || o.Keyword != "" || o.PosterID != 0 || o.AssigneeID != 0 || o.MentionedID != 0 ||
		len(o.LabelNames) > 0 || o.Since != 0 || o.Before != 0 || o.ByMilestone {
		return 0, false, nil
	}
	var r Repository
	err = s.db.WithContext(ctx).Select("num_issues", "num_closed_issues", "num_pulls", "num_closed_pulls").
		Where("id = ?", o.RepoID).Take(&r).Error
	if err != nil {
		return 0, false, errs.Wrap(notFound(err), "count issues")
	}
	var all, closed int
	if o.IsPull == nil || !*o.IsPull {
		all, closed = all+r.NumIssues, closed+r.NumClosedIssues
	}
	if o.IsPull == nil || *o.IsPull {
		all, closed = all+r.NumPulls, closed+r.NumClosedPulls
	}
	switch o.State {
	case "closed":
		return int64(closed), true, nil
	case "all":
		return int64(all), true, nil
	}
	return int64(all - closed), true, nil
}

// IssueEdit is what UpdateIssue's change sees and may change: the issue
// and, when ReplaceAssignees is set, its new assignees.
type IssueEdit struct {
	Issue
	AssigneeIDs      []int64
	ReplaceAssignees bool
	// Merged: the issue is a pull request that was merged, read under the
	// issue's lock (a merge closes the issue in its own transaction).
	Merged bool
}

// UpdateIssue loads an issue, applies change and saves it in one
// transaction (the issue row is locked on PostgreSQL, so concurrent edits
// apply one after the other). A change of IsClosed sets or clears
// ClosedUnix and moves the repository's counters; title, state and new
// assignees enqueue their activities, by actorID. change may return an
// error to abort. ErrNotFound if there is no such issue; ErrDependenciesOpen
// when closing an issue that depends on open issues.
func (s *Store) UpdateIssue(ctx context.Context, repoID, index, actorID int64, change func(e *IssueEdit) error) (*Issue, error) {
	var out Issue
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var old Issue
		if err := s.forUpdate(tx).Where(`repo_id = ? AND "index" = ?`, repoID, index).Take(&old).Error; err != nil {
			return notFound(err)
		}
		e := IssueEdit{Issue: old}
		if old.IsPull {
			var merged []bool
			if err := tx.Model(&PullRequest{}).Where("issue_id = ?", old.ID).Pluck("has_merged", &merged).Error; err != nil {
				return err
			}
			e.Merged = len(merged) == 1 && merged[0]
		}
		if err := change(&e); err != nil {
			return err
		}
		is := e.Issue
		is.ID, is.RepoID, is.Index, is.IsPull, is.PosterID = old.ID, old.RepoID, old.Index, old.IsPull, old.PosterID
		is.CreatedUnix, is.NumComments = old.CreatedUnix, old.NumComments
		now := time.Now().Unix()
		act := func(kind string) error {
			return s.enqueueActivity(tx, Activity{Kind: kind, RepoID: repoID, IssueID: is.ID, ActorID: actorID, CreatedUnix: now})
		}
		event := func(c Comment) error {
			c.RepoID, c.IssueID, c.PosterID, c.CreatedUnix = repoID, is.ID, actorID, now
			return recordEvent(tx, c)
		}
		// Events in Gitea's order: milestone, assignees, state, title.
		if is.MilestoneID != old.MilestoneID {
			if is.MilestoneID != 0 {
				if err := s.lockMilestone(tx, repoID, is.MilestoneID); err != nil {
					return err
				}
			}
			if err := event(Comment{Type: CommentTypeMilestone, OldMilestoneID: old.MilestoneID, MilestoneID: is.MilestoneID}); err != nil {
				return err
			}
		}
		assigned, unassigned := false, false
		if e.ReplaceAssignees {
			added, gone, err := replaceAssignees(tx, &is, uniqueIDs(e.AssigneeIDs))
			if err != nil {
				return err
			}
			for _, id := range gone {
				if err := event(Comment{Type: CommentTypeAssignees, AssigneeID: id, RemovedAssignee: true}); err != nil {
					return err
				}
			}
			for _, id := range added {
				if err := event(Comment{Type: CommentTypeAssignees, AssigneeID: id}); err != nil {
					return err
				}
			}
			assigned, unassigned = len(added) > 0, len(gone) > 0
		}
		if is.IsClosed && !old.IsClosed {
			// Checked on the locked row: AddIssueDependency locks it too.
			if n, err := openDependencies(tx, is.ID); err != nil {
				return err
			} else if n > 0 {
				return ErrDependenciesOpen
			}
		}
		if is.IsClosed != old.IsClosed {
			kind, closed, typ := ActivityIssueReopened, -1, CommentTypeReopen
			is.ClosedUnix = 0
			if is.IsClosed {
				kind, closed, typ = ActivityIssueClosed, 1, CommentTypeClose
				is.ClosedUnix = now
			}
			if err := event(Comment{Type: typ}); err != nil {
				return err
			}
			if err := moveIssueCounters(tx, repoID, is.IsPull, 0, closed); err != nil {
				return err
			}
			if err := moveLabelClosedCounts(tx, is.ID, closed); err != nil {
				return err
			}
			if err := act(kind); err != nil {
				return err
			}
		} else {
			is.ClosedUnix = old.ClosedUnix
		}
		if is.Title != old.Title {
			if err := event(Comment{Type: CommentTypeChangeTitle, OldTitle: old.Title, NewTitle: is.Title}); err != nil {
				return err
			}
			if err := act(ActivityTitleChanged); err != nil {
				return err
			}
		}
		if is.Content != old.Content {
			// Mentions accumulate: someone mentioned once stays mentioned.
			if err := addMentions(tx, repoID, is.ID, is.Content); err != nil {
				return err
			}
		}
		if assigned {
			if err := act(ActivityAssigned); err != nil {
				return err
			}
		}
		if unassigned {
			// For webhooks only: nobody is notified of it.
			err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindUnassigned, RepoID: repoID, IssueID: is.ID,
				ActorID: actorID, CreatedUnix: now})
			if err != nil {
				return err
			}
		}
		is.UpdatedUnix = now
		if err := tx.Select("*").Save(&is).Error; err != nil {
			return errs.Wrap(err, "save issue")
		}
		out = is
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// replaceAssignees makes ids the issue's assignees; it returns who was
// added and who removed.
func replaceAssignees(tx *gorm.DB, is *Issue, ids []int64) (added, gone []int64, err error) {
	var cur []int64
	if err := tx.Model(&IssueAssignee{}).Where("issue_id = ?", is.ID).Order("assignee_id").Pluck("assignee_id", &cur).Error; err != nil {
		return nil, nil, errs.Wrap(err, "load assignees")
	}
	for _, id := range cur {
		if !slices.Contains(ids, id) {
			gone = append(gone, id)
		}
	}
	for _, id := range ids {
		if !slices.Contains(cur, id) {
			added = append(added, id)
		}
	}
	if len(gone) > 0 {
		if err := tx.Where("issue_id = ? AND assignee_id IN ?", is.ID, gone).Delete(&IssueAssignee{}).Error; err != nil {
			return nil, nil, errs.Wrap(err, "unassign")
		}
	}
	return added, gone, addAssignees(tx, is, added)
}

// DeleteIssue deletes an issue with its comments, assignees, labels,
// subscriptions, pending activities and attachment rows (its own and its comments'; the
// files go with the attachments sweep), and moves the repository's
// counters, in one transaction. ErrNotFound if there is no such issue.
func (s *Store) DeleteIssue(ctx context.Context, repoID, index int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var is Issue
		if err := s.forUpdate(tx).Where(`repo_id = ? AND "index" = ?`, repoID, index).Take(&is).Error; err != nil {
			return notFound(err)
		}
		if err := unlabelDeletedIssue(tx, &is); err != nil {
			return err
		}
		for _, m := range []any{&Comment{}, &IssueAssignee{}, &IssueLabel{}, &IssueMention{}, &Activity{}, &PullRequest{}, &IssueWatch{}, &TrackedTime{}, &Stopwatch{}} {
			if err := tx.Where("issue_id = ?", is.ID).Delete(m).Error; err != nil {
				return errs.Wrap(err, "delete issue rows")
			}
		}
		if err := deleteReactionsOf(tx, is.ID, 0); err != nil {
			return err
		}
		// After the comments: deleting them waited for any upload holding
		// a comment's lock (CreateAttachment), so this statement sees its
		// row, and later uploads find the comment gone. A comment's
		// attachment carries its issue's id.
		if err := tx.Where("repo_id = ? AND issue_id = ?", repoID, is.ID).Delete(&Attachment{}).Error; err != nil {
			return errs.Wrap(err, "delete issue attachments")
		}
		// Its dependencies both ways (the other issue may be in another
		// repository).
		if err := tx.Where("issue_id = ? OR dependency_id = ?", is.ID, is.ID).Delete(&IssueDependency{}).Error; err != nil {
			return errs.Wrap(err, "delete issue dependencies")
		}
		if err := tx.Delete(&Issue{}, is.ID).Error; err != nil {
			return errs.Wrap(err, "delete issue")
		}
		return moveIssueCounters(tx, repoID, is.IsPull, -1, -b2i(is.IsClosed))
	})
}

// CreateComment stores a new comment on its issue (c.IssueID, c.RepoID),
// counts it on the issue, moves the issue's update time and enqueues
// ActivityCommented, in one transaction. c's ID and times are filled in.
// ErrNotFound if the issue is not in the repository.
func (s *Store) CreateComment(ctx context.Context, c *Comment) error {
	now := time.Now().Unix()
	c.ID, c.CreatedUnix, c.UpdatedUnix = 0, now, now
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&Issue{}).Where("id = ? AND repo_id = ?", c.IssueID, c.RepoID).
			Updates(map[string]any{"num_comments": gorm.Expr("num_comments + 1"), "updated_unix": now})
		if res.Error != nil {
			return errs.Wrap(res.Error, "count comment")
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		if err := tx.Create(c).Error; err != nil {
			return errs.Wrap(err, "insert comment")
		}
		if err := addMentions(tx, c.RepoID, c.IssueID, c.Content); err != nil {
			return err
		}
		return s.enqueueActivity(tx, Activity{Kind: ActivityCommented, RepoID: c.RepoID, IssueID: c.IssueID, CommentID: c.ID, ActorID: c.PosterID, CreatedUnix: now})
	})
}

// CommentByID returns a comment of a repository; ErrNotFound if there is
// none with that id there (timeline events are not comments: they are
// not found here, nor by UpdateComment and DeleteComment).
func (s *Store) CommentByID(ctx context.Context, repoID, id int64) (*Comment, error) {
	var c Comment
	if err := s.db.WithContext(ctx).Where("id = ? AND repo_id = ? AND type = ?", id, repoID, CommentTypeComment).Take(&c).Error; err != nil {
		return nil, notFound(err)
	}
	return &c, nil
}

// UpdateComment loads a comment, applies change and saves its content,
// keeping CreatedUnix and moving UpdatedUnix. change may return an error
// to abort. ErrNotFound if there is no such comment in the repository.
func (s *Store) UpdateComment(ctx context.Context, repoID, id int64, change func(c *Comment) error) (*Comment, error) {
	var out Comment
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var c Comment
		if err := s.forUpdate(tx).Where("id = ? AND repo_id = ? AND type = ?", id, repoID, CommentTypeComment).Take(&c).Error; err != nil {
			return notFound(err)
		}
		if err := change(&c); err != nil {
			return err
		}
		c.UpdatedUnix = time.Now().Unix()
		if err := tx.Model(&Comment{}).Where("id = ?", id).
			Updates(map[string]any{"content": c.Content, "updated_unix": c.UpdatedUnix}).Error; err != nil {
			return errs.Wrap(err, "save comment")
		}
		out = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteComment deletes a comment with its attachment rows (the files go
// with the attachments sweep) and uncounts it on its issue, in one
// transaction. ErrNotFound if there is no such comment in the repository.
func (s *Store) DeleteComment(ctx context.Context, repoID, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var c Comment
		if err := s.forUpdate(tx).Where("id = ? AND repo_id = ? AND type = ?", id, repoID, CommentTypeComment).Take(&c).Error; err != nil {
			return notFound(err)
		}
		if err := tx.Delete(&Comment{}, c.ID).Error; err != nil {
			return errs.Wrap(err, "delete comment")
		}
		if err := tx.Where("comment_id = ?", c.ID).Delete(&Activity{}).Error; err != nil {
			return errs.Wrap(err, "delete comment activity")
		}
		if err := deleteReactionsOf(tx, c.IssueID, c.ID); err != nil {
			return err
		}
		// The comment's lock (above) orders this after any upload to it.
		if err := tx.Where("repo_id = ? AND comment_id = ?", repoID, c.ID).Delete(&Attachment{}).Error; err != nil {
			return errs.Wrap(err, "delete comment attachments")
		}
		return tx.Model(&Issue{}).Where("id = ? AND num_comments > 0", c.IssueID).
			Update("num_comments", gorm.Expr("num_comments - 1")).Error
	})
}

// CommentListOptions filters ListComments.
type CommentListOptions struct {
	RepoID  int64
	IssueID int64 // 0: every issue of the repository
	// Since, Before bound the update time (Unix seconds); 0: unbounded.
	Since, Before int64
	Offset, Limit int // Limit 0: all
}

// ListComments returns plain comments, oldest first, and how many match.
func (s *Store) ListComments(ctx context.Context, o CommentListOptions) ([]Comment, int64, error) {
	q := s.db.WithContext(ctx).Model(&Comment{}).Where("repo_id = ? AND type = ?", o.RepoID, CommentTypeComment)
	if o.IssueID != 0 {
		q = q.Where("issue_id = ?", o.IssueID)
	}
	if o.Since != 0 {
		q = q.Where("updated_unix >= ?", o.Since)
	}
	if o.Before != 0 {
		q = q.Where("updated_unix <= ?", o.Before)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count comments")
	}
	q = q.Order("created_unix").Order("id").Offset(o.Offset)
	if o.Limit > 0 {
		q = q.Limit(o.Limit)
	}
	out := []Comment{}
	if err := q.Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list comments")
	}
	return out, total, nil
}

// RepositoriesByID loads repositories by id (for rendering issues of many
// repositories); unknown ids are absent.
func (s *Store) RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*Repository, error) {
	out := map[int64]*Repository{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Repository
	if err := s.db.WithContext(ctx).Where("id IN ?", uniqueIDs(ids)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load repositories")
	}
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}
