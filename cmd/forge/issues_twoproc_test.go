package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestIssueNumbersTwoServeProcesses: two real `forge serve` processes on
// one PostgreSQL database; 100 clients open issues in one repository at
// once, half through each. The numbers are exactly 1..100 (no gap, no
// duplicate) and the repository counts 100 open issues.
func TestIssueNumbersTwoServeProcesses(t *testing.T) {
	cr := newCrashRig(t, "postgres")
	p1 := startServe(t, cr.c)
	second := &cli{t: t, bin: cr.c.bin, dir: cr.c.dir, env: append(append([]string{}, cr.c.env...),
		"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(freePort(t)),
		"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(freePort(t)))}
	p2 := startServe(t, second)
	if p1.base == p2.base {
		t.Fatal("both processes on one port")
	}
	if code, body := p1.call("POST", "/api/v1/user/repos", cr.token, `{"name":"busy"}`); code != 201 {
		t.Fatalf("create repository: %d %s", code, body)
	}
	const n = 100
	var (
		mu      sync.Mutex
		numbers []int64
		wg      sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := []*serveProc{p1, p2}[i%2]
			code, body := p.call("POST", "/api/v1/repos/alice/busy/issues", cr.token, fmt.Sprintf(`{"title":"issue %d"}`, i))
			var is struct{ Number int64 }
			if code != 201 || json.Unmarshal(body, &is) != nil {
				t.Errorf("create %d: %d %s", i, code, body)
				return
			}
			mu.Lock()
			numbers = append(numbers, is.Number)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	slices.Sort(numbers)
	for i, num := range numbers {
		if num != int64(i+1) {
			t.Fatalf("numbers %v, want 1..%d", numbers, n)
		}
	}
	if len(numbers) != n {
		t.Fatalf("%d issues, want %d", len(numbers), n)
	}
	code, body := p2.call("GET", "/api/v1/repos/alice/busy", cr.token, "")
	var repo struct {
		OpenIssues int `json:"open_issues_count"`
	}
	if code != 200 || json.Unmarshal(body, &repo) != nil || repo.OpenIssues != n {
		t.Fatalf("open_issues_count: %d %s", code, body)
	}
}

// TestIssueCreationsKilled: forge is killed with SIGKILL while 32 clients
// open issues in one repository (creations commit in batches, store
// issue_batch.go). After a restart the numbers are exactly 1..N, the
// repository counts N open issues, every creation answered 201 is there
// under its number with its title, and the next creation gets N+1.
func TestIssueCreationsKilled(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite3", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			cr := newCrashRig(t, kind)
			p := startServe(t, cr.c)
			if code, body := p.call("POST", "/api/v1/user/repos", cr.token, `{"name":"busy"}`); code != 201 {
				t.Fatalf("create repository: %d %s", code, body)
			}
			var (
				mu    sync.Mutex
				acked = map[int64]string{} // number → title
				wg    sync.WaitGroup
			)
			for w := range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						title := fmt.Sprintf("issue %d-%d", w, i)
						code, body := p.call("POST", "/api/v1/repos/alice/busy/issues", cr.token, fmt.Sprintf(`{"title":%q}`, title))
						var is struct{ Number int64 }
						if code != 201 || json.Unmarshal(body, &is) != nil {
							return // killed
						}
						mu.Lock()
						acked[is.Number] = title
						mu.Unlock()
					}
				}()
			}
			for { // kill once creations are well under way
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= 100 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			p.cmd.Process.Kill()
			<-p.done
			wg.Wait()

			p = startServe(t, cr.c)
			code, body := p.call("GET", "/api/v1/repos/alice/busy", cr.token, "")
			var repo struct {
				OpenIssues int64 `json:"open_issues_count"`
			}
			if code != 200 || json.Unmarshal(body, &repo) != nil {
				t.Fatalf("repository: %d %s", code, body)
			}
			n := repo.OpenIssues
			if n < int64(len(acked)) {
				t.Fatalf("open_issues_count %d, but %d creations were answered", n, len(acked))
			}
			stored := map[int64]string{}
			for page := 1; ; page++ {
				code, body := p.call("GET", fmt.Sprintf("/api/v1/repos/alice/busy/issues?state=all&type=issues&limit=50&page=%d", page), cr.token, "")
				var list []struct {
					Number int64
					Title  string
				}
				if code != 200 || json.Unmarshal(body, &list) != nil {
					t.Fatalf("issues page %d: %d %s", page, code, body)
				}
				if len(list) == 0 {
					break
				}
				for _, is := range list {
					if _, dup := stored[is.Number]; dup {
						t.Fatalf("number %d twice", is.Number)
					}
					stored[is.Number] = is.Title
				}
			}
			if int64(len(stored)) != n {
				t.Fatalf("%d issues stored, open_issues_count %d", len(stored), n)
			}
			for num := int64(1); num <= n; num++ {
				if _, ok := stored[num]; !ok {
					t.Fatalf("number %d missing of 1..%d", num, n)
				}
			}
			for num, title := range acked {
				if stored[num] != title {
					t.Fatalf("answered issue %d %q, stored %q", num, title, stored[num])
				}
			}
			code, body = p.call("POST", "/api/v1/repos/alice/busy/issues", cr.token, `{"title":"after"}`)
			var next struct{ Number int64 }
			if code != 201 || json.Unmarshal(body, &next) != nil || next.Number != n+1 {
				t.Fatalf("creation after the restart: %d %s, want number %d", code, body, n+1)
			}
			t.Logf("%d creations answered, %d stored before the kill", len(acked), n)
		})
	}
}
