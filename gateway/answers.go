package gateway

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	optionsv1 "forge/gen/forge/options/v1"
	"forge/services/auth"
	"forge/services/store"
)

// The answer cache replays a REST answer to the caller it was computed for
// while the database has committed nothing since: for the methods whose
// proto declares the answer a function of the database, the request and
// the caller alone (forge.options.v1.cache_answer), that is the answer the
// services would compute again, without the call, the checks that would
// judge as before, the queries and the encoding.
//
// What makes it exact is the mark (AnswerMark): the database's commit mark
// (store.CommitMark on SQLite, store.CommitCount on PostgreSQL) and the
// count of ref moves in the repositories seen from this machine
// (git.Store.RefMoves). Read before the answer is computed and again
// after, the entry is kept only when the two are equal (nothing committed
// and no ref moved while it was computed, so it is the answer of that
// state), and it is replayed only while the mark still is. Any commit, by
// any connection or process, and any ref transaction change the mark, so
// a revoked token, a removed collaborator, a new issue or a push is seen
// by the next request as before. On PostgreSQL forge processes may run on
// several machines sharing the repositories, whose ref moves this
// machine's watch does not see: each process commits to the database
// after a git command of its own prepared a ref transaction, before the
// write is acknowledged (git.Store.ReportRefMoves, store.CountRefMove),
// so their ref moves move the commit count. Where ref moves are not
// watched (a platform without inotify) only the answers declared to read
// the database alone (cache_answer_database_only) are replayed; where
// there is no commit mark nothing is.
//
// The caller is identified as the interceptor would (auth.ReplayCaller,
// which also records the token's use and the access log's user name);
// callers whose check has effects of its own (passwords, one-time codes,
// reverse-proxy headers) always go to the services.

// AnswerCache configures the answer cache.
type AnswerCache struct {
	// MaxBytes bounds the answers kept (bodies and headers); 0 turns the
	// cache off.
	MaxBytes int64
	// Mark reads the state answers are computed in; ok false: unknown.
	Mark func(context.Context) (AnswerMark, bool)
	// Caller identifies a REST caller from its credentials.
	Caller func(ctx context.Context, method string, md metadata.MD) (auth.CallerKey, bool)
}

// AnswerMark is the state an answer is computed in: nothing committed to
// the database and no ref moved while the mark stays the same.
type AnswerMark struct {
	Commits     store.CommitMark // SQLite's
	CommitCount int64            // PostgreSQL's
	RefMoves    uint64
	// RefsWatched: RefMoves counts this machine's ref moves; false where
	// they cannot be watched, and then only answers read from the
	// database alone are replayed.
	RefsWatched bool
}

type answerKey struct {
	caller auth.CallerKey
	method string // the gRPC method
	uri    string // path and query, query credentials removed
	accept string
}

type answer struct {
	header http.Header // what the call set, beyond what was set before it
	body   []byte
}

func (a *answer) size() int64 {
	n := int64(len(a.body))
	for k, vs := range a.header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}

// answerRule is what the cache knows of a declared method.
type answerRule struct {
	stream       bool // a server stream: kept only when complete
	databaseOnly bool // reads nothing but the database (cache_answer_database_only)
}

type answers struct {
	cfg      AnswerCache
	methods  map[string]answerRule
	entryMax int64

	mu      sync.RWMutex
	at      AnswerMark // the state every entry belongs to
	entries map[answerKey]*answer
	size    int64
}

// newAnswers reads the declared methods once at start-up; nil when the
// cache is off.
func newAnswers(cfg AnswerCache, routes routeTable) (*answers, error) {
	if cfg.MaxBytes <= 0 || cfg.Mark == nil || cfg.Caller == nil {
		return nil, nil
	}
	methods := map[string]answerRule{}
	for _, method := range routes {
		md, err := methodDescriptor(method)
		if err != nil {
			return nil, err
		}
		if !proto.GetExtension(md.Options(), optionsv1.E_CacheAnswer).(bool) {
			continue
		}
		if md.IsStreamingClient() {
			return nil, fmt.Errorf("gateway: %s: cache_answer on a client stream", method)
		}
		// A server stream's answer may end early after its 200 has gone:
		// it is kept only when it ends at its Content-Length (serve).
		methods[method] = answerRule{stream: md.IsStreamingServer(),
			databaseOnly: proto.GetExtension(md.Options(), optionsv1.E_CacheAnswerDatabaseOnly).(bool)}
	}
	// One answer may take a quarter of the cache, so that a few large
	// pages do not keep clearing it.
	return &answers{cfg: cfg, methods: methods, entryMax: cfg.MaxBytes / 4, entries: map[answerKey]*answer{}}, nil
}

