package git

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A pushed branch or tag name longer than the records can hold is refused
// by the pre-receive hook; the other refs of the push are refused with it
// (git's all-or-nothing pre-receive), and a name at the limit is accepted.
func TestPushRefusesOverlongRefNames(t *testing.T) {
	path, work := pushFixture(t)

	// Names of several components: one file name may not exceed 255 bytes.
	seg := strings.Repeat("b", 100)
	long := seg + "/" + seg + "/" + strings.Repeat("b", MaxRefNameBytes-201)
	if len(long) != MaxRefNameBytes+1 {
		t.Fatalf("test name is %d bytes", len(long))
	}
	gitCmd(t, work, "branch", long)
	gitCmd(t, work, "tag", "t/"+long)
	gitCmd(t, work, "branch", "ok")
	if out, err := gitCmdErr(t, work, nil, "push", "origin", long, "ok"); err == nil {
		t.Fatalf("push of a %d-byte branch name succeeded: %s", len(long), out)
	} else if !strings.Contains(err.Error(), "longer than 255 bytes") {
		t.Errorf("refusal does not say why: %v", err)
	}
	if _, err := gitCmdErr(t, work, nil, "push", "origin", "t/"+long); err == nil {
		t.Fatal("push of an overlong tag name succeeded")
	}
	refs := gitCmd(t, path, "for-each-ref", "--format=%(refname)")
	if refs != "refs/heads/main" {
		t.Fatalf("refs after refused pushes: %q", refs)
	}

	atLimit := "c" + long[2:]
	gitCmd(t, work, "branch", atLimit)
	gitCmd(t, work, "push", "--quiet", "origin", atLimit, "ok")
	if refs := gitCmd(t, path, "for-each-ref", "--format=%(refname)"); !strings.Contains(refs, "refs/heads/"+atLimit) || !strings.Contains(refs, "refs/heads/ok") {
		t.Fatalf("refs after an accepted push: %q", refs)
	}
}

// A pushed branch or tag name that is not UTF-8 text (git allows any
// byte beyond ASCII) is refused by the pre-receive hook: no record could
// hold it on PostgreSQL. A UTF-8 name beyond ASCII is accepted.
func TestPushRefusesRefNamesThatAreNotUTF8(t *testing.T) {
	path, work := pushFixture(t)

	bad := "latin1-caf\xe9"
	gitCmd(t, work, "branch", bad)
	gitCmd(t, work, "tag", "t-\xff")
	if out, err := gitCmdErr(t, work, nil, "push", "origin", bad); err == nil {
		t.Fatalf("push of a branch name that is not UTF-8 succeeded: %s", out)
	} else if !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("refusal does not say why: %v", err)
	}
	if _, err := gitCmdErr(t, work, nil, "push", "origin", "t-\xff"); err == nil {
		t.Fatal("push of a tag name that is not UTF-8 succeeded")
	}
	if refs := gitCmd(t, path, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main" {
		t.Fatalf("refs after refused pushes: %q", refs)
	}

	good := "café/ß"
	gitCmd(t, work, "branch", good)
	gitCmd(t, work, "push", "--quiet", "origin", good)
	if refs := gitCmd(t, path, "for-each-ref", "--format=%(refname)"); !strings.Contains(refs, "refs/heads/"+good) {
		t.Fatalf("refs after an accepted push: %q", refs)
	}
}

// pushFixture is a served repository with one commit on main (its path)
// and a clone of it to push from (work).
func pushFixture(t *testing.T) (path, work string) {
	t.Helper()
	s := newTestStore(t)
	path = newRepo(t, s, "O", "R")
	if _, err := s.InitialCommit(context.Background(), path, "main", map[string][]byte{"README.md": []byte("# r\n")}, testAuthor, "Initial commit"); err != nil {
		t.Fatal(err)
	}
	_, base := startGitServer(t, s)
	work = filepath.Join(t.TempDir(), "work")
	gitCmd(t, "", "clone", "--quiet", base+"/o/r.git", work)
	return path, work
}
