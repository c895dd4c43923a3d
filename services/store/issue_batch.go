package store

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"gorm.io/gorm"
)

// Concurrent issue creations commit together. On SQLite creations queue
// for the one writer (sqlitewriter.go) and each one's transaction (BEGIN,
// six statements, COMMIT writing the WAL frames of every page it touched)
// held the lock alone; on PostgreSQL each held its repository's
// issue_index row until its commit had flushed the WAL to disk, so
// creations in one repository went one flush at a time. Here
// the creations that arrive while one transaction runs wait for it to
// end, and the first of them then runs all of them in one transaction,
// each in a savepoint of its own: a creation that fails (an unknown
// repository or milestone) is rolled back alone, with its issue number,
// and reports its own error; the others commit. As creations rarely fail,
// a batch runs first without savepoints and only when one of its
// creations fails is it rolled back and run again with them (issue 16:
// SAVEPOINT and RELEASE were two of seven round trips per creation on
// PostgreSQL), and it runs as statements of many rows each, one for all
// its issue rows, one for all its activities and so on (issue_rows.go).
// Nothing is answered
// before the commit, so a crash loses only unanswered creations, all of a
// transaction's or none; a transaction that fails as a whole is retried
// one creation at a time. A creation that arrives alone runs alone,
// without a savepoint: the same statements as before.

// issueBatchMax bounds the creations of one transaction, and so how long
// it holds the writer.
const issueBatchMax = 64

// issueBatch is the queue of creations waiting for a transaction.
type issueBatch struct {
	mu      sync.Mutex
	pending []*issueCreation
	running bool // a leader is running a transaction
}

// issueCreation is one CreateIssue call waiting in the queue.
type issueCreation struct {
	ctx context.Context
	n   *NewIssue
	now int64
	err error
	// wake receives true when this creation is to run the next
	// transaction (it leads), false when another ran it (err is its
	// outcome).
	wake chan bool
}

// createIssueBatched is CreateIssue.
func (s *Store) createIssueBatched(ctx context.Context, n *NewIssue, now int64) error {
	c := &issueCreation{ctx: ctx, n: n, now: now, wake: make(chan bool, 1)}
	q := &s.issueBatch
	q.mu.Lock()
	q.pending = append(q.pending, c)
	lead := !q.running
	q.running = true
	q.mu.Unlock()
	if !lead && !<-c.wake {
		return c.err
	}
	// This creation leads: it runs what is queued (itself among them),
	// then hands the lead to the first creation queued meanwhile.
	q.mu.Lock()
	batch := q.pending[:min(len(q.pending), issueBatchMax)]
	q.pending = q.pending[len(batch):]
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		var next *issueCreation
		if len(q.pending) > 0 {
			next = q.pending[0]
		} else {
			q.running = false
		}
		q.mu.Unlock()
		if next != nil {
			next.wake <- true
		}
	}()
	s.runIssueBatch(batch)
	for _, o := range batch {
		if o != c {
			o.wake <- false
		}
	}
	return c.err
}

// runIssueBatch creates the issues of batch in one transaction (run a
// second time, with savepoints, when a creation fails) and sets each
// creation's err. batch[0] is the leader (it was first in the queue).
// A panic fails every creation of the batch (and is raised again once the
// others are told).
func (s *Store) runIssueBatch(batch []*issueCreation) {
	defer func() {
		if p := recover(); p != nil {
			for _, c := range batch {
				c.err = errIssueBatchPanic
			}
			for _, c := range batch[1:] {
				c.wake <- false
			}
			panic(p)
		}
	}()
	if len(batch) == 1 {
		c := batch[0]
		c.err = s.createIssueAlone(c)
		return
	}
	// The transaction outlives any one caller's request: it runs on the
	// leader's context without its cancellation (its values, such as the
	// statement counter's marks, stay), and a creation whose caller has
	// gone is left out before it starts. Repositories are taken in the
	// order of their ids, so that two processes' transactions on
	// PostgreSQL lock the issue_index rows in the same order.
	ordered := slices.Clone(batch)
	slices.SortStableFunc(ordered, func(a, b *issueCreation) int { return cmp.Compare(a.n.RepoID, b.n.RepoID) })
	ctx := context.WithoutCancel(batch[0].ctx)
	// Creations rarely fail, so the batch first runs without savepoints:
	// two statements (round trips on PostgreSQL, while the issue_index row
	// is locked) fewer per creation. If one fails, all of it is rolled
	// back and it runs again with a savepoint each, so that the failing
	// creation is undone alone.
	err := s.tryIssueBatch(ctx, ordered, false)
	if errors.Is(err, errIssueBatchCreationFailed) {
		err = s.tryIssueBatch(ctx, ordered, true)
	}
	if err != nil {
		// Nothing was stored (the commit failed, or PostgreSQL chose the
		// transaction as a deadlock's victim): each creation runs again
		// alone, as if it had come alone.
		for _, c := range batch {
			if c.err = c.ctx.Err(); c.err != nil {
				forgetIssue(c)
				continue
			}
			c.err = s.createIssueAlone(c)
		}
	}
}