// serve answers r, a request for method, from the cache when it can, else
// by call (the routed handler), keeping the answer when it may be replayed.
func (c *answers) serve(g *gateway, w *responseWriter, r *http.Request, method string, call func(http.ResponseWriter)) {
	rule, declared := c.rule(method)
	if !declared || !replayable(r) {
		call(w)
		return
	}
	// The mark and the caller's check may share one database read (on
	// PostgreSQL); the mark after the call is read afresh.
	ctx := store.WithOneRead(r.Context())
	mark, ok := c.cfg.Mark(ctx)
	if !ok || (!mark.RefsWatched && !rule.databaseOnly) {
		call(w)
		return
	}
	caller, ok := c.cfg.Caller(ctx, method, g.credentials(r))
	if !ok {
		call(w)
		return
	}
	key := answerKey{caller: caller, method: method, uri: r.URL.RequestURI(), accept: r.Header.Get("Accept")}
	if a := c.get(mark, key); a != nil {
		h := w.Header()
		for k, vs := range a.header {
			h[k] = vs
		}
		w.Write(a.body)
		return
	}
	before := w.Header().Clone()
	rec := &recorder{ResponseWriter: w, max: c.entryMax}
	call(rec)
	if w.status != http.StatusOK || rec.overflow {
		return
	}
	// A stream that ended short (the client left, the handler returned)
	// did not send the whole answer; one that failed panicked past here.
	if rule.stream && w.Header().Get("Content-Length") != strconv.Itoa(len(rec.body)) {
		return
	}
	if after, ok := c.cfg.Mark(r.Context()); !ok || after != mark {
		return // something committed while it was computed
	}
	a := &answer{header: http.Header{}, body: rec.body}
	for k, vs := range w.Header() {
		if !slices.Equal(before[k], vs) {
			a.header[k] = slices.Clone(vs)
		}
	}
	c.put(mark, key, a)
}

// rule is what the cache knows of method; false: not declared, or the
// cache is off (c nil).
func (c *answers) rule(method string) (answerRule, bool) {
	if c == nil {
		return answerRule{}, false
	}
	r, ok := c.methods[method]
	return r, ok
}

// replayable: a GET without a body or conditions of its own (ranges,
// validators), whose answer is the whole representation.
func replayable(r *http.Request) bool {
	if r.Method != http.MethodGet || r.ContentLength != 0 {
		return false
	}
	for _, h := range []string{"Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	return true
}

func (c *answers) get(mark AnswerMark, key answerKey) *answer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.at != mark {
		return nil
	}
	return c.entries[key]
}

// put keeps a under mark: entries of another state are dropped first, and
// all of them when the bound would be passed.
func (c *answers) put(mark AnswerMark, key answerKey, a *answer) {
	n := a.size() + int64(len(key.uri)+len(key.method)+len(key.accept))
	if n > c.entryMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at != mark || c.size+n > c.cfg.MaxBytes {
		clear(c.entries)
		c.at, c.size = mark, 0
	}
	if _, ok := c.entries[key]; !ok {
		c.entries[key] = a
		c.size += n
	}
}

// recorder passes an answer on while keeping a copy of its body, up to
// max bytes; the status is the responseWriter's.
type recorder struct {
	http.ResponseWriter
	body     []byte
	max      int64
	overflow bool
}

func (w *recorder) Write(b []byte) (int, error) {
	if !w.overflow {
		if int64(len(w.body)+len(b)) > w.max {
			w.overflow, w.body = true, nil
		} else {
			w.body = append(w.body, b...)
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
