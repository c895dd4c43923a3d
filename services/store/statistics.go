package store

import (
	"context"
	"database/sql"
	"strings"
)

// statistics are the counts Statistics reads: the name /metrics shows
// (Gitea's gauge without its "gitea_" prefix, or forge's own backlog)
// and the count, one subquery each.
var statistics = []struct{ name, count string }{
	{"users", "SELECT COUNT(*) FROM users WHERE type = 0"},
	{"organizations", "SELECT COUNT(*) FROM users WHERE type = 1"},
	{"repositories", "SELECT COUNT(*) FROM repositories"},
	{"issues", "SELECT COUNT(*) FROM issues"},
	{"issues_open", "SELECT COUNT(*) FROM issues WHERE NOT is_closed"},
	{"issues_closed", "SELECT COUNT(*) FROM issues WHERE is_closed"},
	{"comments", "SELECT COUNT(*) FROM comments"},
	{"labels", "SELECT COUNT(*) FROM labels"},
	{"milestones", "SELECT COUNT(*) FROM milestones"},
	{"releases", "SELECT COUNT(*) FROM releases"},
	{"mirrors", "SELECT COUNT(*) FROM mirrors"},
	{"stars", "SELECT COUNT(*) FROM stars"},
	{"watches", "SELECT COUNT(*) FROM watches"},
	{"follows", "SELECT COUNT(*) FROM follows"},
	{"publickeys", "SELECT COUNT(*) FROM public_keys"},
	{"teams", "SELECT COUNT(*) FROM teams"},
	{"attachments", "SELECT COUNT(*) FROM attachments"},
	{"loginsources", "SELECT COUNT(*) FROM login_sources"},
	{"webhooks", "SELECT COUNT(*) FROM webhooks"},
	{"hooktasks", "SELECT COUNT(*) FROM hook_tasks"},
	// Backlogs: webhook events not yet turned into deliveries, deliveries
	// not yet done, activities the notifier has not yet fanned out.
	{"webhook_events_queued", "SELECT COUNT(*) FROM hook_events"},
	{"webhook_deliveries_pending", "SELECT COUNT(*) FROM hook_tasks WHERE NOT done"},
	{"notification_activities_queued", "SELECT COUNT(*) FROM activities"},
}

// StatisticNames lists what Statistics counts, in its order.
func StatisticNames() []string {
	out := make([]string, len(statistics))
	for i, s := range statistics {
		out[i] = s.name
	}
	return out
}

// Statistics counts the site's objects and queues, for /metrics: one
// statement of count subqueries, in StatisticNames' order. Bound its cost
// with ctx's deadline.
func (s *Store) Statistics(ctx context.Context) ([]int64, error) {
	parts := make([]string, len(statistics))
	for i, st := range statistics {
		parts[i] = "(" + st.count + ")"
	}
	row := s.db.WithContext(ctx).Raw("SELECT " + strings.Join(parts, ", ")).Row()
	out := make([]int64, len(statistics))
	dst := make([]any, len(out))
	for i := range out {
		dst[i] = &out[i]
	}
	if err := row.Scan(dst...); err != nil {
		return nil, err
	}
	return out, nil
}

// SQLDB is the connection pool, for its statistics (/metrics).
func (s *Store) SQLDB() (*sql.DB, error) { return s.db.DB() }
