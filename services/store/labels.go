package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// Labels belong to a repository (repo_id set, org_id 0) or to an
// organization (org_id set, repo_id 0); an organization's labels apply to
// the issues of its repositories. Label names are not unique (as in
// Gitea): lookups by name take the oldest.

// LabelOwner names whose labels an operation reads or writes: exactly one
// of RepoID and OrgID is set.
type LabelOwner struct {
	RepoID int64
	OrgID  int64
}

func (o LabelOwner) scope(q *gorm.DB) *gorm.DB {
	if o.OrgID != 0 {
		return q.Where("org_id = ? AND repo_id = 0", o.OrgID)
	}
	return q.Where("repo_id = ? AND org_id = 0", o.RepoID)
}

// ExclusiveScope is the scope of an exclusive label: the part of its name
// before the last "/", when that "/" is neither the first nor the last
// character. Non-exclusive labels, and names without such a "/", have
// none (""). Two labels with the same non-empty scope exclude each other
// on an issue.
func ExclusiveScope(name string, exclusive bool) string {
	if !exclusive {
		return ""
	}
	i := strings.LastIndex(name, "/")
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[:i]
}

// Scope is the label's exclusive scope (ExclusiveScope).
func (l *Label) Scope() string { return ExclusiveScope(l.Name, l.Exclusive) }

// CreateLabel stores l as a new label of l.RepoID or l.OrgID; l.ID and
// the times are filled in.
func (s *Store) CreateLabel(ctx context.Context, l *Label) error {
	now := time.Now().Unix()
	l.ID, l.NumIssues, l.NumClosedIssues = 0, 0, 0
	l.CreatedUnix, l.UpdatedUnix = now, now
	return s.db.WithContext(ctx).Create(l).Error
}

