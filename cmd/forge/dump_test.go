package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forge/services/config"
	"forge/services/git"
	"forge/services/store"
	"forge/services/store/storetest"
)

// TestDumpRestoreRoundTrip: forge dump of a seeded forge (issues, a pushed
// branch, a release asset, a webhook with a secret) restores with forge
// restore onto an empty data directory and database, of the same backend
// or the other one: every table equals the source row by row, every
// repository has the same refs and passes fsck, and a server started on
// the restored data answers an API read, takes the old token and signs a
// webhook delivery with the old (sealed) secret. A dump taken while issues
// are created and commits pushed restores to a state where the branch
// records equal git's refs.
func TestDumpRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ from, to string }{{"sqlite3", "sqlite3"}, {"postgres", "postgres"}, {"sqlite3", "postgres"}} {
		t.Run(c.from+"_to_"+c.to, func(t *testing.T) {
			t.Parallel()
			dumpRoundTrip(t, c.from, c.to)
		})
	}
}

const hookSecret = "hook-secret-value"

func dumpRoundTrip(t *testing.T, from, to string) {
	var (
		deliveries = make(chan http.Header, 16)
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(hookSecret))
		mac.Write(body)
		h := r.Header.Clone()
		h.Set("X-Test-Expected-Signature", hex.EncodeToString(mac.Sum(nil)))
		select {
		case deliveries <- h:
		default:
		}
	}))
	t.Cleanup(receiver.Close)

	src := newCrashForge(t, from)
	src.c.env = append(src.c.env, "FORGE__WEBHOOK__ALLOWED_HOST_LIST=*")
	src.start("")
	src.createRepo("proj", true)
	src.mustAPI("POST", "/api/v1/repos/root/proj/issues", `{"title":"first","body":"body with ünïcode"}`, 201)
	src.mustAPI("POST", "/api/v1/repos/root/proj/issues/1/comments", `{"body":"a comment"}`, 201)
	src.mustAPI("POST", "/api/v1/repos/root/proj/labels", `{"name":"bug","color":"#ff0000"}`, 201)
	hook := src.mustAPI("POST", "/api/v1/repos/root/proj/hooks",
		`{"type":"gitea","active":true,"events":["push"],"config":{"url":"`+receiver.URL+`","content_type":"json","secret":"`+hookSecret+`"}}`, 201)
	var hookID struct{ ID int64 }
	json.Unmarshal(hook, &hookID)
	var rel struct{ ID int64 }
	json.Unmarshal(src.mustAPI("POST", "/api/v1/repos/root/proj/releases", `{"tag_name":"v1","name":"v1","target_commitish":"main"}`, 201), &rel)
	if code, b, err := src.upload(rel.ID, "notes.txt", "release notes\n"); err != nil || code != 201 {
		t.Fatalf("upload: %d %s %v", code, b, err)
	}
	src.createRepo("empty", false)
	work := t.TempDir()
	mustClientGit(t, work, "clone", "-q", src.pushURL("proj"), "w")
	work = filepath.Join(work, "w")
	mustClientGit(t, work, "checkout", "-q", "-b", "feature")
	os.WriteFile(filepath.Join(work, "f.txt"), []byte("feature\n"), 0o644)
	mustClientGit(t, work, "add", ".")
	mustClientGit(t, work, "commit", "-qm", "feature")
	mustClientGit(t, work, "push", "-q", "origin", "feature")

	// A dump while writers run: issues created, commits pushed.
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			src.api("POST", "/api/v1/repos/root/proj/issues", fmt.Sprintf(`{"title":"busy %d"}`, i))
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			os.WriteFile(filepath.Join(work, "f.txt"), []byte(fmt.Sprintf("change %d\n", i)), 0o644)
			clientGit(t, work, "commit", "-qam", fmt.Sprintf("change %d", i))
			clientGit(t, work, "push", "-q", "origin", "feature", fmt.Sprintf("feature:busy-%d", i))
		}
	}()
	time.Sleep(500 * time.Millisecond)
	busyDump := filepath.Join(t.TempDir(), "busy.tar.gz")
	out, errOut, code := src.c.run("dump", "--file", busyDump)
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if code != 0 {
		t.Fatalf("dump while writing: %d %s %s", code, out, errOut)
	}

	// A dump of the quiet forge, compared row by row after restore.
	src.stop()
	quietDump := filepath.Join(t.TempDir(), "forge-dump.tar.gz")
	if out, errOut, code := src.c.run("dump", "--file", quietDump); code != 0 {
		t.Fatalf("dump: %d %s %s", code, out, errOut)
	}
	if st, err := os.Stat(quietDump); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("archive mode: %v %v (want 0600: it holds the secret key)", st.Mode(), err)
	}

	dst, dstDB := restoreTarget(t, to)
	dst.env = append(dst.env, "FORGE__WEBHOOK__ALLOWED_HOST_LIST=*")
	// Another SECRET_KEY could not unseal the dump's secrets: refused,
	// nothing written.
	other := &cli{t: t, bin: dst.bin, dir: dst.dir, env: append(append([]string{}, dst.env...), "FORGE__SECURITY__SECRET_KEY=another-key")}
	if _, errOut, code := other.run("restore", "--file", quietDump); code != 1 || !strings.Contains(errOut, "SECRET_KEY differs") {
		t.Fatalf("restore with another SECRET_KEY: %d %q", code, errOut)
	}
	if out, errOut, code := dst.run("restore", "--file", quietDump); code != 0 {
		t.Fatalf("restore: %d %s %s", code, out, errOut)
	}
	// A second restore onto the now full target is refused.
	if _, errOut, code := dst.run("restore", "--file", quietDump); code != 1 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("restore onto a full target: %d %q", code, errOut)
	}

	srcDB := srcDatabase(t, src)
	compareTables(t, srcDB, dstDB)
	compareRepositories(t, filepath.Join(src.c.dir, "data", "repositories"), filepath.Join(dst.dir, "data", "repositories"))
	compareFiles(t, filepath.Join(src.c.dir, "data", "attachments"), filepath.Join(dst.dir, "data", "attachments"))

	// The restored forge serves: an API read, the old token, the sealed
	// webhook secret.
	p := serveOnFreshPorts(t, dst)
	if code, body := p.call("GET", "/api/v1/repos/root/proj/issues/1", src.token, ""); code != 200 || !strings.Contains(string(body), "ünïcode") {
		t.Fatalf("issue on the restored forge: %d %s", code, body)
	}
	if code, body := p.call("GET", "/api/v1/user", src.token, ""); code != 200 || !strings.Contains(string(body), `"login":"root"`) {
		t.Fatalf("token login on the restored forge: %d %s", code, body)
	}
	// New rows take new ids (sequences were set past the restored ones).
	for _, path := range []string{"/api/v1/repos/root/proj/issues", "/api/v1/repos/root/proj/labels"} {
		if code, body := p.call("POST", path, src.token, `{"title":"after restore","name":"after-restore","color":"#00ff00"}`); code != 201 {
			t.Fatalf("POST %s on the restored forge: %d %s", path, code, body)
		}
	}
	if code, body := p.call("POST", fmt.Sprintf("/api/v1/repos/root/proj/hooks/%d/tests", hookID.ID), src.token, ""); code != 204 {
		t.Fatalf("webhook test: %d %s", code, body)
	}
	select {
	case h := <-deliveries:
		if got, want := h.Get("X-Gitea-Signature"), h.Get("X-Test-Expected-Signature"); got != want {
			t.Fatalf("delivery signed %q, want %q (the secret did not survive)", got, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no webhook delivery from the restored forge; log:\n%s", p.log)
	}

	// The dump taken under writers: git and records agree.
	busy, busyDB := restoreTarget(t, to)
	if out, errOut, code := busy.run("restore", "--file", busyDump); code != 0 {
		t.Fatalf("restore busy dump: %d %s %s", code, out, errOut)
	}
	assertRecordsMatchGit(t, busyDB, filepath.Join(busy.dir, "data", "repositories"))
	if out, errOut, code := busy.run("doctor"); code != 0 {
		t.Fatalf("doctor on the restored busy dump: %d %s %s", code, out, errOut)
	}
}

// restoreTarget is an empty work directory and an empty database.
func restoreTarget(t *testing.T, kind string) (*cli, *store.Store) {
	db := storetest.Empty(t, kind)
	c := newCLI(t)
	if kind == "postgres" {
		c.env = append(c.env, postgresEnv(db)...)
	} else {
		db.Path = filepath.Join(c.dir, "data", "forge.db")
	}
	return c, lazyStore(t, db)
}

func srcDatabase(t *testing.T, f *crashForge) *store.Store {
	db := config.Default().Database
	db.Type, db.Path = "sqlite3", filepath.Join(f.c.dir, "data", "forge.db")
	for _, kv := range f.c.env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "FORGE__DATABASE__") {
			switch strings.TrimPrefix(k, "FORGE__DATABASE__") {
			case "DB_TYPE":
				db.Type = v
			case "HOST":
				db.Host = v
			case "NAME":
				db.Name = v
			case "USER":
				db.User = v
			case "PASSWD":
				db.Passwd = v
			case "SSL_MODE":
				db.SSLMode = v
			}
		}
	}
	return lazyStore(t, db)
}

