package auth

import (
	"context"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/rpcerr"
)

// fakeClock is a settable time source for the limiter.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestLimiter(perAccount, perAddress, maxKeys int) (*FailureLimiter, *fakeClock) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := NewFailureLimiter(perAccount, perAddress, time.Minute, maxKeys)
	l.now = clk.now
	return l, clk
}

func throttled(t *testing.T, err error) int64 {
	t.Helper()
	st := status.Convert(rpcerr.Status(err))
	if st.Code() != codes.ResourceExhausted || st.Message() != LoginThrottledMessage {
		t.Fatalf("want throttled, got %v", err)
	}
	secs, ok := rpcerr.RetryAfter(err)
	if !ok || secs < 1 {
		t.Fatalf("no retry delay in %v", st.Details())
	}
	return secs
}

func TestFailureLimiterPerAccount(t *testing.T) {
	l, clk := newTestLimiter(3, 100, 100)
	ip := net.ParseIP("192.0.2.1")
	for i := range 3 {
		if err := l.Take(NewAttempt("alice", ip)); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	// The name is case-insensitive; the address does not matter.
	secs := throttled(t, l.Take(NewAttempt("ALICE", net.ParseIP("198.51.100.7"))))
	if secs != 20 { // one allowance of 3 per minute comes back in 20 s
		t.Fatalf("retry after %d s, want 20", secs)
	}
	// Other accounts are unaffected.
	if err := l.Take(NewAttempt("bob", ip)); err != nil {
		t.Fatal(err)
	}
	// A refund (a success) gives one back at once; time gives back the rest.
	l.Refund(NewAttempt("alice", ip))
	if err := l.Take(NewAttempt("alice", ip)); err != nil {
		t.Fatal(err)
	}
	throttled(t, l.Take(NewAttempt("alice", ip)))
	clk.t = clk.t.Add(20 * time.Second)
	if err := l.Take(NewAttempt("alice", ip)); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
	throttled(t, l.Take(NewAttempt("alice", ip)))
	clk.t = clk.t.Add(time.Hour)
	for range 3 {
		if err := l.Take(NewAttempt("alice", ip)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFailureLimiterPerAddress(t *testing.T) {
	l, _ := newTestLimiter(100, 2, 100)
	a := net.ParseIP("192.0.2.1")
	l.Take(NewAttempt("u1", a))
	l.Take(NewAttempt("u2", a))
	throttled(t, l.Take(NewAttempt("u3", a)))
	// A refused attempt spent nothing from the account's bucket.
	for range 100 {
		if err := l.Take(NewAttempt("u3", net.ParseIP("192.0.2.2"))); err != nil {
			t.Fatal("u3's allowance was spent by refused attempts")
		}
		l.Refund(NewAttempt("u3", net.ParseIP("192.0.2.2")))
	}
	// IPv6 clients share a bucket per /64.
	l.Take(NewAttempt("v1", net.ParseIP("2001:db8::1")))
	l.Take(NewAttempt("v2", net.ParseIP("2001:db8::ffff:2")))
	throttled(t, l.Take(NewAttempt("v3", net.ParseIP("2001:db8::3"))))
	if err := l.Take(NewAttempt("v3", net.ParseIP("2001:db8:0:1::3"))); err != nil {
		t.Fatal("another /64 was throttled")
	}
	// Without an address only the account counts.
	if err := l.Take(NewAttempt("u4", nil)); err != nil {
		t.Fatal(err)
	}
}

// TestFailureLimiterBoundedKeys: however many names and addresses fail,
// at most maxKeys buckets are kept, and the least recently used go first.
func TestFailureLimiterBoundedKeys(t *testing.T) {
	l, _ := newTestLimiter(1, 0, 10)
	long := make([]byte, 1<<16)
	for i := range long {
		long[i] = 'x'
	}
	l.Take(NewAttempt("hot", nil))
	for i := range 1000 {
		l.Take(NewAttempt(string(long)+strconv.Itoa(i), nil))
		if i%5 == 0 {
			throttled(t, l.Take(NewAttempt("hot", nil))) // keeps "hot" recent
		}
	}
	if l.Len() > 10 {
		t.Fatalf("%d buckets kept, bound 10", l.Len())
	}
	for k := range l.buckets {
		if len(k) > maxKeyLen+2 {
			t.Fatalf("key of %d bytes kept", len(k))
		}
	}
}

func TestFailureLimiterDisabled(t *testing.T) {
	l, _ := newTestLimiter(0, 0, 10)
	for range 1000 {
		if err := l.Take(NewAttempt("alice", net.ParseIP("192.0.2.1"))); err != nil {
			t.Fatal(err)
		}
	}
	if l.Len() != 0 {
		t.Fatal("disabled limiter keeps buckets")
	}
}

// TestHashGateBound: many concurrent checks never run more than the bound
// at once; callers beyond the queue are refused at once; a waiting caller
// leaves with its context.
func TestHashGateBound(t *testing.T) {
	g := NewHashGate(2, 100)
	var running, peak atomic.Int32
	g.checkFor = func(_, _ string) bool {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		return false
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Check(context.Background(), "h", "p"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() != 2 || g.Peak() != 2 {
		t.Fatalf("peak %d (gate says %d), want 2", peak.Load(), g.Peak())
	}

	// Full slots and a full queue: refused without waiting.
	g = NewHashGate(1, 1)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	g.checkFor = func(_, _ string) bool { started <- struct{}{}; <-release; return true }
	go g.Check(context.Background(), "h", "p")
	<-started
	waited := make(chan error, 1)
	go func() { _, err := g.Check(context.Background(), "h", "p"); waited <- err }()
	for g.waiting.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	_, err := g.Check(context.Background(), "h", "p")
	if st := status.Convert(rpcerr.Status(err)); st.Code() != codes.ResourceExhausted || st.Message() != HashBusyMessage {
		t.Fatalf("beyond the queue: %v", err)
	}
	if secs, ok := rpcerr.RetryAfter(err); !ok || secs != 1 {
		t.Fatalf("retry after %d %v", secs, ok)
	}
	// A caller whose context ends stops waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	g2 := NewHashGate(1, 5)
	g2.slots <- struct{}{}
	if _, err := g2.Check(ctx, "h", "p"); status.Code(rpcerr.Status(err)) != codes.DeadlineExceeded {
		t.Fatalf("expired wait: %v", err)
	}
	close(release)
	<-started
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}
