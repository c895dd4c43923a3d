package store

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gorm.io/gorm"

	"forge/services/errs"
)

// A batch of issue creations run without savepoints (issue_batch.go)
// writes its rows with statements of many rows each, not one creation
// after another (issue 16): per repository the issue numbers are
// allocated and the counters moved once, and the issue rows, the
// mentions, the activities and the webhook events of all the creations
// are one statement each. On PostgreSQL that is two statements, two round
// trips while the issue_index row is locked, for the whole batch instead
// of three per creation; on SQLite the statements' fixed cost (parsing,
// a B-tree descent per index) is paid once per batch. What a creation
// sets besides its row (milestone, assignees, labels, closed state) is
// stored per creation, as insertIssue stores it. Any failure fails the
// batch, which then runs again one creation at a time in savepoints.

// insertIssues is insertIssue for each of cs, whose repositories are in
// ascending order (so that two processes lock issue_index rows in the
// same order).
func (s *Store) insertIssues(tx *gorm.DB, cs []*issueCreation) error {
	if len(cs) == 0 {
		return nil
	}
	r := s.raw(tx)
	issueRows, activityRows := r.inserterFor(tx, &Issue{}), r.inserterFor(tx, &Activity{})
	if issueRows == nil || activityRows == nil || fieldIndex(issueRows, "Index") < 0 {
		// A hook, default or serializer on Issue or Activity needs gorm's
		// Create, which these statements would bypass.
		return errors.New("create issue: the issue or activity model needs gorm's Create")
	}
	for start := 0; start < len(cs); {
		end := start + 1
		for end < len(cs) && cs[end].n.RepoID == cs[start].n.RepoID && cs[end].n.IsPull == cs[start].n.IsPull {
			end++
		}
		if err := r.allocAndInsertIssues(tx, issueRows, cs[start:end]); err != nil {
			return err
		}
		start = end
	}
	for _, c := range cs {
		if err := s.addIssueSettings(tx, c.n, c.now); err != nil {
			return err
		}
	}
	return r.enqueueIssueActivities(tx, activityRows, cs)
}

