package git

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func sortedUpdates(u []RefUpdate) []RefUpdate {
	out := append([]RefUpdate(nil), u...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func checkUpdates(t *testing.T, got, want []RefUpdate) {
	t.Helper()
	got, want = sortedUpdates(got), sortedUpdates(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ref updates\n got %v\nwant %v", got, want)
	}
}

// TestSmartHTTPPushAndFetch drives the real git client against
// AdvertiseRefs/UploadPack/ReceivePack over HTTP, with protocol v0 and v2.
func TestSmartHTTPPushAndFetch(t *testing.T) {
	for _, version := range []string{"0", "2"} {
		t.Run("protocol.version="+version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := newTestStore(t)
			path := newRepo(t, s, "O", "R")
			initial, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"README.md": []byte("# r\n")}, testAuthor, "Initial commit")
			if err != nil {
				t.Fatal(err)
			}
			srv, base := startGitServer(t, s)
			remote := base + "/o/r.git"
			proto := "protocol.version=" + version

			work := filepath.Join(t.TempDir(), "work")
			gitCmd(t, "", "-c", proto, "clone", "--quiet", remote, work)
			git := func(args ...string) string { return gitCmd(t, work, append([]string{"-c", proto}, args...)...) }
			if got := git("rev-parse", "HEAD"); got != initial {
				t.Fatalf("cloned HEAD %s, want %s", got, initial)
			}

			// New commit on main, a new branch with two commits, two tags.
			writeFile(t, work, "a.txt", "a\n")
			git("add", "a.txt")
			git("commit", "-q", "-m", "a")
			main1 := git("rev-parse", "HEAD")
			git("checkout", "-q", "-b", "feature")
			writeFile(t, work, "f.txt", "f1\n")
			git("add", "f.txt")
			git("commit", "-q", "-m", "f1")
			f1 := git("rev-parse", "HEAD")
			writeFile(t, work, "f.txt", "f2\n")
			git("commit", "-q", "-am", "f2")
			f2 := git("rev-parse", "HEAD")
			git("tag", "v1", main1)
			git("tag", "-a", "-m", "release 2", "v2", f2)
			v2obj := git("rev-parse", "refs/tags/v2")

			git("push", "--quiet", "origin", "main", "feature", "v1", "v2")
			checkUpdates(t, srv.lastPush(), []RefUpdate{
				{"refs/heads/feature", ZeroSHA, f2},
				{"refs/heads/main", initial, main1},
				{"refs/tags/v1", ZeroSHA, main1},
				{"refs/tags/v2", ZeroSHA, v2obj},
			})

			// Force-push feature back to f1.
			git("reset", "-q", "--hard", f1)
			git("push", "--quiet", "--force", "origin", "feature")
			checkUpdates(t, srv.lastPush(), []RefUpdate{{"refs/heads/feature", f2, f1}})

			// Delete a branch and a tag by push.
			git("push", "--quiet", "origin", ":feature", ":refs/tags/v1")
			checkUpdates(t, srv.lastPush(), []RefUpdate{
				{"refs/heads/feature", f1, ZeroSHA},
				{"refs/tags/v1", main1, ZeroSHA},
			})
			if u := srv.lastPush(); !u[0].IsDelete() || u[0].IsCreate() {
				t.Fatalf("IsDelete/IsCreate wrong for %v", u[0])
			}

			// One push, one ref accepted and one rejected by the server
			// (refs/heads/main/sub cannot coexist with refs/heads/main):
			// only the accepted update is reported.
			if _, err := gitCmdErr(t, work, nil, "-c", proto, "push", "--quiet", "origin",
				"HEAD:refs/heads/ok", "HEAD:refs/heads/main/sub"); err == nil {
				t.Fatal("push of main/sub succeeded")
			}
			checkUpdates(t, srv.lastPush(), []RefUpdate{{"refs/heads/ok", ZeroSHA, f1}})

			// Many branches with distinct commits, then a fresh clone: the
			// client's want list is large enough to be gzip-compressed.
			var refspecs []string
			for i := 0; i < 40; i++ {
				git("commit", "-q", "--allow-empty", "-m", fmt.Sprint("empty ", i))
				refspecs = append(refspecs, fmt.Sprintf("HEAD:refs/heads/many/%02d", i))
			}
			git(append([]string{"push", "--quiet", "origin"}, refspecs...)...)
			if n := len(srv.lastPush()); n != 40 {
				t.Fatalf("pushed 40 branches, got %d updates", n)
			}
			clone2 := filepath.Join(t.TempDir(), "clone2")
			gitCmd(t, "", "-c", proto, "clone", "--quiet", "--mirror", remote, clone2)
			want, err := s.refSnapshot(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			got := gitCmd(t, clone2, "for-each-ref", "--format=%(objectname) %(refname)")
			if n := len(strings.Split(got, "\n")); n != len(want) {
				t.Fatalf("mirror clone has %d refs, server %d", n, len(want))
			}
			srv.mu.Lock()
			gz, sawV2 := srv.gzipped, srv.protocols["version=2"]
			srv.mu.Unlock()
			if gz == 0 {
				t.Error("no gzip-encoded request was exercised")
			}
			if version == "2" && !sawV2 {
				t.Error("Git-Protocol version=2 never sent")
			}

			// Incremental fetch (haves) into the first clone.
			gitCmd(t, work, "-c", proto, "fetch", "--quiet", "origin")
			if got := git("rev-parse", "origin/many/39"); got != git("rev-parse", "HEAD") {
				t.Fatalf("fetched many/39 = %s", got)
			}

			br, err := s.GetBranch(ctx, path, "main")
			if err != nil || br.Commit.SHA != main1 || br.Commit.Message != "a\n" {
				t.Fatalf("GetBranch(main) = %+v, %v", br, err)
			}
			checkNoScratch(t, s)
		})
	}
}

