package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// BenchmarkWebhookDelivery: b.N issue events queued for one repository
// hook to a receiver on loopback, end to end: each event recorded (its own
// transaction, as a change records it), claimed and rendered into its
// payload, its delivery claimed, signed, sent, checked by the receiver
// (HMAC-SHA256 of the body with the hook's secret) and recorded as done.
// The clock runs from the first enqueue until the receiver has checked
// the last delivery; deliveries/s is b.N over that time, enqueue-µs/op
// the enqueue loop's share. The server's default [webhook]
// DELIVERY_WORKERS (4). Figures: docs/perf/README.md.
//
//	go test ./cmd/forge/app/ -run '^$' -bench BenchmarkWebhookDelivery -benchtime 1000x
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) { benchWebhookDelivery(b, kind) })
	}
}

func benchWebhookDelivery(b *testing.B, kind string) {
	s := startServer(b, kind, func(c *config.Config) { c.Webhook.AllowedHostList = "loopback" })
	const secret = "bench-secret"
	var got, bad atomic.Int64
	done := make(chan struct{})
	target := int64(b.N)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if r.Header.Get("X-Gitea-Signature") != hex.EncodeToString(mac.Sum(nil)) {
			bad.Add(1)
			http.Error(w, "bad signature", http.StatusForbidden)
			return
		}
		if got.Add(1) == target {
			close(done)
		}
	}))
	defer rcv.Close()
	auth := []string{"Authorization", "token " + s.AdminToken, "Content-Type", jsonCT}
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"bench"}`, auth...); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	r := s.do("POST", "/api/v1/repos/root/bench/issues", `{"title":"a bug"}`, auth...)
	if r.Status != 201 {
		b.Fatalf("create issue: %d %s", r.Status, r.Body)
	}
	var issue struct{ ID int64 }
	r.json(b, &issue)
	var repo struct{ ID int64 }
	s.do("GET", "/api/v1/repos/root/bench", "", auth...).json(b, &repo)
	hook := `{"type":"gitea","active":true,"events":["issues"],"config":{"url":"` + rcv.URL + `","content_type":"json","secret":"` + secret + `"}}`
	if r := s.do("POST", "/api/v1/repos/root/bench/hooks", hook, auth...); r.Status != 201 {
		b.Fatalf("create hook: %d %s", r.Status, r.Body)
	}
	var root struct{ ID int64 }
	s.do("GET", "/api/v1/user", "", auth...).json(b, &root)
	ctx := b.Context()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := s.App.Store.EnqueueHookEvent(ctx, store.HookEvent{Kind: store.ActivityIssueCreated, RepoID: repo.ID,
			IssueID: issue.ID, ActorID: root.ID}); err != nil {
			b.Fatal(err)
		}
	}
	enq := time.Since(start)
	select {
	case <-done:
	case <-time.After(2*time.Minute + time.Duration(b.N)*50*time.Millisecond):
		b.Fatalf("received %d of %d deliveries (%d badly signed)", got.Load(), b.N, bad.Load())
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if n := bad.Load(); n != 0 {
		b.Fatalf("%d deliveries badly signed", n)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(enq.Microseconds())/float64(b.N), "enqueue-µs/op")
}
