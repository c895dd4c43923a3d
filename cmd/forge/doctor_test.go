package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctor breaks a data directory each way forge doctor checks (a
// branch git has and the records do not, an attachment file without a row
// and a row without a file, a repository directory without a record and a
// record without a directory, a hook removed, a misspelt config key) and
// checks doctor names each with a fix and exits 1, that --fix repairs the
// safe ones, and that a repaired data directory passes (exit 0).
func TestDoctor(t *testing.T) {
	t.Parallel()
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("proj", true)
		f.createRepo("gone", true)
		var rel struct{ ID int64 }
		body := f.mustAPI("POST", "/api/v1/repos/root/proj/releases", `{"tag_name":"v1","name":"v1","target_commitish":"main"}`, 201)
		jsonUnmarshal(t, body, &rel)
		if code, b, err := f.upload(rel.ID, "notes.txt", "notes\n"); err != nil || code != 201 {
			t.Fatalf("upload: %d %s %v", code, b, err)
		}
		f.stop()
		if out, errOut, code := f.c.run("doctor"); code != 0 || !strings.Contains(out, "no problem found") {
			t.Fatalf("doctor on a sound data directory: %d %s %s", code, out, errOut)
		}

		data := filepath.Join(f.c.dir, "data")
		repos := filepath.Join(data, "repositories")
		// A branch made behind forge's back (no journal, no record).
		mustClientGit(t, f.c.dir, "--git-dir="+filepath.Join(repos, "root", "proj.git"), "branch", "sideways", "main")
		// An attachment file without a row, old enough not to be in flight,
		// and the release asset's file removed.
		blobs := f.blobFiles()
		if len(blobs) != 1 {
			t.Fatalf("attachment files: %v", blobs)
		}
		var assetPath string
		for _, p := range blobs {
			assetPath = p
		}
		asset, _ := os.ReadFile(assetPath)
		os.Remove(assetPath)
		orphan := filepath.Join(data, "attachments", "0", "0", "00000000-0000-0000-0000-000000000000")
		os.MkdirAll(filepath.Dir(orphan), 0o700)
		os.WriteFile(orphan, []byte("orphan"), 0o600)
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(orphan, old, old)
		// A directory without a record, a record without its directory.
		mustClientGit(t, f.c.dir, "init", "-q", "--bare", filepath.Join(repos, "root", "stray.git"))
		aside := filepath.Join(t.TempDir(), "gone.git")
		if err := os.Rename(filepath.Join(repos, "root", "gone.git"), aside); err != nil {
			t.Fatal(err)
		}
		// A hook removed; a misspelt key.
		os.Remove(filepath.Join(repos, "@forge", "hooks", "pre-receive"))
		os.MkdirAll(filepath.Join(f.c.dir, "custom", "conf"), 0o700)
		os.WriteFile(filepath.Join(f.c.dir, "custom", "conf", "app.ini"), []byte("[sevrer]\nROOT_ULR = http://x/\n"), 0o600)

		out, errOut, code := f.c.run("doctor")
		if !strings.Contains(out, "fixed: forge's git hooks") {
			t.Errorf("doctor does not rewrite the hooks:\n%s", out)
		}
		if code != 1 {
			t.Fatalf("doctor on a broken data directory: exit %d, want 1\n%s%s", code, out, errOut)
		}
		for _, want := range []string{
			"sideways has no record", "forge doctor --fix records them from git",
			"00000000-0000-0000-0000-000000000000 has no row",
			"has a row but no file",
			"root/stray.git", "has no repository record",
			"repository root/gone has a record but no git directory",
			"sevrer",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor does not report %q:\n%s", want, out)
			}
		}

		out, errOut, code = f.c.run("doctor", "--fix")
		if code != 1 {
			t.Fatalf("doctor --fix leaves unsafe problems: exit %d, want 1\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"fixed: repository root/proj: branch records", "fixed: attachment file"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor --fix does not report %q:\n%s", want, out)
			}
		}
		if _, err := os.Stat(orphan); !os.IsNotExist(err) {
			t.Errorf("orphan file still there: %v", err)
		}
		if _, err := os.Stat(filepath.Join(repos, "@forge", "hooks", "pre-receive")); err != nil {
			t.Errorf("hook not reinstalled: %v", err)
		}

		// What --fix leaves to the operator, done by hand: then all is well.
		os.WriteFile(assetPath, asset, 0o600)
		os.RemoveAll(filepath.Join(repos, "root", "stray.git"))
		os.Rename(aside, filepath.Join(repos, "root", "gone.git"))
		os.Remove(filepath.Join(f.c.dir, "custom", "conf", "app.ini"))
		if out, errOut, code := f.c.run("doctor"); code != 0 {
			t.Fatalf("doctor after the repairs: %d %s %s", code, out, errOut)
		}
		// A path that is not a writable directory.
		notDir := filepath.Join(t.TempDir(), "file")
		os.WriteFile(notDir, nil, 0o600)
		saved := f.c.env
		f.c.env = append(append([]string{}, saved...), "FORGE__ATTACHMENT__PATH="+notDir)
		if out, _, code := f.c.run("doctor"); code != 1 || !strings.Contains(out, "[attachment] PATH "+notDir+" is not a writable directory") {
			t.Errorf("doctor with a file as [attachment] PATH: exit %d\n%s", code, out)
		}
		f.c.env = saved
		// The record --fix wrote is served.
		f.start("")
		f.mustAPI("GET", "/api/v1/repos/root/proj/branches/sideways", "", 200)
	})
}

func jsonUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// TestBackupCommandsListed: forge --help lists dump, restore and doctor,
// and each has --help.
func TestBackupCommandsListed(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out, _, code := c.run("--help")
	for _, cmd := range []string{"dump [--file F|-]", "restore --file F", "doctor [--fix]"} {
		if code != 0 || !strings.Contains(out, cmd) {
			t.Errorf("forge --help does not list %q (exit %d):\n%s", cmd, code, out)
		}
	}
	for _, cmd := range []string{"dump", "restore", "doctor"} {
		if _, errOut, code := c.run(cmd, "--help"); code != 0 || !strings.Contains(errOut, "-file") && cmd != "doctor" {
			t.Errorf("%s --help: exit %d %q", cmd, code, errOut)
		}
	}
	if _, errOut, code := c.run("restore"); code != 2 || !strings.Contains(errOut, "--file") {
		t.Errorf("restore without --file: exit %d %q", code, errOut)
	}
}
