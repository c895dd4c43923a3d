// Package metrics serves forge's Prometheus metrics at /metrics ([metrics]
// ENABLED, TOKEN as Gitea): requests per route and status, gRPC calls per
// method, the database pool, git processes, webhook deliveries, the
// background queues, Go's runtime, and Gitea's own site gauges
// (gitea_users, gitea_repositories, ...). docs/metrics.md lists them.
package metrics

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served (Gitea's).
const Path = "/metrics"

// Metrics is one server's registry and its request metrics.
type Metrics struct {
	reg          *prometheus.Registry
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	grpcRequests *prometheus.CounterVec
	grpcDuration *prometheus.HistogramVec
	sshRequests  *prometheus.CounterVec
	sshDuration  *prometheus.HistogramVec
}

// New makes a registry with the request metrics and Go's runtime and
// process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_http_requests_total",
		Help: "HTTP requests (REST API, git over HTTP) by method, route pattern and status."}, []string{"method", "route", "status"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "forge_http_request_duration_seconds",
		Help: "HTTP request latency by method, route pattern and status.", Buckets: prometheus.DefBuckets},
		[]string{"method", "route", "status"})
	m.grpcRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_grpc_requests_total",
		Help: "gRPC calls (over gRPC's port and from the REST gateway) by method and status code."}, []string{"method", "code"})
	m.grpcDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "forge_grpc_request_duration_seconds",
		Help: "gRPC call latency by method.", Buckets: prometheus.DefBuckets}, []string{"method"})
	m.sshRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_ssh_git_commands_total",
		Help: "git commands over SSH by service and exit status."}, []string{"service", "status"})
	m.sshDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "forge_ssh_git_command_duration_seconds",
		Help: "git command over SSH latency by service.", Buckets: prometheus.DefBuckets}, []string{"service"})
	m.reg.MustRegister(m.httpRequests, m.httpDuration, m.grpcRequests, m.grpcDuration, m.sshRequests, m.sshDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds collectors (the database pool, queues, site gauges).
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// DBPool collects the connection pool's statistics (go_sql_*).
func DBPool(db *sql.DB) prometheus.Collector { return collectors.NewDBStatsCollector(db, "forge") }

// Gauge is a gauge read at scrape time.
func Gauge(name, help string, f func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
}

// Counter is a counter read at scrape time.
func Counter(name, help string, f func() float64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
}

// httpMethods bounds the method label: others are OTHER.
var httpMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// Observe records one finished request (accesslog.Observer). The route is
// a pattern, never a raw path, so the labels stay bounded.
func (m *Metrics) Observe(transport, method, route, status string, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	switch transport {
	case "http":
		if !httpMethods[method] {
			method = "OTHER"
		}
		m.httpRequests.WithLabelValues(method, route, status).Inc()
		m.httpDuration.WithLabelValues(method, route, status).Observe(d.Seconds())
	case "grpc":
		m.grpcRequests.WithLabelValues(route, status).Inc()
		m.grpcDuration.WithLabelValues(route).Observe(d.Seconds())
	case "ssh":
		m.sshRequests.WithLabelValues(route, status).Inc()
		m.sshDuration.WithLabelValues(route).Observe(d.Seconds())
	}
}

// Handler serves the registry in Prometheus' text format. With a token,
// a scrape must send "Authorization: Bearer TOKEN" (401 otherwise), as
// Gitea's [metrics] TOKEN.
func (m *Metrics) Handler(token string) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Counts is a collector of gauges read together by one query at scrape
// time (the site's counts), bounded by timeout; a failed or slow query
// leaves them out of that scrape and is logged.
type Counts struct {
	names []string
	descs []*prometheus.Desc
	read  func(ctx context.Context) ([]int64, error)
	limit time.Duration
}

// NewCounts describes one gauge per name (the metric names given) read by
// read, in the same order.
func NewCounts(metricNames, help []string, read func(ctx context.Context) ([]int64, error), timeout time.Duration) *Counts {
	c := &Counts{names: metricNames, read: read, limit: timeout}
	for i, n := range metricNames {
		c.descs = append(c.descs, prometheus.NewDesc(n, help[i], nil, nil))
	}
	return c
}

func (c *Counts) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *Counts) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.limit)
	defer cancel()
	vals, err := c.read(ctx)
	if err != nil || len(vals) != len(c.descs) {
		slog.Warn("metrics: counting the site's objects", "err", err)
		return
	}
	for i, d := range c.descs {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(vals[i]))
	}
}