// lazyStore opens db when first used (after restore created it).
func lazyStore(t *testing.T, db config.Database) *store.Store {
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tableRows reads every row of every table, each as JSON of normalised
// values (booleans as 0/1, bytes as text), sorted.
func tableRows(t *testing.T, s *store.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	tables, err := s.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, name := range tables {
		if name == "commit_count" {
			continue // PostgreSQL's count of commits, per backend process: not data
		}
		rows, err := s.DB().WithContext(ctx).Raw(`SELECT * FROM "` + name + `"`).Rows()
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var list []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			m := map[string]any{}
			for i, v := range vals {
				switch x := v.(type) {
				case bool:
					if x {
						v = int64(1)
					} else {
						v = int64(0)
					}
				case []byte:
					v = string(x)
				case int32:
					v = int64(x)
				}
				m[cols[i]] = v
			}
			b, _ := json.Marshal(m)
			list = append(list, string(b))
		}
		rows.Close()
		sort.Strings(list)
		out[name] = list
	}
	return out
}

func compareTables(t *testing.T, src, dst *store.Store) {
	t.Helper()
	a, b := tableRows(t, src), tableRows(t, dst)
	if len(a) != len(b) {
		t.Errorf("tables: source %d, restored %d", len(a), len(b))
	}
	rows := 0
	for name, want := range a {
		got, ok := b[name]
		if !ok {
			t.Errorf("table %s missing after restore", name)
			continue
		}
		rows += len(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("table %s differs:\nsource:   %v\nrestored: %v", name, want, got)
		}
	}
	if rows < 10 || len(a["issues"]) == 0 || len(a["webhooks"]) == 0 || len(a["attachments"]) == 0 {
		t.Fatalf("the source has too little data to compare (%d rows)", rows)
	}
}

