package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// endpoint is one measured call. Path includes /api/v1 and the query.
type endpoint struct {
	Name   string
	Method string
	Path   string
	Body   []byte
	Anon   bool // no Authorization header
}

// endpoints is the fixed mix, on the seeded dataset; every call but the
// anonymous version carries the seeded user's token.
func endpoints(ds dataset) []endpoint {
	repo := "/api/v1/repos/" + url.PathEscape(ds.Owner) + "/" + url.PathEscape(ds.Repo)
	write := "/api/v1/repos/" + url.PathEscape(ds.Owner) + "/" + url.PathEscape(ds.WriteRepo)
	return []endpoint{
		{Name: "version-anon", Method: "GET", Path: "/api/v1/version", Anon: true},
		{Name: "version", Method: "GET", Path: "/api/v1/version"},
		{Name: "user", Method: "GET", Path: "/api/v1/user"},
		{Name: "repo", Method: "GET", Path: repo},
		{Name: "labels", Method: "GET", Path: repo + "/labels?limit=50"},
		{Name: "issues", Method: "GET", Path: repo + "/issues?state=all&limit=50"},
		{Name: "issue", Method: "GET", Path: repo + "/issues/" + strconv.FormatInt(ds.IssueIndex, 10)},
		{Name: "branches", Method: "GET", Path: repo + "/branches"},
		{Name: "contents", Method: "GET", Path: repo + "/contents/README.md"},
		{Name: "raw", Method: "GET", Path: repo + "/raw/README.md"},
		{Name: "commits", Method: "GET", Path: repo + "/commits?limit=10"},
		{Name: "create-issue", Method: "POST", Path: write + "/issues",
			Body: []byte(`{"title":"bench write","body":"Created by forge bench under load."}`)},
	}
}

// endpointNames lists the names --endpoints accepts, in measuring order.
func endpointNames() []string {
	var names []string
	for _, e := range endpoints(dataset{}) {
		names = append(names, e.Name)
	}
	return names
}

