package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestScaleOutTwoServeProcesses is the deployment of docs/scale-out.md
// ("Running several processes"): two `forge serve` processes on one
// PostgreSQL database, one repository root, one SECRET_KEY and one
// ROOT_URL, driven at once. Writes through both lose and duplicate
// nothing (issue numbers, comments, labels, branch records, notification
// threads, names that must be unique); every GET compared between the two
// processes answers the same bytes (bodies compared raw, nothing
// normalised; headers such as Date are not compared); a change committed
// through one process (push, token revocation, collaborator and team
// membership, a repository deleted and recreated) is what the other's
// next request sees; the notification
// fan-out, run by both processes' notifiers, writes one thread per issue
// and watcher.
func TestScaleOutTwoServeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two servers")
	}
	// One ROOT_URL for both, as behind a load balancer: links in answers
	// (clone URLs, notification URLs) name the site, not the process.
	cr := newCrashRig(t, "postgres", "FORGE__SERVER__ROOT_URL=http://forge.example/")
	newUser := func(name string) string {
		out, errOut, code := cr.c.run("admin", "user", "create", "--username", name, "--password", name+"-password",
			"--email", name+"@example.org", "--must-change-password=false", "--access-token")
		token := lastWord(out)
		if code != 0 || len(token) != 40 {
			t.Fatalf("create %s: %d %q %q", name, code, out, errOut)
		}
		return token
	}
	alice := cr.token
	bob, carol, dave := newUser("bob"), newUser("carol"), newUser("dave")
	a, b := serveOnFreshPorts(t, cr.c), serveOnFreshPorts(t, cr.c)
	both := []*serveProc{a, b}

	expect := func(p *serveProc, method, path, token, body string, want int) []byte {
		t.Helper()
		code, out := p.call(method, path, token, body)
		if code != want {
			t.Fatalf("%s %s on %s: %d %s, want %d", method, path, p.base, code, out, want)
		}
		return out
	}
	// same GETs path from A, B and A again until both A answers agree
	// (nothing changed meanwhile: every change here only moves forward),
	// then B's answer must be the same bytes. It returns the answer.
	same := func(path, token string) []byte {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			first := expect(a, "GET", path, token, "", 200)
			other := expect(b, "GET", path, token, "", 200)
			again := expect(a, "GET", path, token, "", 200)
			if bytes.Equal(first, again) {
				if !bytes.Equal(first, other) {
					t.Fatalf("GET %s differs between the processes:\n%s\n%s", path, first, other)
				}
				return first
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s never settled", path)
			}
		}
	}
	// concurrently runs fn(i, process) for i in 0..n-1, alternating the
	// processes.
	concurrently := func(n int, fn func(i int, p *serveProc)) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(i, both[i%2])
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	// call is serveProc.call for goroutines: a wrong status is an error.
	call := func(p *serveProc, method, path, token, body string, want int) []byte {
		code, out := p.call(method, path, token, body)
		if code != want {
			t.Errorf("%s %s on %s: %d %s, want %d", method, path, p.base, code, out, want)
		}
		return out
	}

	expect(a, "POST", "/api/v1/user/repos", alice, `{"name":"work","auto_init":true}`, 201)
	expect(b, "PUT", "/api/v1/repos/alice/work/subscription", bob, "", 200)

	// Issues, comments and their notification threads.
	{
		const n = 40
		numbers := make([]int64, n)
		concurrently(n, func(i int, p *serveProc) {
			var is struct{ Number int64 }
			json.Unmarshal(call(p, "POST", "/api/v1/repos/alice/work/issues", alice, fmt.Sprintf(`{"title":"issue %d"}`, i), 201), &is)
			numbers[i] = is.Number
		})
		slices.Sort(numbers)
		for i, num := range numbers {
			if num != int64(i+1) {
				t.Fatalf("issue numbers %v, want 1..%d", numbers, n)
			}
		}
		var issues []struct{ Number int64 }
		json.Unmarshal(same("/api/v1/repos/alice/work/issues?state=all&limit=50", alice), &issues)
		if len(issues) != n {
			t.Fatalf("%d issues listed, want %d", len(issues), n)
		}
		same("/api/v1/repos/alice/work", alice)

		// Both notifiers fan the creates out; bob, who watches, ends with
		// one thread per issue, listed alike by both processes.
		const threads = "/api/v1/notifications?all=true&limit=50"
		waitThreads := func(p *serveProc, status string, want int) {
			t.Helper()
			deadline := time.Now().Add(30 * time.Second)
			for {
				var got []struct{ ID int64 }
				json.Unmarshal(expect(p, "GET", "/api/v1/notifications?limit=50&status-types="+status, bob, "", 200), &got)
				if len(got) == want {
					return
				}
				if len(got) > want || time.Now().After(deadline) {
					t.Fatalf("bob has %d %s threads on %s, want %d", len(got), status, p.base, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		waitThreads(b, "unread", n)
		checkThreads := func() {
			t.Helper()
			var list []struct {
				Subject struct{ URL string }
			}
			json.Unmarshal(same(threads, bob), &list)
			seen := map[string]bool{}
			for _, th := range list {
				seen[th.Subject.URL] = true
			}
			for i := 1; i <= n; i++ {
				if !seen[fmt.Sprintf("http://forge.example/api/v1/repos/alice/work/issues/%d", i)] {
					t.Fatalf("no thread for issue %d among %d threads: %v", i, len(list), seen)
				}
			}
			if len(list) != n {
				t.Fatalf("%d threads for %d issues", len(list), n)
			}
		}
		checkThreads()

		// Read, then one comment on each issue through either process:
		// every thread is unread again once both notifiers are through,
		// and there are still exactly n.
		expect(a, "PUT", "/api/v1/notifications", bob, "", 205)
		if body := same("/api/v1/notifications/new", bob); string(bytes.TrimSpace(body)) != `{"new":0}` {
			t.Fatalf("after reading: %s", body)
		}
		concurrently(n, func(i int, p *serveProc) {
			call(p, "POST", fmt.Sprintf("/api/v1/repos/alice/work/issues/%d/comments", i+1), alice, fmt.Sprintf(`{"body":"comment %d"}`, i), 201)
		})
		waitThreads(a, "unread", n)
		checkThreads()
		for _, i := range []int{1, n / 2, n} {
			var comments []struct{ Body string }
			json.Unmarshal(same(fmt.Sprintf("/api/v1/repos/alice/work/issues/%d/comments", i), alice), &comments)
			if len(comments) != 1 {
				t.Fatalf("issue %d has %d comments", i, len(comments))
			}
		}
	}

	// Labels and unique names.
	{
		const n = 20
		concurrently(n, func(i int, p *serveProc) {
			call(p, "POST", "/api/v1/repos/alice/work/labels", alice, fmt.Sprintf(`{"name":"label-%02d","color":"#00aabb"}`, i), 201)
		})
		var labels []struct {
			ID   int64
			Name string
		}
		json.Unmarshal(same("/api/v1/repos/alice/work/labels?limit=50", alice), &labels)
		names := map[string]bool{}
		var ids []string
		for _, l := range labels {
			names[l.Name] = true
			ids = append(ids, strconv.FormatInt(l.ID, 10))
		}
		if len(labels) != n || len(names) != n {
			t.Fatalf("%d labels, %d names, want %d", len(labels), len(names), n)
		}
		// The same labels put on one issue through both at once: each
		// once.
		concurrently(4, func(i int, p *serveProc) {
			call(p, "POST", "/api/v1/repos/alice/work/issues/1/labels", alice, `{"labels":[`+strings.Join(ids, ",")+`]}`, 200)
		})
		var onIssue []struct{ ID int64 }
		json.Unmarshal(same("/api/v1/repos/alice/work/issues/1/labels", alice), &onIssue)
		if len(onIssue) != n {
			t.Fatalf("issue 1 has %d labels, want %d", len(onIssue), n)
		}

		// Names forge keeps unique, taken through both at once: one
		// wins, the other is refused as Gitea refuses it.
		race := func(method, path, body string, lose int) {
			t.Helper()
			codes := make([]int, 2)
			concurrently(2, func(i int, p *serveProc) { codes[i], _ = p.call(method, path, alice, body) })
			slices.Sort(codes)
			if codes[0] != 201 || codes[1] != lose {
				t.Fatalf("%s %s through both: %v, want one 201 and one %d", method, path, codes, lose)
			}
		}
		race("POST", "/api/v1/user/repos", `{"name":"twin"}`, 409)
		expect(a, "POST", "/api/v1/orgs", alice, `{"username":"acme"}`, 201)
		race("POST", "/api/v1/orgs/acme/teams", `{"name":"devs","permission":"read","units":["repo.code","repo.issues"]}`, 422)
		same("/api/v1/orgs/acme/teams", alice)
	}

	// Pushes through both.
	{
		const n = 6
		work := t.TempDir()
		git := func(env []string, args ...string) {
			t.Helper()
			cmd := exec.Command("git", args...)
			cmd.Dir = work
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "LC_ALL=C",
				"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
				"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.org",
				"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.org",
				"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z"}, env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("git %v: %v\n%s", args, err, out)
			}
		}
		// The credentials travel in the environment (an extra header
		// from GIT_CONFIG_*), never on the command line.
		auth := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader",
			"GIT_CONFIG_VALUE_0=Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+alice))}
		git(nil, "init", "-q", "-b", "main", ".")
		for i := range n {
			name := fmt.Sprintf("b%d", i)
			git(nil, "checkout", "-q", "--orphan", name)
			git(nil, "rm", "-rqf", "--ignore-unmatch", ".")
			if err := os.WriteFile(filepath.Join(work, name+".txt"), []byte("branch "+name+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git(nil, "add", ".")
			git(nil, "commit", "-qm", "on "+name)
		}
		if t.Failed() {
			t.FailNow()
		}
		concurrently(n, func(i int, p *serveProc) {
			git(auth, "push", "-q", p.base+"/alice/work.git", fmt.Sprintf("b%d", i))
		})
		var branches []struct{ Name string }
		json.Unmarshal(same("/api/v1/repos/alice/work/branches?limit=50", alice), &branches)
		if len(branches) != n+1 {
			t.Fatalf("branches %v, want main and %d pushed", branches, n)
		}
		read := func(p *serveProc, i int) string {
			t.Helper()
			var file struct{ Content string }
			json.Unmarshal(expect(p, "GET", fmt.Sprintf("/api/v1/repos/alice/work/contents/b%d.txt?ref=b%d", i, i), alice, "", 200), &file)
			text, _ := base64.StdEncoding.DecodeString(file.Content)
			return string(text)
		}
		for i := range n {
			same(fmt.Sprintf("/api/v1/repos/alice/work/branches/b%d", i), alice)
			same(fmt.Sprintf("/api/v1/repos/alice/work/contents/b%d.txt?ref=b%d", i, i), alice)
			if got, want := read(b, i), fmt.Sprintf("branch b%d\n", i); got != want {
				t.Fatalf("b%d.txt: %q, want %q", i, got, want)
			}
		}
		// A push through A is what B serves next, though B has read (and
		// cached) the branch's previous state.
		from, to := a, b
		for round := range 3 {
			text := fmt.Sprintf("round %d\n", round)
			git(nil, "checkout", "-q", "b0")
			os.WriteFile(filepath.Join(work, "b0.txt"), []byte(text), 0o644)
			git(nil, "commit", "-qam", text)
			git(auth, "push", "-q", from.base+"/alice/work.git", "b0")
			if t.Failed() {
				t.FailNow()
			}
			if got := read(to, 0); got != text {
				t.Fatalf("B serves b0.txt %q after a push through A, want %q", got, text)
			}
			same("/api/v1/repos/alice/work/branches/b0", alice)
			from, to = to, from
		}
	}

	// A private repository deleted and recreated public through A, at
	// once: B, which has read (and cached) the old one's file, serves
	// nothing of it through the new one. Before, B's git cache kept the
	// old repository's objects for up to a second (or for as long as the
	// new directory reused the old one's inode).
	{
		expect(a, "POST", "/api/v1/user/repos", alice, `{"name":"reborn","private":true,"auto_init":true}`, 201)
		var file struct{ Commit struct{ SHA string } }
		json.Unmarshal(expect(a, "POST", "/api/v1/repos/alice/reborn/contents/secret.txt", alice,
			`{"content":"c2VjcmV0Cg==","message":"secret"}`, 201), &file)
		old := "/api/v1/repos/alice/reborn/contents/secret.txt?ref=" + file.Commit.SHA
		expect(b, "GET", old, alice, "", 200)
		expect(a, "DELETE", "/api/v1/repos/alice/reborn", alice, "", 204)
		expect(a, "POST", "/api/v1/user/repos", alice, `{"name":"reborn","auto_init":true}`, 201)
		if code, body := anonCall(b, old); code != 404 {
			t.Fatalf("B serves the deleted repository's file to anyone: %d %.300s", code, body)
		}
		same("/api/v1/repos/alice/reborn/contents", alice)
	}

	// Access changes through one, refused by the other.
	{
		warm := func(path, token string, want int) {
			t.Helper()
			for _, p := range []*serveProc{a, b, a, b} {
				expect(p, "GET", path, token, "", want)
			}
		}
		// A collaborator removed through A.
		expect(a, "POST", "/api/v1/user/repos", alice, `{"name":"sec","private":true}`, 201)
		expect(b, "PUT", "/api/v1/repos/alice/sec/collaborators/carol", alice, `{"permission":"write"}`, 204)
		warm("/api/v1/repos/alice/sec", carol, 200)
		same("/api/v1/repos/alice/sec/collaborators", alice)
		expect(a, "DELETE", "/api/v1/repos/alice/sec/collaborators/carol", alice, "", 204)
		expect(b, "GET", "/api/v1/repos/alice/sec", carol, "", 404)
		same("/api/v1/repos/alice/sec/collaborators", alice)

		// Team membership changed through A, seen by B's next request.
		var teams []struct {
			ID   int64
			Name string
		}
		json.Unmarshal(same("/api/v1/orgs/acme/teams", alice), &teams)
		var devs int64
		for _, tm := range teams {
			if tm.Name == "devs" {
				devs = tm.ID
			}
		}
		if devs == 0 {
			t.Fatalf("no team devs: %v", teams)
		}
		expect(a, "POST", "/api/v1/orgs/acme/repos", alice, `{"name":"inner","private":true}`, 201)
		expect(a, "PUT", fmt.Sprintf("/api/v1/teams/%d/repos/acme/inner", devs), alice, "", 204)
		warm("/api/v1/repos/acme/inner", dave, 404)
		expect(a, "PUT", fmt.Sprintf("/api/v1/teams/%d/members/dave", devs), alice, "", 204)
		expect(b, "GET", "/api/v1/repos/acme/inner", dave, "", 200)
		same(fmt.Sprintf("/api/v1/teams/%d/members", devs), alice)
		warm("/api/v1/repos/acme/inner", dave, 200)
		expect(a, "DELETE", fmt.Sprintf("/api/v1/teams/%d/members/dave", devs), alice, "", 204)
		expect(b, "GET", "/api/v1/repos/acme/inner", dave, "", 404)
		same(fmt.Sprintf("/api/v1/teams/%d/members", devs), alice)

		// A token revoked through A (its owner signs in with the
		// password to list and delete it).
		warm("/api/v1/user", dave, 200)
		var toks []struct{ ID int64 }
		if code, body := basicCall(a, "GET", "/api/v1/users/dave/tokens", "dave", "dave-password"); code != 200 || json.Unmarshal(body, &toks) != nil || len(toks) != 1 {
			t.Fatalf("list tokens: %d %s", code, body)
		}
		if code, body := basicCall(a, "DELETE", "/api/v1/users/dave/tokens/"+strconv.FormatInt(toks[0].ID, 10), "dave", "dave-password"); code != 204 {
			t.Fatalf("revoke: %d %s", code, body)
		}
		expect(b, "GET", "/api/v1/user", dave, "", 401)
	}
}

// serveOnFreshPorts starts `forge serve` from c's environment on ports of
// its own; another program taking a port between freePort and forge's
// bind is retried with new ports.
func serveOnFreshPorts(t *testing.T, c *cli) *serveProc {
	t.Helper()
	for attempt := 0; ; attempt++ {
		own := &cli{t: t, bin: c.bin, dir: c.dir, env: append(append([]string{}, c.env...),
			"FORGE__SERVER__HTTP_PORT="+strconv.Itoa(freePort(t)),
			"FORGE__SERVER__GRPC_ADDR=127.0.0.1:"+strconv.Itoa(freePort(t)))}
		p, err := launchServe(t, own)
		if err == nil {
			return p
		}
		if attempt == 4 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
}

// anonCall sends a GET without credentials.
func anonCall(p *serveProc, path string) (int, []byte) {
	resp, err := http.Get(p.base + path)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// basicCall sends a request signed in with a password.
func basicCall(p *serveProc, method, path, user, password string) (int, []byte) {
	req, _ := http.NewRequest(method, p.base+path, nil)
	req.SetBasicAuth(user, password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}
