package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"forge/services/repos"
)

// tagReceiver collects the create, delete and push deliveries of a hook
// as "<event> <ref> <ref_type|before>..<after>".
type tagReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

func newTagReceiver(t *testing.T) *tagReceiver {
	r := &tagReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var p struct {
			Ref, Before, After string
			RefType            string `json:"ref_type"`
		}
		json.Unmarshal(body, &p)
		line := req.Header.Get("X-Gitea-Event") + " " + p.Ref + " "
		if p.RefType != "" {
			line += p.RefType
		} else {
			line += short(p.Before) + ".." + short(p.After)
		}
		r.mu.Lock()
		r.got = append(r.got, line)
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

func short(sha string) string {
	if strings.Trim(sha, "0") == "" {
		return "0"
	}
	return sha[:7]
}

// waitFor waits until n deliveries arrived in all, then a little longer
// (a duplicate would come within the poll), and returns them sorted.
func (r *tagReceiver) waitFor(t *testing.T, f *crashForge, n int) []string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r.mu.Lock()
		have := len(r.got)
		r.mu.Unlock()
		if have >= n {
			break
		}
		if time.Now().After(deadline) {
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("%d deliveries within 60s, want %d: %q; log:\n%s", have, n, r.got, f.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(repos.WriterGrace + 3*time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.got...)
	sort.Strings(out)
	return out
}

// TestTagEventsCrashAfterRefMoved: forge is killed (SIGKILL) after git
// moved a pushed tag's ref and before anything was recorded; after the
// restart the hook receives the tag's create and push exactly once. The
// same for the tag's deletion (its delete and push to zeros).
func TestTagEventsCrashAfterRefMoved(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		rcv := newTagReceiver(t)
		f.c.env = append(f.c.env, "FORGE__WEBHOOK__ALLOWED_HOST_LIST=loopback", "FORGE__WEBHOOK__DELIVER_TIMEOUT=1")
		f.start("")
		f.createRepo("tagged", true)
		f.mustAPI("POST", "/api/v1/repos/root/tagged/hooks",
			`{"type":"gitea","config":{"url":"`+rcv.URL+`","content_type":"json"},"events":["create","delete","push"],"active":true}`, 201)
		work := t.TempDir()
		mustClientGit(t, work, "clone", "-q", f.pushURL("tagged"), ".")
		head, err := exec.Command("git", "-C", work, "rev-parse", "--short=7", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		h := strings.TrimSpace(string(head))

		// A tag pushed without a crash: its events once.
		mustClientGit(t, work, "tag", "v0")
		mustClientGit(t, work, "push", "-q", "origin", "v0")
		want := []string{"create v0 tag", "push refs/tags/v0 0.." + h}
		if got := rcv.waitFor(t, f, 2); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("normal tag push: %q, want %q", got, want)
		}
		f.stop()

		// Killed after the ref moved, before its record and events.
		mustClientGit(t, work, "tag", "v1")
		f.start(repos.FailpointAfterRefUpdate)
		clientGit(t, work, "push", "-q", "origin", "v1") // fails: the server died
		f.waitKilled()
		if out, err := exec.Command("git", "--git-dir="+f.repoDir("tagged"), "rev-parse", "--verify", "-q", "refs/tags/v1").Output(); err != nil {
			t.Fatalf("the tag did not move before the failpoint: %v %s", err, out)
		}
		f.start("")
		want = append(want, "create v1 tag", "push refs/tags/v1 0.."+h)
		sort.Strings(want)
		if got := rcv.waitFor(t, f, 4); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("after the crash of a tag push: %q, want %q", got, want)
		}
		f.stop()

		// The tag's deletion, killed the same way.
		f.start(repos.FailpointAfterRefUpdate)
		clientGit(t, work, "push", "-q", "origin", ":refs/tags/v1")
		f.waitKilled()
		if err := exec.Command("git", "--git-dir="+f.repoDir("tagged"), "rev-parse", "--verify", "-q", "refs/tags/v1").Run(); err == nil {
			t.Fatal("the tag was not deleted before the failpoint")
		}
		f.start("")
		want = append(want, "delete v1 tag", "push refs/tags/v1 "+h+"..0")
		sort.Strings(want)
		if got := rcv.waitFor(t, f, 6); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("after the crash of a tag deletion: %q, want %q", got, want)
		}
		// The tag list still answers from git.
		body := f.mustAPI("GET", "/api/v1/repos/root/tagged/tags", "", 200)
		if !strings.Contains(string(body), `"name":"v0"`) || strings.Contains(string(body), `"name":"v1"`) {
			t.Fatalf("tags: %s", body)
		}
	})
}