func fieldIndex(ins *rowInserter, name string) int {
	for i, f := range ins.fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// A group's statements: k numbers allocated and k issues counted. The
// issue_index row stays locked by the upsert until commit, so the next
// creator waits for it and then sees the new value; a rollback takes the
// increment back with it.
var (
	allocIssueIndexes = newSQLText(`INSERT INTO issue_index (repo_id, max_index) VALUES (?, ?)
ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index + excluded.max_index
RETURNING max_index`)
	addIssuesCounts = newSQLText(`UPDATE repositories SET num_issues = num_issues + ?, num_closed_issues = num_closed_issues + ? WHERE id = ?`)
	addPullsCounts  = newSQLText(`UPDATE repositories SET num_pulls = num_pulls + ?, num_closed_pulls = num_closed_pulls + ? WHERE id = ?`)
)

// numberGroup numbers group's issues in their order, the last one last.
func numberGroup(group []*issueCreation, last int64) {
	for i, c := range group {
		c.n.Index = last - int64(len(group)-1-i)
	}
}

// addIssueCounts adds n issues (or pull requests), closed of them closed,
// to the counters of repository repoID. ErrNotFound if it does not exist.
func (r rawTx) addIssueCounts(pull bool, n, closed int, repoID int64) error {
	counts := addIssuesCounts
	if pull {
		counts = addPullsCounts
	}
	res, err := r.exec(counts, n, closed, repoID)
	if err != nil {
		return errs.Wrap(err, "move issue counters")
	}
	if moved, err := res.RowsAffected(); err != nil {
		return errs.Wrap(err, "move issue counters")
	} else if moved == 0 {
		return ErrNotFound
	}
	return nil
}

// issueRowsTexts caches the insert of k issue rows: issueRowsKey → sqlText.
var issueRowsTexts sync.Map

type issueRowsKey struct {
	k        int
	pull     bool
	postgres bool
}

// issueRowsText is the insert of k rows of ins (issues), returning each
// row's id and number. On SQLite the numbers are arguments. On PostgreSQL
// the statement, one text for any k, also allocates them and moves the
// counters (data-modifying CTEs), and takes the rows as JSON records: the
// i-th record's number is the allocation's last minus k plus i (from 1),
// and nothing is inserted when the repository does not exist (the
// counters' update returned no row).
func (r rawTx) issueRowsText(tx *gorm.DB, ins *rowInserter, k int, pull bool) sqlText {
	if r.s.postgres {
		k = 0 // one text whatever the batch's size
	}
	key := issueRowsKey{k, pull, r.s.postgres}
	if v, ok := issueRowsTexts.Load(key); ok {
		return v.(sqlText)
	}
	index := fieldIndex(ins, "Index")
	var b strings.Builder
	if r.s.postgres {
		counts := addIssuesCounts
		if pull {
			counts = addPullsCounts
		}
		b.WriteString("WITH idx AS (" + allocIssueIndexes.sqlite + "),\ncnt AS (" +
			strings.Replace(counts.sqlite, "WHERE id = ?", "WHERE id = ? RETURNING id", 1) + ")\n")
		b.WriteString("INSERT INTO " + ins.into + " (" + ins.cols + ")\nSELECT ")
		for j, f := range ins.fields {
			if j > 0 {
				b.WriteString(", ")
			}
			if j == index {
				b.WriteString("idx.max_index - CAST(? AS BIGINT) + v.ordinality")
				continue
			}
			b.WriteString("v." + dialectQuote(tx, f.DBName))
		}
		b.WriteString("\nFROM json_populate_recordset(CAST(NULL AS " + ins.into + "), CAST(? AS JSON)) WITH ORDINALITY AS v, idx, cnt")
		b.WriteString(" RETURNING " + ins.returning + ", " + dialectQuote(tx, "index"))
		t := newSQLText(b.String())
		issueRowsTexts.Store(key, t)
		return t
	}
	b.WriteString("INSERT INTO " + ins.into + " (" + ins.cols + ") VALUES " + valuesRows(k, placeholders(len(ins.fields))))
	b.WriteString(" RETURNING " + ins.returning + ", " + dialectQuote(tx, "index"))
	t := newSQLText(b.String())
	issueRowsTexts.Store(key, t)
	return t
}

// allocAndInsertIssues allocates the numbers of group (creations of one
// kind in one repository), moves the repository's counters and inserts
// the rows, setting each issue's ID and Index. ErrNotFound if the
// repository does not exist.
func (r rawTx) allocAndInsertIssues(tx *gorm.DB, ins *rowInserter, group []*issueCreation) error {
	first := group[0].n
	k := len(group)
	closed := 0
	for _, c := range group {
		closed += b2i(c.n.IsClosed)
	}
	index := fieldIndex(ins, "Index")
	if !r.s.postgres {
		var last int64
		if err := r.queryRow(allocIssueIndexes, []any{first.RepoID, k}, &last); err != nil {
			return errs.Wrap(err, "allocate issue index")
		}
		if err := r.addIssueCounts(first.IsPull, k, closed, first.RepoID); err != nil {
			return err
		}
		numberGroup(group, last)
	}
	var args []any
	if r.s.postgres {
		rows := make([]any, len(group))
		for i, c := range group {
			c.n.ID = 0
			rows[i] = &c.n.Issue
		}
		records, err := r.jsonRecords(ins, rows, index)
		if err != nil {
			return errs.Wrap(err, "insert issues")
		}
		args = []any{first.RepoID, k, k, closed, first.RepoID, k, records}
	} else {
		args = make([]any, 0, k*len(ins.fields))
		for _, c := range group {
			c.n.ID = 0
			args = append(args, ins.args(r.ctx, &c.n.Issue)...)
		}
	}
	r.counted()
	rows, err := r.conn.QueryContext(r.ctx, r.text(r.issueRowsText(tx, ins, k, first.IsPull)), args...)
	if err != nil {
		return errs.Wrap(r.fail(err), "insert issues")
	}
	defer rows.Close()
	byIndex := make(map[int64]int64, k) // number → id
	for rows.Next() {
		var id, idx int64
		if err := rows.Scan(&id, &idx); err != nil {
			return errs.Wrap(r.fail(err), "insert issues")
		}
		byIndex[idx] = id
	}
	if err := rows.Err(); err != nil {
		return errs.Wrap(r.fail(err), "insert issues")
	}
	if len(byIndex) == 0 && r.s.postgres {
		return ErrNotFound // no repository: no counters moved, nothing inserted
	}
	if len(byIndex) != k {
		return errors.New("insert issues: not every row was returned")
	}
	if r.s.postgres {
		numberGroup(group, slices.Max(slices.Collect(maps.Keys(byIndex))))
	}
	for _, c := range group {
		id, ok := byIndex[c.n.Index]
		if !ok {
			return errors.New("insert issues: a row was not returned")
		}
		c.n.ID = id
	}
	return nil
}

// enqueueIssueActivities enqueues ActivityIssueCreated for each of cs and
// records their mentions: on PostgreSQL one statement (data-modifying
// CTEs), on SQLite one for each of mentions, activities and webhook
// events.
func (r rawTx) enqueueIssueActivities(tx *gorm.DB, ins *rowInserter, cs []*issueCreation) error {
	var repoIDs, issueIDs []int64
	var names []string
	for _, c := range cs {
		for _, name := range mentionedNames(c.n.Content) {
			repoIDs, issueIDs, names = append(repoIDs, c.n.RepoID), append(issueIDs, c.n.ID), append(names, name)
		}
	}
	// The mentions: on PostgreSQL as three arrays, so that the statement's
	// text (prepared once per connection and text) does not vary with them.
	mentions, mentionArgs := "", []any{repoIDs, issueIDs, names}
	switch {
	case len(names) == 0:
	case r.s.postgres:
		mentions = `INSERT INTO issue_mentions (repo_id, issue_id, user_id)
SELECT v.repo_id, v.issue_id, u.id FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[])) AS v (repo_id, issue_id, name)
JOIN users u ON u.lower_name = v.name WHERE TRUE ON CONFLICT DO NOTHING`
	default:
		mentionArgs = mentionArgs[:0]
		for i := range names {
			mentionArgs = append(mentionArgs, repoIDs[i], issueIDs[i], names[i])
		}
		mentions = `INSERT INTO issue_mentions (repo_id, issue_id, user_id)
SELECT v.column1, v.column2, u.id FROM (VALUES ` + valuesRows(len(names), "CAST(? AS BIGINT), CAST(? AS BIGINT), ?") + `) AS v
JOIN users u ON u.lower_name = v.column3 WHERE TRUE ON CONFLICT DO NOTHING`
	}
	acts := make([]any, len(cs))
	for i, c := range cs {
		a := &Activity{Kind: ActivityIssueCreated, RepoID: c.n.RepoID, IssueID: c.n.ID, ActorID: c.n.PosterID, CreatedUnix: c.now}
		newActivity(a) // its webhook event has the same kind, repository, issue, actor and time
		acts[i] = a
	}
	if r.s.postgres {
		// One text whatever the batch: the activities as JSON records,
		// which are the webhook events' too (the same column names).
		records, err := r.jsonRecords(ins, acts, -1)
		if err != nil {
			return errs.Wrap(err, "enqueue activities")
		}
		var cols []string
		for _, f := range ins.fields {
			cols = append(cols, "v."+dialectQuote(tx, f.DBName))
		}
		text := "WITH a AS (INSERT INTO " + ins.into + " (" + ins.cols + ")\nSELECT " + strings.Join(cols, ", ") +
			" FROM json_populate_recordset(CAST(NULL AS " + ins.into + "), CAST(? AS JSON)) AS v)"
		args := []any{records}
		if mentions != "" {
			text += ",\nm AS (" + mentions + ")"
			args = append(args, mentionArgs...)
		}
		text += "\n" + insertIssueHookEvents("FROM json_populate_recordset(CAST(NULL AS hook_events), CAST(? AS JSON)) AS v")
		res, err := r.exec(newSQLText(text), append(args, records, true, true)...)
		if err != nil {
			return errs.Wrap(err, "enqueue activities")
		}
		r.hookEventsWritten(res)
	} else {
		if mentions != "" {
			if _, err := r.exec(newSQLText(mentions), mentionArgs...); err != nil {
				return errs.Wrap(err, "record mentions")
			}
		}
		activityArgs := make([]any, 0, len(cs)*len(ins.fields))
		hookArgs := make([]any, 0, len(cs)*5+2)
		for _, a := range acts {
			a := a.(*Activity)
			activityArgs = append(activityArgs, ins.args(r.ctx, a)...)
			hookArgs = append(hookArgs, a.Kind, a.RepoID, a.IssueID, a.ActorID, a.CreatedUnix)
		}
		activities := "INSERT INTO " + ins.into + " (" + ins.cols + ") VALUES " +
			valuesRows(len(cs), placeholders(len(ins.fields)))
		if _, err := r.exec(newSQLText(activities), activityArgs...); err != nil {
			return errs.Wrap(err, "enqueue activities")
		}
		from := "FROM (SELECT column1 AS kind, column2 AS repo_id, column3 AS issue_id, column4 AS actor_id, column5 AS created_unix\nFROM (VALUES " +
			valuesRows(len(cs), "CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT)") + ")) AS v"
		res, err := r.exec(newSQLText(insertIssueHookEvents(from)), append(hookArgs, true, true)...)
		if err != nil {
			return errs.Wrap(err, "enqueue webhook events")
		}
		r.hookEventsWritten(res)
	}
	for range cs {
		r.s.activityInsertedIn(r.ctx)
	}
	return nil
}

// insertIssueHookEvents inserts the webhook events of issue creations
// from rows v (with columns kind, repo_id, issue_id, actor_id and
// created_unix; then the two TRUEs of active and is_system), each only
// when a hook could receive it: as insertHookEventSQL, with the
// repository of each row.
func insertIssueHookEvents(from string) string {
	return `INSERT INTO hook_events (kind, repo_id, issue_id, comment_id, release_id, actor_id, hook_id, ref,
	old_sha, new_sha, extra, claimed_until, created_unix)
SELECT v.kind, v.repo_id, v.issue_id, 0, 0, v.actor_id, 0, '', '', '', '', 0, v.created_unix
` + from + `
WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.active = ? AND (w.repo_id = v.repo_id
	OR (w.repo_id = 0 AND w.owner_id <> 0 AND w.owner_id = (SELECT owner_id FROM repositories WHERE id = v.repo_id))
	OR (w.repo_id = 0 AND w.owner_id = 0 AND w.is_system = ?)))`
}

// jsonRecords is rows (pointers to structs of ins's model) as a JSON
// array of objects keyed by column, for json_populate_recordset on
// PostgreSQL, leaving out the field at skip (-1: none).
func (r rawTx) jsonRecords(ins *rowInserter, rows []any, skip int) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		sep := ""
		for j, v := range ins.args(r.ctx, row) {
			if j == skip {
				continue
			}
			b.WriteString(sep)
			sep = ","
			val, err := json.Marshal(v)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Quote(ins.fields[j].DBName) + ":")
			b.Write(val)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String(), nil
}

// placeholders is n placeholders, separated by commas.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// valuesRows is n rows of a VALUES list, each (row).
func valuesRows(n int, row string) string {
	return strings.TrimSuffix(strings.Repeat("("+row+"), ", n), ", ")
}