// LabelByID returns one of o's labels; ErrNotFound if o has none with
// that id.
func (s *Store) LabelByID(ctx context.Context, o LabelOwner, id int64) (*Label, error) {
	var l Label
	if err := o.scope(s.db.WithContext(ctx)).Where("id = ?", id).Take(&l).Error; err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// LabelByName returns o's oldest label with that exact name; ErrNotFound
// if there is none.
func (s *Store) LabelByName(ctx context.Context, o LabelOwner, name string) (*Label, error) {
	var l Label
	if err := o.scope(s.db.WithContext(ctx)).Where("name = ?", name).Order("id").Take(&l).Error; err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// Label list orders (Gitea's sort query values).
const (
	LabelSortName        = ""
	LabelSortNameDesc    = "reversealphabetically"
	LabelSortLeastIssues = "leastissues"
	LabelSortMostIssues  = "mostissues"
)

// LabelListOptions selects a page of an owner's labels.
type LabelListOptions struct {
	Owner LabelOwner
	// Sort is one of the LabelSort* values; anything else sorts by name.
	Sort   string
	Offset int
	Limit  int
}

// ListLabels returns a page of o.Owner's labels and how many it has.
func (s *Store) ListLabels(ctx context.Context, o LabelListOptions) ([]Label, int64, error) {
	q := o.Owner.scope(s.db.WithContext(ctx).Model(&Label{}))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	switch o.Sort {
	case LabelSortNameDesc:
		q = q.Order("name DESC")
	case LabelSortLeastIssues:
		q = q.Order("num_issues ASC").Order("name")
	case LabelSortMostIssues:
		q = q.Order("num_issues DESC").Order("name")
	default:
		q = q.Order("name")
	}
	rows, err := q.Select(labelColumns).Order("id").Offset(o.Offset).Limit(o.Limit).Rows()
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Label{}
	for rows.Next() {
		var l Label
		if err := rows.Scan(labelFields(&l)...); err != nil {
			return nil, 0, err
		}
		out = append(out, l)
	}
	return out, total, rows.Err()
}

// labelColumns are the columns of Label in the order labelFields scans
// them: a page of labels is read without gorm's reflection per value
// (about a third of a labels page's time). Keep the two in step with
// Label (TestLabelPageFields).
const labelColumns = "labels.id, labels.repo_id, labels.org_id, labels.name, labels.exclusive, labels.description, " +
	"labels.color, labels.num_issues, labels.num_closed_issues, labels.archived_unix, labels.created_unix, labels.updated_unix"

func labelFields(l *Label) []any {
	return []any{&l.ID, &l.RepoID, &l.OrgID, &l.Name, &l.Exclusive, &l.Description,
		&l.Color, &l.NumIssues, &l.NumClosedIssues, &l.ArchivedUnix, &l.CreatedUnix, &l.UpdatedUnix}
}

// UpdateLabel loads one of o's labels, applies change and saves it in one
// transaction (the row is locked on PostgreSQL, so concurrent edits apply
// one after the other); change may return an error to abort. ErrNotFound
// if o has no such label. Counters and owner are never changed here.
func (s *Store) UpdateLabel(ctx context.Context, o LabelOwner, id int64, change func(l *Label) error) (*Label, error) {
	var out Label
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var l Label
		if err := o.scope(s.forUpdate(tx)).Where("id = ?", id).Take(&l).Error; err != nil {
			return notFound(err)
		}
		keep := l
		if err := change(&l); err != nil {
			return err
		}
		l.ID, l.RepoID, l.OrgID = keep.ID, keep.RepoID, keep.OrgID
		l.NumIssues, l.NumClosedIssues, l.CreatedUnix = keep.NumIssues, keep.NumClosedIssues, keep.CreatedUnix
		l.UpdatedUnix = time.Now().Unix()
		if err := tx.Model(&Label{}).Where("id = ?", id).Updates(map[string]any{
			"name": l.Name, "exclusive": l.Exclusive, "description": l.Description, "color": l.Color,
			"archived_unix": l.ArchivedUnix, "updated_unix": l.UpdatedUnix,
		}).Error; err != nil {
			return err
		}
		out = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteLabel deletes one of o's labels and takes it off every issue, in
// one transaction; ErrNotFound if o has no such label.
func (s *Store) DeleteLabel(ctx context.Context, o LabelOwner, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := o.scope(tx).Where("id = ?", id).Delete(&Label{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return tx.Where("label_id = ?", id).Delete(&IssueLabel{}).Error
	})
}

// IssueLabelMode is how EditIssueLabels changes an issue's labels.
type IssueLabelMode int

const (
	// IssueLabelsAdd adds the named labels; an exclusive one replaces the
	// issue's other labels of its scope.
	IssueLabelsAdd IssueLabelMode = iota
	// IssueLabelsReplace makes the named labels the issue's labels.
	IssueLabelsReplace
	// IssueLabelsRemove takes the named labels off the issue.
	IssueLabelsRemove
)

// IssueLabelEdit is a change of one issue's labels.
type IssueLabelEdit struct {
	RepoID int64
	// OrgID is the repository's owner: its organization labels also apply
	// (a user has none, so passing a user's id is harmless).
	OrgID int64
	// Index is the issue's number in the repository.
	Index   int64
	ActorID int64
	Mode    IssueLabelMode
	// IDs name labels of the repository or of OrgID; Names name labels of
	// the repository only (as Gitea). Labels that do not resolve are
	// ignored.
	IDs   []int64
	Names []string
}

// LabelScopeConflict is the error of a request that names two exclusive
// labels of one scope: 422 naming the scope (forge refuses what Gitea
// 1.22 resolves silently).
func LabelScopeConflict(scope string) error {
	return errs.Newf(errs.Invalid, "labels of the exclusive scope %q are mutually exclusive: at most one of them can be set on an issue", scope)
}

// EditIssueLabels changes the labels of the issue Index of RepoID and
// returns its labels afterwards, sorted by name. It runs in one
// transaction with the issue's row locked (PostgreSQL; SQLite serialises
// writers), so concurrent changes of one issue apply one after the other
// and the exclusive rule holds across them. ErrNotFound when the issue
// does not exist; LabelScopeConflict when an add or replace names two
// labels of one exclusive scope (nothing is changed then).
func (s *Store) EditIssueLabels(ctx context.Context, e IssueLabelEdit) ([]Label, error) {
	if len(e.IDs)+len(e.Names) > MaxLabelsPerRequest {
		return nil, tooManyLabels()
	}
	var out []Label
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var issue Issue
		if err := s.forUpdate(tx).Where("repo_id = ? AND \"index\" = ?", e.RepoID, e.Index).Take(&issue).Error; err != nil {
			return notFound(err)
		}
		named, err := resolveLabels(tx, e.RepoID, e.OrgID, e.IDs, e.Names)
		if err != nil {
			return err
		}
		out, err = s.applyIssueLabels(tx, &issue, e.ActorID, e.Mode, named, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MaxLabelsPerRequest bounds the labels one call may name, the store's own
// guard of its queries. Requests declare the same bound on their label
// lists (max_items: 100, "[Labels]: MaxSize"), checked before any handler.
const MaxLabelsPerRequest = 100

// labelNewIssue puts labels (ids of the repository's or orgID's labels;
// others are ignored) on an issue CreateIssue is inserting, inside its
// transaction, with the same rules as EditIssueLabels. No separate
// activity: the issue's creation is the event.
func (s *Store) labelNewIssue(tx *gorm.DB, is *Issue, orgID int64, ids []int64) error {
	if len(ids) > MaxLabelsPerRequest {
		return tooManyLabels()
	}
	named, err := resolveLabels(tx, is.RepoID, orgID, ids, nil)
	if err != nil {
		return err
	}
	_, err = s.applyIssueLabels(tx, is, is.PosterID, IssueLabelsReplace, named, false)
	return err
}

func tooManyLabels() error {
	return errs.Newf(errs.Invalid, "[Labels]: at most %d labels", MaxLabelsPerRequest)
}

// resolveLabels loads the labels ids and names designate among the
// repository's labels and (ids only) the organization's.
func resolveLabels(tx *gorm.DB, repoID, orgID int64, ids []int64, names []string) ([]Label, error) {
	var out []Label
	if len(ids) > 0 {
		var found []Label
		err := tx.Where("id IN ? AND ((repo_id = ? AND org_id = 0) OR (org_id = ? AND org_id <> 0 AND repo_id = 0))", ids, repoID, orgID).
			Find(&found).Error
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	if len(names) > 0 {
		var found []Label
		if err := tx.Where("repo_id = ? AND org_id = 0 AND name IN ?", repoID, names).Find(&found).Error; err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// applyIssueLabels is the one place the exclusive rule lives. Inside tx,
// with issue's row already locked, it changes issue's labels by mode
// with the given labels, keeps the labels' counters, records the
// activity, and returns the resulting labels sorted by name. For add and
// replace, two given labels of one exclusive scope are refused
// (LabelScopeConflict); an added exclusive label takes the issue's other
// labels of its scope off.
func (s *Store) applyIssueLabels(tx *gorm.DB, issue *Issue, actorID int64, mode IssueLabelMode, given []Label, record bool) ([]Label, error) {
	byID := map[int64]Label{}
	for _, l := range given {
		byID[l.ID] = l
	}
	if mode != IssueLabelsRemove {
		seen := map[string]int64{}
		for _, l := range sortedLabels(byID) {
			sc := l.Scope()
			if sc == "" {
				continue
			}
			if other, dup := seen[sc]; dup && other != l.ID {
				return nil, LabelScopeConflict(sc)
			}
			seen[sc] = l.ID
		}
	}
	var current []Label
	if err := tx.Joins("JOIN issue_labels ON issue_labels.label_id = labels.id").
		Where("issue_labels.issue_id = ?", issue.ID).Find(&current).Error; err != nil {
		return nil, err
	}
	// Lock every label this change may count, in one statement in
	// ascending id (PostgreSQL): the counter updates below then take no
	// new lock, so two issues swapping labels cannot deadlock, and a label
	// deleted meanwhile is seen gone (and skipped) instead of being put
	// on the issue after its delete.
	if s.postgres {
		ids := make([]int64, 0, len(byID)+len(current))
		for id := range byID {
			ids = append(ids, id)
		}
		for _, l := range current {
			ids = append(ids, l.ID)
		}
		if len(ids) > 0 {
			var locked []int64
			if err := s.forUpdate(tx.Model(&Label{})).Where("id IN ?", ids).Order("id").Pluck("id", &locked).Error; err != nil {
				return nil, err
			}
			for id := range byID {
				if !slices.Contains(locked, id) {
					delete(byID, id)
				}
			}
		}
	}
	target := map[int64]Label{}
	switch mode {
	case IssueLabelsAdd:
		scopes := map[string]bool{}
		for _, l := range byID {
			if sc := l.Scope(); sc != "" {
				scopes[sc] = true
			}
		}
		for _, l := range current {
			if _, named := byID[l.ID]; named || !scopes[l.Scope()] {
				target[l.ID] = l
			}
		}
		for id, l := range byID {
			target[id] = l
		}
	case IssueLabelsReplace:
		target = byID
	case IssueLabelsRemove:
		for _, l := range current {
			if _, named := byID[l.ID]; !named {
				target[l.ID] = l
			}
		}
	}
	var add, remove []int64
	for id := range target {
		if !containsLabel(current, id) {
			add = append(add, id)
		}
	}
	for _, l := range current {
		if _, keep := target[l.ID]; !keep {
			remove = append(remove, l.ID)
		}
	}
	closed := 0
	if issue.IsClosed {
		closed = 1
	}
	for _, id := range add {
		if err := tx.Create(&IssueLabel{RepoID: issue.RepoID, IssueID: issue.ID, LabelID: id}).Error; err != nil {
			return nil, err
		}
	}
	if len(remove) > 0 {
		if err := tx.Where("issue_id = ? AND label_id IN ?", issue.ID, remove).Delete(&IssueLabel{}).Error; err != nil {
			return nil, err
		}
	}
	delta := map[int64]int{}
	for _, id := range add {
		delta[id] = 1
	}
	for _, id := range remove {
		delta[id] = -1
	}
	if err := bumpLabelCounts(tx, delta, closed); err != nil {
		return nil, err
	}
	if len(add)+len(remove) > 0 {
		now := time.Now().Unix()
		if err := tx.Model(&Issue{}).Where("id = ?", issue.ID).Update("updated_unix", now).Error; err != nil {
			return nil, err
		}
		// Timeline events, removals first (as Gitea), each in label name order.
		events := make([]Comment, 0, len(add)+len(remove))
		for _, l := range sortedLabels(labelsAmong(current, remove)) {
			events = append(events, Comment{LabelID: l.ID})
		}
		for _, l := range sortedLabels(labelsAmong(sortedLabels(target), add)) {
			events = append(events, Comment{LabelID: l.ID, Content: "1"})
		}
		for _, c := range events {
			c.Type, c.RepoID, c.IssueID, c.PosterID, c.CreatedUnix = CommentTypeLabel, issue.RepoID, issue.ID, actorID, now
			if err := recordEvent(tx, c); err != nil {
				return nil, err
			}
		}
		if !record {
			return sortedLabels(target), nil
		}
		act := Activity{Kind: ActivityLabeled, RepoID: issue.RepoID, IssueID: issue.ID, ActorID: actorID, CreatedUnix: now}
		if err := s.enqueueActivity(tx, act); err != nil {
			return nil, fmt.Errorf("record label activity: %w", err)
		}
	}
	return sortedLabels(target), nil
}

// bumpLabelCounts moves the issue counters of labels by their delta (and
// the closed counter too for a closed issue). Each is an atomic UPDATE,
// so concurrent changes of different issues never lose a count, and they
// run in ascending label id so two transactions take the label rows'
// locks in one order (no deadlock on PostgreSQL).
func bumpLabelCounts(tx *gorm.DB, delta map[int64]int, closed int) error {
	ids := make([]int64, 0, len(delta))
	for id := range delta {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		d := delta[id]
		if err := tx.Model(&Label{}).Where("id = ?", id).Updates(map[string]any{
			"num_issues":        gorm.Expr("num_issues + ?", d),
			"num_closed_issues": gorm.Expr("num_closed_issues + ?", d*closed),
		}).Error; err != nil {
			return err
		}
	}
	return nil
}

// moveLabelClosedCounts moves num_closed_issues of every label on an
// issue by delta (+1 when it closes, -1 when it reopens), inside the
// transaction that changes the issue's state (the issue row locked), in
// ascending label id like bumpLabelCounts.
func moveLabelClosedCounts(tx *gorm.DB, issueID int64, delta int) error {
	var ids []int64
	if err := tx.Model(&IssueLabel{}).Where("issue_id = ?", issueID).Order("label_id").Pluck("label_id", &ids).Error; err != nil {
		return err
	}
	for _, id := range ids {
		if err := tx.Model(&Label{}).Where("id = ?", id).
			Update("num_closed_issues", gorm.Expr("num_closed_issues + ?", delta)).Error; err != nil {
			return err
		}
	}
	return nil
}

// unlabelDeletedIssue moves the counters of the labels on an issue that
// is being deleted (DeleteIssue deletes the issue_labels rows).
func unlabelDeletedIssue(tx *gorm.DB, issue *Issue) error {
	var ids []int64
	if err := tx.Model(&IssueLabel{}).Where("issue_id = ?", issue.ID).Pluck("label_id", &ids).Error; err != nil {
		return err
	}
	delta := map[int64]int{}
	for _, id := range ids {
		delta[id] = -1
	}
	closed := 0
	if issue.IsClosed {
		closed = 1
	}
	return bumpLabelCounts(tx, delta, closed)
}

// labelsAmong is the set of the labels of ls whose id is in ids.
func labelsAmong(ls []Label, ids []int64) map[int64]Label {
	out := map[int64]Label{}
	for _, l := range ls {
		if slices.Contains(ids, l.ID) {
			out[l.ID] = l
		}
	}
	return out
}

func containsLabel(ls []Label, id int64) bool {
	for _, l := range ls {
		if l.ID == id {
			return true
		}
	}
	return false
}

// sortedLabels lists a set of labels by name, then id (Gitea's order).
func sortedLabels(set map[int64]Label) []Label {
	out := make([]Label, 0, len(set))
	for _, l := range set {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// IssueLabels returns the labels of the issue Index of repoID, sorted by
// name; ErrNotFound when the issue does not exist.
func (s *Store) IssueLabels(ctx context.Context, repoID, index int64) ([]Label, error) {
	db := s.db.WithContext(ctx)
	var issue Issue
	if err := db.Select("id").Where("repo_id = ? AND \"index\" = ?", repoID, index).Take(&issue).Error; err != nil {
		return nil, notFound(err)
	}
	out := []Label{}
	err := db.Joins("JOIN issue_labels ON issue_labels.label_id = labels.id").
		Where("issue_labels.issue_id = ?", issue.ID).Order("labels.name").Order("labels.id").Find(&out).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		err = nil
	}
	return out, err
}
