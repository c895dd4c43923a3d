package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"forge/services/webhooks"
)

// TestWebhookDeliveryCrash: forge is killed (SIGKILL) after an issue was
// created and its delivery claimed, before anything was sent; once forge
// is back and the claim has run out (DELIVER_TIMEOUT + 30 s), the receiver
// gets the delivery, signed, once.
func TestWebhookDeliveryCrash(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		var mu sync.Mutex
		var got []string
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mac := hmac.New(sha256.New, []byte("hook-secret"))
			mac.Write(body)
			if r.Header.Get("X-Gitea-Signature") != hex.EncodeToString(mac.Sum(nil)) {
				http.Error(w, "bad signature", http.StatusBadRequest)
				return
			}
			var p struct {
				Action string `json:"action"`
				Issue  struct {
					Title string `json:"title"`
				} `json:"issue"`
			}
			json.Unmarshal(body, &p)
			mu.Lock()
			got = append(got, r.Header.Get("X-Gitea-Event")+" "+p.Action+" "+p.Issue.Title)
			mu.Unlock()
		}))
		defer rcv.Close()
		f.c.env = append(f.c.env, "FORGE__WEBHOOK__ALLOWED_HOST_LIST=loopback", "FORGE__WEBHOOK__DELIVER_TIMEOUT=1")
		f.start("")
		f.createRepo("proj", true)
		f.mustAPI("POST", "/api/v1/repos/root/proj/hooks",
			`{"type":"gitea","config":{"url":"`+rcv.URL+`","content_type":"json","secret":"hook-secret"},"events":["issues"],"active":true}`, 201)
		f.stop()

		f.start(webhooks.FailpointClaimed)
		// The answer may or may not beat the crash; the issue is committed
		// before its delivery can be claimed.
		f.api("POST", "/api/v1/repos/root/proj/issues", `{"title":"before the crash"}`)
		f.waitKilled() // the worker claimed the delivery and died
		f.start("")
		f.mustAPI("GET", "/api/v1/repos/root/proj/issues/1", "", 200)
		deadline := time.Now().Add(60 * time.Second)
		for {
			mu.Lock()
			n := len(got)
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no delivery within 60s of the restart; log:\n%s", f.log)
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // a second delivery would come within the poll
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0] != "issues opened before the crash" {
			t.Fatalf("deliveries %q, want one issues/opened", got)
		}
	})
}
