package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConvergeAfterDatabaseLockedDuringPush is case 2 of "branch records
// must converge to git's refs": another connection holds the database's
// write lock through a push (on SQLite longer than the busy timeout, so
// recording the push fails). The push still succeeds for the client, and
// once the lock is released the records equal git's refs within 5 s,
// without any further write.
func TestConvergeAfterDatabaseLockedDuringPush(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		tok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, tok, "locked", true, false)
		work := t.TempDir()
		gitCmd(t, work, "clone", "-q", s.gitURL("alice", tok, "alice", "locked"), ".")
		gitCmd(t, work, "checkout", "-q", "-b", "during-lock")
		commitFile(t, work, "x.txt", "x\n", "pushed while the database is locked")
		assertRecordsMatchGit(t, s, "alice", "locked")

		hold := 3 * time.Second
		lock := "LOCK TABLE branches IN ACCESS EXCLUSIVE MODE"
		if s.Cfg.Database.Type == "sqlite3" {
			hold = 12 * time.Second // more than the 10 s busy_timeout
			lock = ""               // BEGIN IMMEDIATE takes the write lock
		}
		ctx := context.Background()
		sqlDB, err := s.App.Store.DB().DB()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		begin := "BEGIN"
		if lock == "" {
			begin = "BEGIN IMMEDIATE"
		}
		if _, err := conn.ExecContext(ctx, begin); err != nil {
			t.Fatal(err)
		}
		if lock != "" {
			if _, err := conn.ExecContext(ctx, lock); err != nil {
				t.Fatal(err)
			}
		}
		released := make(chan struct{})
		go func() {
			time.Sleep(hold)
			conn.ExecContext(ctx, "ROLLBACK")
			close(released)
		}()
		if out, err := gitTry(work, "push", "-q", "origin", "during-lock"); err != nil {
			t.Fatalf("push while locked: %v\n%s", err, out)
		}
		<-released
		assertRecordsMatchGit(t, s, "alice", "locked")
	})
}

// assertRecordsMatchGit waits up to 5 s for GET /branches (every page) to
// equal `git for-each-ref refs/heads` of the server's repository.
func assertRecordsMatchGit(t *testing.T, s *testServer, owner, repo string) {
	t.Helper()
	dir := filepath.Join(s.Cfg.Repository.Root, owner, repo+".git")
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := exec.Command("git", "--git-dir="+dir, "for-each-ref", "--format=%(refname:lstrip=2)=%(objectname)", "refs/heads").Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(string(out))
		sort.Strings(want)
		var got []string
		total := ""
		for page := 1; ; page++ {
			r := s.do("GET", fmt.Sprintf("/api/v1/repos/%s/%s/branches?limit=50&page=%d", owner, repo, page), "")
			var list []struct {
				Name   string `json:"name"`
				Commit struct {
					ID string `json:"id"`
				} `json:"commit"`
			}
			json.Unmarshal(r.Body, &list)
			for _, b := range list {
				got = append(got, b.Name+"="+b.Commit.ID)
			}
			total = r.Header.Get("X-Total-Count")
			if len(list) < 50 {
				break
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") == strings.Join(want, " ") && total == strconv.Itoa(len(want)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("records did not converge within 5s:\n git %v\n api %v (X-Total-Count %s)", want, got, total)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