func TestAdvertiseRefs(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	sha, err := s.InitialCommit(ctx, path, "main", map[string][]byte{"a": []byte("a")}, testAuthor, "init")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		svc      Service
		protocol string
		prefix   string
		contains string
	}{
		{ServiceUploadPack, "", "001e# service=git-upload-pack\n0000", sha + " HEAD"},
		{ServiceReceivePack, "", "001f# service=git-receive-pack\n0000", sha + " refs/heads/main"},
		{ServiceUploadPack, "version=2", "000eversion 2\n", "ls-refs"},
		{ServiceReceivePack, "version=2", "001f# service=git-receive-pack\n0000", "report-status"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := s.AdvertiseRefs(ctx, path, tc.svc, tc.protocol, &buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.HasPrefix(out, tc.prefix) || !strings.Contains(out, tc.contains) {
			t.Errorf("%s %q: advertisement %q", tc.svc, tc.protocol, out)
		}
	}
	if err := s.AdvertiseRefs(ctx, path, "git-bogus", "", io.Discard); !isErr(err, ErrInvalid) {
		t.Errorf("bogus service: %v", err)
	}
	var buf bytes.Buffer
	err = s.AdvertiseRefs(ctx, filepath.Join(s.Root, "o", "missing.git"), ServiceUploadPack, "", &buf)
	if !isErr(err, ErrNotFound) || buf.Len() != 0 {
		t.Errorf("missing repo: %v, wrote %q", err, buf.String())
	}
}

// TestAdvertiseRefsManyBranches: a large ref advertisement reaches an
// HTTP response complete, in a few flushed pieces rather than one per ref
// (each flush is an HTTP chunk sent on its own).
func TestAdvertiseRefsManyBranches(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	sha := commitFiles(t, s, path, "main", "first", create("a.txt", "a"))
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, "create refs/heads/branch-%04d %s\n", i, sha)
	}
	if out, err := gitCmdErr(t, path, strings.NewReader(in.String()), "update-ref", "--stdin"); err != nil {
		t.Fatalf("update-ref: %v\n%s", err, out)
	}
	var w flushCounter
	if err := s.AdvertiseRefs(ctx, path, ServiceReceivePack, "", &w); err != nil {
		t.Fatal(err)
	}
	out := w.String()
	if !strings.HasPrefix(out, "001f# service=git-receive-pack\n0000") || !strings.HasSuffix(out, "0000") {
		t.Fatalf("advertisement starts %q, ends %q", out[:min(len(out), 60)], out[max(0, len(out)-20):])
	}
	for _, ref := range []string{"refs/heads/main", "refs/heads/branch-0000", "refs/heads/branch-1999"} {
		if !strings.Contains(out, sha+" "+ref) {
			t.Fatalf("advertisement lacks %s", ref)
		}
	}
	if max := len(out)/advertiseChunk + 2; w.flushes > max {
		t.Fatalf("%d bytes sent in %d flushes, want at most %d", len(out), w.flushes, max)
	}
}

// flushCounter is a response body that counts flushes.
type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

func TestDecodeRequestBody(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("0000"))
	zw.Close()
	tests := []struct {
		enc     string
		body    []byte
		want    string
		wantErr error
	}{
		{"", []byte("0000"), "0000", nil},
		{"identity", []byte("0000"), "0000", nil},
		{"gzip", gz.Bytes(), "0000", nil},
		{"x-gzip", gz.Bytes(), "0000", nil},
		{"gzip", []byte("not gzip"), "", ErrInvalid},
		{"br", []byte("x"), "", ErrInvalid},
	}
	for _, tc := range tests {
		rc, err := DecodeRequestBody(bytes.NewReader(tc.body), tc.enc)
		if tc.wantErr != nil {
			if !isErr(err, tc.wantErr) {
				t.Errorf("%q: err %v", tc.enc, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != tc.want {
			t.Errorf("%q: got %q", tc.enc, got)
		}
	}
}

func TestParseService(t *testing.T) {
	for _, name := range []string{"git-upload-pack", "git-receive-pack"} {
		svc, err := ParseService(name)
		if err != nil || string(svc) != name {
			t.Errorf("ParseService(%q) = %q, %v", name, svc, err)
		}
	}
	for _, name := range []string{"", "upload-pack", "git-upload-archive", "git-upload-pack "} {
		if _, err := ParseService(name); !isErr(err, ErrInvalid) {
			t.Errorf("ParseService(%q) err %v", name, err)
		}
	}
	if got := ServiceUploadPack.AdvertisementContentType(); got != "application/x-git-upload-pack-advertisement" {
		t.Error(got)
	}
	if got := ServiceReceivePack.ResultContentType(); got != "application/x-git-receive-pack-result" {
		t.Error(got)
	}
}