// selectEndpoints keeps the named endpoints (all when names is empty), in
// the fixed order.
func selectEndpoints(all []endpoint, names []string) []endpoint {
	if len(names) == 0 {
		return all
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []endpoint
	for _, e := range all {
		if want[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

// point is one measurement: one endpoint on one target at one concurrency.
type point struct {
	Endpoint    string  `json:"endpoint"`
	Method      string  `json:"method"`
	Path        string  `json:"path"`
	Target      string  `json:"target"`
	Ceiling     bool    `json:"ceiling"`
	Concurrency int     `json:"concurrency"`
	Requests    uint64  `json:"requests"`
	RPS         float64 `json:"rps"` // successful requests per second
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	Errors      uint64  `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	RSSBytes    int64   `json:"rss_bytes,omitempty"` // server resident memory after the point; 0 when unknown
	BytesIn     float64 `json:"bytes_in_mean"`
	BodySHA256  string  `json:"body_sha256"`     // of the first successful answer
	Ratio       float64 `json:"ratio,omitempty"` // target req/s over the ceiling's, same endpoint and concurrency
}

// results is the whole run, as written to bench.json.
type results struct {
	Target      string        `json:"target"`
	URL         string        `json:"url"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"duration_ns"`
	Concurrency []int         `json:"concurrency"`
	Sizes       sizes         `json:"sizes"`
	Points      []point       `json:"points"`
}

// measure runs every endpoint at every concurrency, alternating the target
// and the ceiling point by point so that drift of the machine affects both
// alike.
func measure(ctx context.Context, o *options, ds dataset, eps []endpoint, log io.Writer) (*results, error) {
	res := &results{Target: o.name, URL: o.url, Started: time.Now().UTC(), Duration: o.duration,
		Concurrency: o.concurrency, Sizes: o.sizes}
	api := newClient(o.url, "token "+ds.Token)
	var ceil *ceiling
	if !o.noCeiling {
		var err error
		if ceil, err = startCeiling(); err != nil {
			return nil, err
		}
		defer ceil.Close()
	}
	// One call per endpoint first: it checks that the target answers
	// every call with success before minutes are spent measuring, and
	// its answer is what the ceiling serves.
	for _, e := range eps {
		r, err := capture(ctx, api, e, ds)
		if err != nil {
			return nil, err
		}
		if ceil != nil {
			ceil.record(e.Method, e.Path, r)
		}
	}
	total := len(o.concurrency) * len(eps)
	if ceil != nil {
		total *= 2
	}
	for _, c := range o.concurrency {
		for _, e := range eps {
			hdr := http.Header{}
			if a := authFor(e, ds); a != "" {
				hdr.Set("Authorization", a)
			}
			if e.Body != nil {
				hdr.Set("Content-Type", "application/json")
			}
			t := vegeta.Target{Method: e.Method, URL: o.url + e.Path, Body: e.Body, Header: hdr}
			p := attack(ctx, t, c, o.duration)
			p.Target = o.name
			if o.pid > 0 {
				p.RSSBytes = rss(o.pid)
			}
			p = res.add(p, e, c)
			progress(log, len(res.Points), total, p)
			if ceil != nil {
				t.URL = ceil.URL + e.Path
				q := attack(ctx, t, c, o.duration)
				q.Target, q.Ceiling = "ceiling", true
				q = res.add(q, e, c)
				progress(log, len(res.Points), total, q)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	res.ratios()
	return res, nil
}

// capture calls e once and requires a success; the answer is read as it
// came over the wire (compressed when the server compresses, as it does
// for vegeta, whose transport asks for gzip).
func capture(ctx context.Context, api *client, e endpoint, ds dataset) (reply, error) {
	probe := api.with(authFor(e, ds))
	probe.wire = true
	r, err := probe.call(ctx, e.Method, e.Path, e.Body)
	if err != nil {
		return r, fmt.Errorf("%s: %w", e.Name, err)
	}
	if r.status < 200 || r.status > 299 {
		return r, fmt.Errorf("%s: %s %s answered %d: %s", e.Name, e.Method, e.Path, r.status, clip(r.body))
	}
	return r, nil
}

func authFor(e endpoint, ds dataset) string {
	if e.Anon {
		return ""
	}
	return "token " + ds.Token
}

func (r *results) add(p point, e endpoint, c int) point {
	p.Endpoint, p.Method, p.Path, p.Concurrency = e.Name, e.Method, e.Path, c
	r.Points = append(r.Points, p)
	return p
}

// ratios fills each target point's ratio from the ceiling point of the
// same endpoint and concurrency.
func (r *results) ratios() {
	for i := range r.Points {
		p := &r.Points[i]
		if p.Ceiling {
			continue
		}
		for _, q := range r.Points {
			if q.Ceiling && q.Endpoint == p.Endpoint && q.Concurrency == p.Concurrency && q.RPS > 0 {
				p.Ratio = p.RPS / q.RPS
			}
		}
	}
}

// attack sends t from c workers, each waiting for its answer before the
// next request (a closed loop: vegeta at an unbounded rate with exactly c
// workers and c connections), for d.
func attack(ctx context.Context, t vegeta.Target, c int, d time.Duration) point {
	// A transport of our own, so that its connections are closed when the
	// point ends: left idle, every point's c connections would stay open
	// on the server until its idle timeout, and the RSS reported for the
	// next endpoints would include them.
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	}
	defer tr.CloseIdleConnections()
	atk := vegeta.NewAttacker(
		vegeta.Client(&http.Client{Transport: tr}),
		vegeta.Workers(uint64(c)), vegeta.MaxWorkers(uint64(c)),
		vegeta.Connections(c), vegeta.MaxConnections(c),
		vegeta.KeepAlive(true), vegeta.Redirects(vegeta.NoFollow),
		vegeta.Timeout(30*time.Second),
	)
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	var m vegeta.Metrics
	var p point
	for r := range atk.Attack(vegeta.NewStaticTargeter(t), vegeta.Rate{}, d, t.URL) {
		m.Add(r)
		if r.Error != "" || r.Code < 200 || r.Code > 299 {
			p.Errors++
			if p.FirstError == "" {
				p.FirstError = fmt.Sprintf("%d %s", r.Code, r.Error)
			}
			continue
		}
		if p.BodySHA256 == "" {
			sum := sha256.Sum256(r.Body)
			p.BodySHA256 = hex.EncodeToString(sum[:])
		}
	}
	m.Close()
	p.Requests = m.Requests
	p.RPS = m.Throughput
	p.P50Ms = ms(m.Latencies.P50)
	p.P99Ms = ms(m.Latencies.P99)
	p.BytesIn = m.BytesIn.Mean
	return p
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// progress prints one line per measured point.
func progress(w io.Writer, i, total int, p point) {
	line := fmt.Sprintf("bench: [%d/%d] %s c=%d %s: %.1f req/s, p50 %.2f ms, p99 %.2f ms, %d errors",
		i, total, p.Endpoint, p.Concurrency, p.Target, p.RPS, p.P50Ms, p.P99Ms, p.Errors)
	if p.FirstError != "" {
		line += " (first: " + p.FirstError + ")"
	}
	fmt.Fprintln(w, line)
}

// rss is the resident memory of process pid in bytes (Linux), or 0.
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
