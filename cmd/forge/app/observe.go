package app

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"forge/services/accesslog"
	"forge/services/metrics"
	"forge/services/store"
)

// countTimeout bounds the query of the site's counts at each scrape.
const countTimeout = 5 * time.Second

// observe sets up what watches the requests: the access log ([log]
// ENABLE_ACCESS_LOG) and the metrics ([metrics] ENABLED), with the
// collectors of the database pool, git, webhooks and the queues.
func (a *App) observe() error {
	cfg := a.cfg
	rec := &accesslog.Recorder{}
	if cfg.Log.EnableAccessLog {
		rec.Log = a.accessLog
		if rec.Log == nil {
			rec.Log = slog.Default()
		}
	}
	if cfg.Metrics.Enabled {
		m := metrics.New()
		sqlDB, err := a.Store.SQLDB()
		if err != nil {
			return err
		}
		g := a.Git
		names := store.StatisticNames()
		metricNames, help := make([]string, len(names)), make([]string, len(names))
		for i, n := range names {
			if strings.Contains(n, "_queued") || strings.Contains(n, "_pending") {
				metricNames[i], help[i] = "forge_"+n, "Backlog: "+strings.ReplaceAll(n, "_", " ")+"."
			} else {
				metricNames[i], help[i] = "gitea_"+n, "Number of "+strings.ReplaceAll(n, "_", " ")+" (Gitea's gauge)."
			}
		}
		err = m.Register(
			metrics.DBPool(sqlDB),
			metrics.NewCounts(metricNames, help, a.Store.Statistics, countTimeout),
			metrics.Counter("forge_git_processes_started_total", "git processes started (pooled readers included).",
				func() float64 { return float64(g.ProcessesStarted()) }),
			metrics.Gauge("forge_git_processes_running", "git processes running (counted against [git] MAX_PROCESSES).",
				func() float64 { return float64(g.Running()) }),
			metrics.Gauge("forge_git_object_readers_open", "git cat-file readers open (idle or in use).",
				func() float64 { open, _, _ := g.ReaderStats(); return float64(open) }),
			metrics.Gauge("forge_git_object_readers_idle", "git cat-file readers idle in the pool.",
				func() float64 { _, idle, _ := g.ReaderStats(); return float64(idle) }),
			metrics.Gauge("forge_git_object_readers_max", "cap of the git cat-file reader pool.",
				func() float64 { _, _, limit := g.ReaderStats(); return float64(limit) }),
			metrics.Gauge("forge_reconciler_backlog", "ref journal entries the branch reconciler has not settled.",
				func() float64 { e, _ := g.RefJournal(); return float64(len(e)) }),
			metrics.Counter("forge_webhook_deliveries_succeeded_total", "webhook delivery attempts that succeeded (this process).",
				func() float64 { ok, _ := a.webhooks.Deliveries(); return float64(ok) }),
			metrics.Counter("forge_webhook_deliveries_failed_total", "webhook delivery attempts that failed (this process).",
				func() float64 { _, failed := a.webhooks.Deliveries(); return float64(failed) }),
		)
		if err != nil {
			return err
		}
		a.metrics, rec.Observer = m, m
	}
	if rec.Log != nil || rec.Observer != nil {
		a.access = rec
	}
	return nil
}

// withMetrics serves /metrics beside h.
func withMetrics(h, m http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == metrics.Path {
			accesslog.SetRoute(r.Context(), metrics.Path)
			m.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
