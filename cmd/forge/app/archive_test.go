package app_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestArchives(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		s.createRepo(t, aliceTok, "Proj", true, true)
		alice := s.sdk(gitea.SetToken(aliceTok))
		if _, _, err := alice.CreateTag("alice", "Proj", gitea.CreateTagOption{TagName: "v1"}); err != nil {
			t.Fatal(err)
		}

		// zip, streamed by the SDK's reader.
		rc, resp, err := alice.GetArchiveReader("alice", "Proj", "main", gitea.ZipArchive)
		if err != nil {
			t.Fatalf("zip: %v", err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/zip" {
			t.Fatalf("zip content type %q", ct)
		}
		if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=Proj-main.zip` {
			t.Fatalf("zip disposition %q", cd)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("unzip: %v", err)
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		sort.Strings(names)
		if strings.Join(names, " ") != "proj/ proj/README.md" {
			t.Fatalf("zip entries: %v", names)
		}

		// tar.gz.
		data, resp, err = alice.GetArchive("alice", "Proj", "v1", gitea.TarGZArchive)
		if err != nil || resp.Header.Get("Content-Disposition") != `attachment; filename=Proj-v1.tar.gz` {
			t.Fatalf("tar.gz: %v %v", err, resp)
		}
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		tr := tar.NewReader(gz)
		found := false
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("untar: %v", err)
			}
			if h.Name == "proj/README.md" {
				b, _ := io.ReadAll(tr)
				found = strings.Contains(string(b), "Proj")
			}
		}
		if !found {
			t.Fatal("tar.gz lacks proj/README.md")
		}

		// The second request is served from the cache under the data
		// directory: the same bytes, and the entry is on disk.
		again, _, err := alice.GetArchive("alice", "Proj", "v1", gitea.TarGZArchive)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("cached tar.gz differs: %v", err)
		}
		var entries []string
		filepath.WalkDir(filepath.Join(s.Cfg.Server.AppDataPath, "archives"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				entries = append(entries, filepath.Base(p))
			}
			return nil
		})
		sort.Strings(entries)
		if len(entries) != 2 || strings.HasPrefix(entries[0], ".") || strings.HasPrefix(entries[1], ".") ||
			!strings.HasSuffix(strings.Join(entries, " "), ".tar.gz") && !strings.HasSuffix(strings.Join(entries, " "), ".zip") {
			t.Fatalf("cache entries (a zip and a tar.gz, no temporary file): %v", entries)
		}

		// bundle, checked by git.
		r := s.do("GET", "/api/v1/repos/alice/Proj/archive/main.bundle", "", "Authorization", "token "+aliceTok)
		if r.Status != 200 {
			t.Fatalf("bundle: %d %s", r.Status, r.Body)
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "x.bundle")
		if err := os.WriteFile(file, r.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, dir, "init", "-q")
		if out := gitCmd(t, dir, "bundle", "list-heads", file); !strings.Contains(out, "refs/heads/main") {
			t.Fatalf("bundle heads: %s", out)
		}
		gitCmd(t, dir, "bundle", "verify", "-q", file)

		// Unknown ref, unknown type, a stranger.
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/Proj/archive/nope.zip", "", "Authorization", "token "+aliceTok), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/Proj/archive/main.rar", "", "Authorization", "token "+aliceTok), 404)
		expectStatus(t, s.do("GET", "/api/v1/repos/alice/Proj/archive/main.zip", ""), 404)
	})
}
