package app_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"forge/services/store/storetest"
)

// BenchmarkPush pushes one commit with the real `git push` over smart HTTP
// into a repository with 10 and 10,000 branches and reports forge's own
// time per push: the wall time of its handlers for the push's requests
// (the ref advertisement and the receive-pack POST, which includes git
// receive-pack, forge's hooks and the branch records), not the client's.
//
//	go test -run '^$' -bench Push -benchtime 20x ./cmd/forge/app/
func BenchmarkPush(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("sqlite/branches=%d", n), func(b *testing.B) { benchPush(b, storetest.Backends[0], n) })
	}
}

func benchPush(b *testing.B, kind string, branches int) {
	s := startServer(b, kind, nil)
	if r := s.do("POST", "/api/v1/user/repos", `{"name":"many","auto_init":true}`,
		"Authorization", "token "+s.AdminToken, "Content-Type", jsonCT); r.Status != 201 {
		b.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	// Time forge's handlers for git's requests, on a listener of our own.
	var mu sync.Mutex
	var advertise, receive time.Duration
	h := s.App.Handler()
	timed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		h.ServeHTTP(w, r)
		d := time.Since(t0)
		mu.Lock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
			receive += d
		case strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-receive-pack":
			advertise += d
		}
		mu.Unlock()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: timed}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	// A token as the password, as CI pushes: a password would add its hash
	// check to each of the push's two requests.
	remote := fmt.Sprintf("http://root:%s@%s/root/many.git", s.AdminToken, ln.Addr())

	work := b.TempDir()
	git := func(args ...string) string {
		b.Helper()
		out, err := gitTry(work, args...)
		if err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	git("clone", "-q", remote, ".")
	head := strings.TrimSpace(git("rev-parse", "HEAD"))
	var in strings.Builder
	for i := 1; i < branches; i++ { // main exists
		fmt.Fprintf(&in, "create refs/heads/branch-%05d %s\n", i, head)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = work, strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("update-ref: %v\n%s", err, out)
	}
	git("-c", "http.postBuffer=104857600", "push", "-q", "origin", "--all") // one request: no rewind on a retry
	if r := s.do("GET", "/api/v1/repos/root/many/branches?limit=1", "", "Authorization", "token "+s.AdminToken); r.Status != 200 {
		b.Fatalf("branches: %d %s", r.Status, r.Body)
	}

	mu.Lock()
	advertise, receive = 0, 0
	mu.Unlock()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(work+"/f.txt", []byte(fmt.Sprint(i)), 0o644)
		git("add", "f.txt")
		git("commit", "-q", "-m", fmt.Sprint("c", i))
		b.StartTimer()
		git("push", "-q", "origin", "main")
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(advertise.Microseconds())/1000/float64(b.N), "advertise-ms/op")
	b.ReportMetric(float64(receive.Microseconds())/1000/float64(b.N), "receive-ms/op")
	b.ReportMetric(float64((advertise+receive).Microseconds())/1000/float64(b.N), "forge-ms/op")
	// The record follows the push.
	sha := strings.TrimSpace(git("rev-parse", "HEAD"))
	if r := s.do("GET", "/api/v1/repos/root/many/branches/main", "", "Authorization", "token "+s.AdminToken); !strings.Contains(string(r.Body), sha) {
		b.Fatalf("branch record: %d %s", r.Status, r.Body)
	}
}
