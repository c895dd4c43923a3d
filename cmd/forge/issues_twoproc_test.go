package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
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
