package auth

import (
	"container/list"
	"context"
	"math"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"forge/services/errs"
)

// Password checks are the one authentication step that costs real memory
// (argon2id, about 19 MiB each) and CPU, so an unauthenticated client could
// use them as a lever. Two mechanisms bound that: HashGate caps the checks
// running at once, FailureLimiter refuses further attempts for an account
// or address that failed too often, before any hash runs.

// LoginThrottledMessage answers a sign-in refused by the failure limiter.
const LoginThrottledMessage = "too many failed sign-in attempts for this account or address; retry later"

// HashBusyMessage answers a sign-in refused because too many password
// checks are already running and waiting.
const HashBusyMessage = "too many sign-ins in progress; retry later"

// retryLater is a ResourceExhausted error advising a retry after whole
// seconds (at least one), which the gateway answers as 429 with
// Retry-After and gRPC clients receive as RetryInfo.
func retryLater(msg string, after time.Duration) error {
	secs := int64(math.Ceil(after.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return errs.New(errs.ResourceExhausted, msg).WithRetryAfter(time.Duration(secs) * time.Second)
}

// HashGate lets at most n password checks run at once and at most queue
// callers wait for a turn; a waiting caller gives up with its context.
type HashGate struct {
	slots    chan struct{}
	queue    int64
	waiting  atomic.Int64
	running  atomic.Int64
	peak     atomic.Int64
	checkFor func(hash, password string) bool
}

// NewHashGate lets n checks run at once (n < 1: one per CPU) and queue
// callers wait.
func NewHashGate(n, queue int) *HashGate {
	if n < 1 {
		n = runtime.NumCPU()
	}
	return &HashGate{slots: make(chan struct{}, n), queue: int64(queue), checkFor: CheckPassword}
}

// Check runs CheckPassword within the bounds. The error is
// ResourceExhausted when the queue is full, the context's when it ends
// while waiting.
func (g *HashGate) Check(ctx context.Context, hash, password string) (bool, error) {
	select {
	case g.slots <- struct{}{}:
	default:
		if g.waiting.Add(1) > g.queue {
			g.waiting.Add(-1)
			return false, retryLater(HashBusyMessage, time.Second)
		}
		select {
		case g.slots <- struct{}{}:
			g.waiting.Add(-1)
		case <-ctx.Done():
			g.waiting.Add(-1)
			return false, ctx.Err()
		}
	}
	defer func() { <-g.slots }()
	n := g.running.Add(1)
	defer g.running.Add(-1)
	// Record the high-water mark (Peak).
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	return g.checkFor(hash, password), nil
}

// Peak is the largest number of password checks that ran at once.
func (g *HashGate) Peak() int { return int(g.peak.Load()) }

// FailureLimiter is a token bucket per account name and per client address:
// each holds up to its limit of allowed failures and refills evenly over
// the window. A sign-in attempt takes one from both before the password is
// checked (so concurrent attempts cannot overshoot) and gives it back when
// it succeeds. At most maxKeys buckets are kept; the least recently used
// is forgotten first, so the limiter's memory is bounded too.
type FailureLimiter struct {
	perAccount, perAddress float64
	window                 time.Duration
	maxKeys                int
	now                    func() time.Time

	mu      sync.Mutex
	lru     *list.List // of *bucket, most recently used first
	buckets map[string]*list.Element
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time
}

// NewFailureLimiter: perAccount or perAddress 0 disables that limit.
func NewFailureLimiter(perAccount, perAddress int, window time.Duration, maxKeys int) *FailureLimiter {
	return &FailureLimiter{
		perAccount: float64(perAccount), perAddress: float64(perAddress),
		window: window, maxKeys: maxKeys, now: time.Now,
		lru: list.New(), buckets: map[string]*list.Element{},
	}
}

// Attempt identifies one sign-in attempt's buckets.
type Attempt struct {
	account, address string
}

// maxKeyLen bounds the memory one attacker-chosen account name can hold.
const maxKeyLen = 128

// NewAttempt keys an attempt by account name (case-insensitive, whether or
// not it exists, so the answer reveals nothing) and by client address, an
// IPv6 client by its /64.
func NewAttempt(account string, addr net.IP) Attempt {
	account = strings.ToLower(account)
	if len(account) > maxKeyLen {
		account = account[:maxKeyLen]
	}
	a := Attempt{account: "u:" + account}
	if addr != nil {
		if v4 := addr.To4(); v4 != nil {
			a.address = "a:" + v4.String()
		} else {
			a.address = "a:" + addr.Mask(net.CIDRMask(64, 128)).String() + "/64"
		}
	}
	return a
}

// Take spends one failure allowance from the attempt's buckets, or, when
// one of them is empty, spends nothing and returns a ResourceExhausted
// error saying when to retry.
func (l *FailureLimiter) Take(a Attempt) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var wait time.Duration
	var hit []*bucket
	for _, k := range l.keys(a) {
		b := l.bucket(k.key, k.limit, now)
		if b.tokens < 1 {
			rate := k.limit / l.window.Seconds() // tokens per second
			if w := time.Duration((1 - b.tokens) / rate * float64(time.Second)); w > wait {
				wait = w
			}
			continue
		}
		hit = append(hit, b)
	}
	if wait > 0 {
		return retryLater(LoginThrottledMessage, wait)
	}
	for _, b := range hit {
		b.tokens--
	}
	return nil
}

// Refund gives back what Take spent: the attempt succeeded, or was never
// judged.
func (l *FailureLimiter) Refund(a Attempt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, k := range l.keys(a) {
		b := l.bucket(k.key, k.limit, now)
		b.tokens = math.Min(k.limit, b.tokens+1)
	}
}

type limitKey struct {
	key   string
	limit float64
}

func (l *FailureLimiter) keys(a Attempt) []limitKey {
	var out []limitKey
	if l.perAccount > 0 {
		out = append(out, limitKey{a.account, l.perAccount})
	}
	if l.perAddress > 0 && a.address != "" {
		out = append(out, limitKey{a.address, l.perAddress})
	}
	return out
}

// bucket returns key's bucket refilled to now, creating a full one (and
// evicting the least recently used beyond maxKeys) when unknown.
func (l *FailureLimiter) bucket(key string, limit float64, now time.Time) *bucket {
	if e, ok := l.buckets[key]; ok {
		l.lru.MoveToFront(e)
		b := e.Value.(*bucket)
		refill := now.Sub(b.at).Seconds() * limit / l.window.Seconds()
		if refill > 0 {
			b.tokens = math.Min(limit, b.tokens+refill)
			b.at = now
		}
		return b
	}
	for l.lru.Len() >= l.maxKeys {
		oldest := l.lru.Back()
		delete(l.buckets, oldest.Value.(*bucket).key)
		l.lru.Remove(oldest)
	}
	b := &bucket{key: key, tokens: limit, at: now}
	l.buckets[key] = l.lru.PushFront(b)
	return b
}

// Len is the number of buckets kept.
func (l *FailureLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}
