package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"forge/services/config"
	"forge/services/store"
	"forge/services/store/storetest"
)

// upgradeSnapshot names the snapshots TestWriteUpgradeSnapshot writes.
// Run it from a checkout of the version to snapshot (a release, or main
// before a change to the migrations), copying this file (and, for an
// older checkout, storetest's Empty) into it when it lacks them:
//
//	go test ./services/store/ -run TestWriteUpgradeSnapshot -args -upgrade-snapshot NAME
//
// and commit testdata/upgrade/NAME.*.sql. TestUpgradeFromSnapshots
// migrates every snapshot there. It needs the sqlite3 and pg_dump tools.
var upgradeSnapshot = flag.String("upgrade-snapshot", "", "write testdata/upgrade/NAME.<backend>.sql: this checkout's schema with sample rows")

// sampleToken is the access token of the sample rows (its hash is stored).
const sampleToken = "0123456789abcdef0123456789abcdef01234567"

// TestWriteUpgradeSnapshot is a tool, not a check: with -upgrade-snapshot
// it dumps, for each backend, a database migrated by this checkout and
// holding a few rows of the main tables.
func TestWriteUpgradeSnapshot(t *testing.T) {
	if *upgradeSnapshot == "" {
		t.Skip("writes snapshots only with -upgrade-snapshot NAME")
	}
	for _, kind := range storetest.Backends {
		cfg := storetest.Empty(t, kind)
		s, err := store.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		writeSampleRows(t, s)
		s.Close()
		dump := dumpDatabase(t, cfg)
		path := filepath.Join("testdata", "upgrade", *upgradeSnapshot+"."+kind+".sql")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, dump, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", path, len(dump))
	}
}

// writeSampleRows fills the main tables through the store, as the server
// would: users, a token, an organization with its owners team, a
// repository with a collaborator, labels, issues with a comment, a
// dependency and an attachment, a release, and the notification the
// issue gives the repository's watcher.
func writeSampleRows(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	alice := &store.User{Name: "alice", Email: "alice@example.org", FullName: "Alice", IsAdmin: true, IsActive: true}
	bob := &store.User{Name: "bob", Email: "bob@example.org", IsActive: true}
	must(s.CreateUser(ctx, alice))
	must(s.CreateUser(ctx, bob))
	hash := sha256.Sum256([]byte(sampleToken))
	must(s.CreateAccessToken(ctx, &store.AccessToken{UID: alice.ID, Name: "ci", TokenHash: hex.EncodeToString(hash[:]),
		TokenLastEight: sampleToken[len(sampleToken)-8:], Scope: "all"}))
	must(s.CreateOrganization(ctx, &store.User{Name: "acme", Email: "acme@example.org"}, alice.ID))
	repo := &store.Repository{OwnerID: alice.ID, OwnerName: alice.Name, Name: "project", Description: "sample", DefaultBranch: "main"}
	must(s.CreateRepository(ctx, repo, alice.ID))
	must(s.SetCollaborator(ctx, repo.ID, bob.ID, store.AccessWrite))
	bug := &store.Label{RepoID: repo.ID, Name: "kind/bug", Exclusive: true, Color: "#ee0701"}
	must(s.CreateLabel(ctx, bug))
	blocked := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: bob.ID, Title: "It breaks", Content: "@alice see this"},
		AssigneeIDs: []int64{alice.ID}, LabelIDs: []int64{bug.ID}}
	must(s.CreateIssue(ctx, blocked))
	blocker := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, PosterID: alice.ID, Title: "Fix the base"}}
	must(s.CreateIssue(ctx, blocker))
	must(s.CreateComment(ctx, &store.Comment{RepoID: repo.ID, IssueID: blocked.ID, PosterID: alice.ID, Content: "On it."}))
	must(s.AddIssueDependency(ctx, blocked.ID, blocker.ID))
	must(s.CreateAttachment(ctx, &store.Attachment{UUID: "3f2c9a1e-0000-4000-8000-000000000001", RepoID: repo.ID,
		IssueID: blocked.ID, UploaderID: bob.ID, Name: "trace.txt", Size: 42}))
	must(s.CreateRelease(ctx, &store.Release{RepoID: repo.ID, PublisherID: alice.ID, TagName: "v1.0.0", Target: "main",
		Title: "First", Sha1: strings.Repeat("ab", 20)}))
	for {
		n, err := s.FanOutActivities(ctx, 100)
		must(err)
		if n == 0 {
			break
		}
	}
}

// dumpDatabase is the backend's own plain-SQL dump of the database: the
// schema, then the rows as INSERTs. pg_dump's session settings and psql
// meta-commands are left out (they differ between versions, one empties
// search_path, and only psql knows the others), so the dump loads as SQL
// through any connection of a pool.
func dumpDatabase(t *testing.T, cfg config.Database) []byte {
	t.Helper()
	var cmd *exec.Cmd
	switch cfg.Type {
	case "sqlite3":
		cmd = exec.Command("sqlite3", cfg.Path, ".dump")
	case "postgres":
		host, port, _ := strings.Cut(cfg.Host, ":")
		cmd = exec.Command("pg_dump", "--no-owner", "--no-privileges", "--no-comments", "--column-inserts",
			"--host", host, "--port", port, "--username", cfg.User, "--dbname", cfg.Name)
		cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Passwd)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if cfg.Type == "postgres" {
		out = pgSessionSettings.ReplaceAll(out, nil)
	}
	return out
}

var pgSessionSettings = regexp.MustCompile(`(?m)^(SET [a-z_]+ = .*|SELECT pg_catalog\.set_config\(.*\);|\\.*)\n`)