// createIssueAlone creates c's issue in a transaction of its own.
func (s *Store) createIssueAlone(c *issueCreation) error {
	wakes := &deferredWakes{}
	err := s.db.WithContext(withDeferredWakes(c.ctx, wakes)).Transaction(func(tx *gorm.DB) error {
		return s.insertIssue(tx, c.n, c.now)
	})
	if err != nil {
		forgetIssue(c)
		return err
	}
	wakes.fire(s)
	return nil
}

// tryIssueBatch runs the creations of ordered in one transaction and sets
// each one's err. Without savepoints the first creation that fails rolls
// the whole transaction back (errIssueBatchCreationFailed); with them a
// failing creation is undone alone. Nothing of a transaction that did not
// commit is left outside it: the notifier is woken only after the commit
// (deferredWakes), and the ids and numbers set on the creations' issues
// are cleared before each attempt and on failure.
func (s *Store) tryIssueBatch(ctx context.Context, ordered []*issueCreation, savepoints bool) error {
	wakes := &deferredWakes{}
	err := s.db.WithContext(withDeferredWakes(ctx, wakes)).Transaction(func(tx *gorm.DB) error {
		live := make([]*issueCreation, 0, len(ordered))
		for _, c := range ordered {
			forgetIssue(c)
			if c.err = c.ctx.Err(); c.err == nil {
				live = append(live, c)
			}
		}
		if !savepoints {
			if err := s.insertIssues(tx, live); err != nil { // issue_rows.go
				return errIssueBatchCreationFailed
			}
			return nil
		}
		for _, c := range live {
			c.err = s.insertIssueSavepoint(tx, c, wakes)
		}
		return nil
	})
	if err != nil {
		for _, c := range ordered {
			forgetIssue(c)
		}
		return err
	}
	for _, c := range ordered {
		if c.err != nil {
			forgetIssue(c)
		}
	}
	wakes.fire(s)
	return nil
}

// forgetIssue clears what inserting c's issue set on it (its row's id and
// its number), so that a rolled-back attempt leaves no trace on the
// caller's struct.
func forgetIssue(c *issueCreation) {
	c.n.ID, c.n.Index = 0, 0
}

// errIssueBatchCreationFailed rolls back a batch run without savepoints;
// it is never returned to a caller.
var errIssueBatchCreationFailed = errors.New("create issue: a creation of the batch failed")

// insertIssueSavepoint is insertIssue in a savepoint: on failure what it
// did is undone (also its notifier wake-ups, wakes) and the transaction
// goes on. The savepoint's name is always the same, so its statements are
// prepared once per connection (gorm's nested transactions name each
// savepoint anew); they run without gorm, as insertIssue's own do
// (rawtx.go).
func (s *Store) insertIssueSavepoint(tx *gorm.DB, c *issueCreation, wakes *deferredWakes) error {
	r := s.raw(tx)
	if _, err := r.exec(savepointIssue); err != nil {
		return err
	}
	before := wakes.n
	err := s.insertIssue(tx, c.n, c.now)
	if err != nil {
		wakes.n = before
		if _, rerr := r.exec(rollbackToIssue); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	if _, rerr := r.exec(releaseIssue); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

var (
	savepointIssue  = newSQLText("SAVEPOINT issue_create")
	rollbackToIssue = newSQLText("ROLLBACK TO issue_create")
	releaseIssue    = newSQLText("RELEASE issue_create")
)

var errIssueBatchPanic = errors.New("create issue: the transaction creating it panicked")