// repoDirs lists owner/name.git under root.
func repoDirs(t *testing.T, root string) []string {
	matches, err := filepath.Glob(filepath.Join(root, "*", "*.git"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range matches {
		rel, _ := filepath.Rel(root, m)
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

func compareRepositories(t *testing.T, srcRoot, dstRoot string) {
	t.Helper()
	ctx := context.Background()
	sg, dg := &git.Store{Root: srcRoot}, &git.Store{Root: dstRoot}
	a, b := repoDirs(t, srcRoot), repoDirs(t, dstRoot)
	if strings.Join(a, " ") != strings.Join(b, " ") || len(a) != 2 {
		t.Fatalf("repositories: source %v, restored %v", a, b)
	}
	for _, r := range a {
		want, err := sg.AllRefs(ctx, filepath.Join(srcRoot, r))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dg.AllRefs(ctx, filepath.Join(dstRoot, r))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s refs:\nsource:   %v\nrestored: %v", r, want, got)
		}
		if err := dg.Fsck(ctx, filepath.Join(dstRoot, r)); err != nil {
			t.Errorf("%s: fsck: %v", r, err)
		}
		headA, _ := os.ReadFile(filepath.Join(srcRoot, r, "HEAD"))
		headB, _ := os.ReadFile(filepath.Join(dstRoot, r, "HEAD"))
		if string(headA) != string(headB) {
			t.Errorf("%s HEAD: %q, restored %q", r, headA, headB)
		}
	}
}

func compareFiles(t *testing.T, a, b string) {
	t.Helper()
	read := func(root string) map[string]string {
		out := map[string]string{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) != "tmp" {
				data, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(root, p)
				out[rel] = string(data)
			}
			return nil
		})
		return out
	}
	x, y := read(a), read(b)
	if len(x) == 0 || fmt.Sprint(x) != fmt.Sprint(y) {
		t.Errorf("attachment files: source %v, restored %v", x, y)
	}
}

// assertRecordsMatchGit: every repository's branch records equal its
// refs/heads.
func assertRecordsMatchGit(t *testing.T, s *store.Store, root string) {
	t.Helper()
	ctx := context.Background()
	g := &git.Store{Root: root}
	repos, err := s.AllRepositories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	records, err := s.AllBranchRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byRepo := map[int64][]string{}
	for _, b := range records {
		byRepo[b.RepoID] = append(byRepo[b.RepoID], b.CommitID+" refs/heads/"+b.Name)
	}
	busy := 0
	for _, r := range repos {
		refs, err := g.AllRefs(ctx, filepath.Join(root, strings.ToLower(r.OwnerName), strings.ToLower(r.Name)+".git"))
		if err != nil {
			t.Fatal(err)
		}
		var heads []string
		for _, ref := range refs {
			if strings.Contains(ref, " refs/heads/") {
				heads = append(heads, ref)
			}
			if strings.Contains(ref, "refs/heads/busy-") {
				busy++
			}
		}
		want := byRepo[r.ID]
		sort.Strings(heads)
		sort.Strings(want)
		if strings.Join(heads, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s/%s: git heads %v, records %v", r.OwnerName, r.Name, heads, want)
		}
		if err := g.Fsck(ctx, filepath.Join(root, strings.ToLower(r.OwnerName), strings.ToLower(r.Name)+".git")); err != nil {
			t.Errorf("%s/%s: fsck: %v", r.OwnerName, r.Name, err)
		}
	}
	t.Logf("busy dump: %d branches pushed during the dump", busy)
}
