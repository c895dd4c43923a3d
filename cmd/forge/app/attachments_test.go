package app_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	"forge/services/config"
	"forge/services/store"
)

// upload posts a multipart upload streamed from content (never buffered
// whole), as the SDK's field and file name; query is appended to path.
func (s *testServer) upload(token, path, filename string, content io.Reader) response {
	s.t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("attachment", filename)
		if err == nil {
			_, err = io.Copy(part, content)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", s.URL+path, pr)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("upload: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	pr.CloseWithError(errors.New("done")) // stop the writer if the server answered early
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// download GETs a browser_download_url with an optional token.
func download(t *testing.T, url, token string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// blobFiles lists the stored attachment files (not unfinished uploads).
func (s *testServer) blobFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	root := filepath.Join(s.Cfg.Server.AppDataPath, "attachments")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) != "tmp" {
			out = append(out, d.Name())
		}
		return nil
	})
	return out
}

func (s *testServer) blobTemps(t *testing.T) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(s.Cfg.Server.AppDataPath, "attachments", "tmp"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestReleaseAttachmentsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		carol := s.sdk(gitea.SetToken(carolTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		if _, err := alice.AddCollaborator("alice", "proj", "carol", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeWrite)}); err != nil {
			t.Fatal(err)
		}
		rel, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1", Title: "One"})
		if err != nil {
			t.Fatal(err)
		}

		// A writer uploads (SDK: multipart field "attachment").
		content := "release notes\n"
		a, resp, err := carol.CreateReleaseAttachment("alice", "proj", rel.ID, strings.NewReader(content), "notes.txt")
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreateReleaseAttachment: %v %v", err, resp)
		}
		if a.Name != "notes.txt" || a.Size != int64(len(content)) || a.DownloadCount != 0 || len(a.UUID) != 36 ||
			a.DownloadURL != s.URL+"/attachments/"+a.UUID || time.Since(a.Created) > time.Minute {
			t.Fatalf("created: %+v", a)
		}
		// The name query parameter overrides the file name.
		r := s.upload(aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets?name=renamed.txt", rel.ID), "orig.txt", strings.NewReader("x"))
		expectStatus(t, r, http.StatusCreated)
		var second gitea.Attachment
		r.json(t, &second)
		if second.Name != "renamed.txt" {
			t.Fatalf("name query ignored: %s", r.Body)
		}

		if set, _, err := anon.GetGlobalAttachmentSettings(); err != nil || !set.Enabled || set.MaxSize != 2048 || set.MaxFiles != 5 || !strings.Contains(set.AllowedTypes, ".zip") {
			t.Fatalf("attachment settings: %v %+v", err, set)
		}

		// Anyone who can read the repository lists and reads them.
		list, _, err := anon.ListReleaseAttachments("alice", "proj", rel.ID, gitea.ListReleaseAttachmentsOptions{})
		if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != second.ID {
			t.Fatalf("list: %v %+v", err, list)
		}
		got, _, err := anon.GetReleaseAttachment("alice", "proj", rel.ID, a.ID)
		if err != nil || got.UUID != a.UUID {
			t.Fatalf("get: %v %+v", err, got)
		}
		rel2, _, err := anon.GetRelease("alice", "proj", rel.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(rel2.Attachments) != 2 || rel2.Attachments[0].UUID != a.UUID || rel2.Attachments[1].Name != "renamed.txt" ||
			rel2.Attachments[0].DownloadURL != a.DownloadURL {
			t.Fatalf("release assets: %+v", rel2.Attachments)
		}
		if rels, _, err := anon.ListReleases("alice", "proj", gitea.ListReleasesOptions{}); err != nil || len(rels) != 1 || len(rels[0].Attachments) != 2 {
			t.Fatalf("listed release assets: %v %+v", err, rels)
		}

		// A stranger may not upload, rename or delete; anonymous callers are
		// refused before the body is read.
		if _, resp, err := bob.CreateReleaseAttachment("alice", "proj", rel.ID, strings.NewReader("x"), "x.txt"); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stranger upload: %v %v", err, resp)
		}
		if _, resp, err := bob.EditReleaseAttachment("alice", "proj", rel.ID, a.ID, gitea.EditAttachmentOptions{Name: "y.txt"}); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stranger edit: %v %v", err, resp)
		}
		if resp, err := bob.DeleteReleaseAttachment("alice", "proj", rel.ID, a.ID); err == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stranger delete: %v %v", err, resp)
		}
		var sent atomic.Int64
		r = s.upload("", fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets", rel.ID), "big.txt", &countingZeros{n: 64 << 20, read: &sent})
		expectStatus(t, r, http.StatusUnauthorized)
		if sent.Load() > 8<<20 {
			t.Fatalf("the server read %d bytes of an anonymous upload", sent.Load())
		}

		// Download: the bytes, with length and disposition; it counts.
		code, h, body := download(t, a.DownloadURL, "")
		if code != 200 || string(body) != content || h.Get("Content-Length") != fmtInt(int64(len(content))) ||
			!strings.HasPrefix(h.Get("Content-Type"), "text/plain") || h.Get("Content-Disposition") != `inline; filename=notes.txt` {
			t.Fatalf("download: %d %v %q", code, h, body)
		}
		if got, _, _ := anon.GetReleaseAttachment("alice", "proj", rel.ID, a.ID); got.DownloadCount != 1 {
			t.Fatalf("download_count %d, want 1", got.DownloadCount)
		}
		if code, _, _ := download(t, s.URL+"/attachments/00000000-0000-4000-8000-000000000000", ""); code != 404 {
			t.Fatalf("unknown uuid: %d", code)
		}

		// Rename (Gitea answers 201); an empty name changes nothing.
		ed, resp, err := carol.EditReleaseAttachment("alice", "proj", rel.ID, a.ID, gitea.EditAttachmentOptions{Name: "NOTES.md"})
		if err != nil || resp.StatusCode != http.StatusCreated || ed.Name != "NOTES.md" {
			t.Fatalf("edit: %v %v %+v", err, resp, ed)
		}
		if ed, _, err := carol.EditReleaseAttachment("alice", "proj", rel.ID, a.ID, gitea.EditAttachmentOptions{}); err != nil || ed.Name != "NOTES.md" {
			t.Fatalf("empty edit: %v %+v", err, ed)
		}
		// Another release's path does not reach it.
		relB, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v2", Title: "Two"})
		if err != nil {
			t.Fatal(err)
		}
		if _, resp, err := anon.GetReleaseAttachment("alice", "proj", relB.ID, a.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("attachment through another release: %v %v", err, resp)
		}

		// Delete: the row, then the file.
		if len(s.blobFiles(t)) != 2 {
			t.Fatalf("files before delete: %v", s.blobFiles(t))
		}
		if resp, err := carol.DeleteReleaseAttachment("alice", "proj", rel.ID, a.ID); err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %v %v", err, resp)
		}
		if files := s.blobFiles(t); len(files) != 1 || files[0] != second.UUID {
			t.Fatalf("files after delete: %v", files)
		}
		if code, _, _ := download(t, a.DownloadURL, ""); code != 404 {
			t.Fatalf("download of a deleted attachment: %d", code)
		}

		// Deleting the release removes its assets' rows; the sweep removes
		// the files once they are old enough.
		if _, err := alice.DeleteRelease("alice", "proj", rel.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.App.Store.AttachmentByUUID(context.Background(), second.UUID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("asset row of a deleted release: %v", err)
		}
		if n, err := s.App.Attachments.Sweep(context.Background(), time.Hour); err != nil || n != 0 {
			t.Fatalf("sweep removed %d young files (%v)", n, err)
		}
		if n, err := s.App.Attachments.Sweep(context.Background(), 0); err != nil || n != 1 || len(s.blobFiles(t)) != 0 {
			t.Fatalf("sweep: %d %v, left %v", n, err, s.blobFiles(t))
		}
	})
}

// countingZeros yields n zero bytes and counts what was read.
type countingZeros struct {
	n    int64
	read *atomic.Int64
}

func (z *countingZeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.n {
		p = p[:z.n]
	}
	clear(p)
	z.n -= int64(len(p))
	if z.read != nil {
		z.read.Add(int64(len(p)))
	}
	return len(p), nil
}

func TestAttachmentVisibility(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		readerTok := s.seedUser("reader", "reader-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "secret", true, true)
		if _, err := alice.AddCollaborator("alice", "secret", "reader", gitea.AddCollaboratorOption{Permission: ptr(gitea.AccessModeRead)}); err != nil {
			t.Fatal(err)
		}
		rel, _, err := alice.CreateRelease("alice", "secret", gitea.CreateReleaseOption{TagName: "v1", Title: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		draft, _, err := alice.CreateRelease("alice", "secret", gitea.CreateReleaseOption{TagName: "v2", Title: "v2", IsDraft: true})
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := alice.CreateReleaseAttachment("alice", "secret", rel.ID, strings.NewReader("secret bytes"), "s.txt")
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := alice.CreateReleaseAttachment("alice", "secret", draft.ID, strings.NewReader("draft bytes"), "d.txt")
		if err != nil {
			t.Fatal(err)
		}
		// The download URL follows the repository: invisible is 404.
		for _, c := range []struct {
			who, token string
			url        string
			want       int
		}{
			{"anonymous", "", a.DownloadURL, 404},
			{"stranger", bobTok, a.DownloadURL, 404},
			{"reader", readerTok, a.DownloadURL, 200},
			{"owner", aliceTok, a.DownloadURL, 200},
			{"reader, draft", readerTok, d.DownloadURL, 404},
			{"owner, draft", aliceTok, d.DownloadURL, 200},
		} {
			if code, _, _ := download(t, c.url, c.token); code != c.want {
				t.Errorf("%s: %d, want %d", c.who, code, c.want)
			}
		}
		// A token without the repository scope cannot fetch it either.
		noScope := s.createToken(t, "reader", "reader-password", "no-repo", "read:issue")
		if code, _, body := download(t, a.DownloadURL, noScope); code != 403 {
			t.Errorf("token without read:repository: %d %s", code, body)
		}
		// A reader sees no draft's assets.
		reader := s.sdk(gitea.SetToken(readerTok))
		if _, resp, err := reader.ListReleaseAttachments("alice", "secret", draft.ID, gitea.ListReleaseAttachmentsOptions{}); err == nil || resp.StatusCode != 404 {
			t.Errorf("reader lists a draft's assets: %v %v", err, resp)
		}

		// Deleting the repository deletes the rows (RepoTables); the sweep
		// then removes the files.
		if _, err := alice.DeleteRepo("alice", "secret"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.App.Store.AttachmentByUUID(context.Background(), a.UUID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("row of a deleted repository: %v", err)
		}
		if n, err := s.App.Attachments.Sweep(context.Background(), 0); err != nil || n != 2 || len(s.blobFiles(t)) != 0 {
			t.Fatalf("sweep after the repository delete: %d %v %v", n, err, s.blobFiles(t))
		}
	})
}

func TestIssueAttachmentsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false) // reader collaborator
		carolTok := s.seedUser("carol", "carol-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		carol := s.sdk(gitea.SetToken(carolTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		for user, mode := range map[string]gitea.AccessMode{"bob": gitea.AccessModeRead, "carol": gitea.AccessModeWrite} {
			if _, err := alice.AddCollaborator("alice", "proj", user, gitea.AddCollaboratorOption{Permission: ptr(mode)}); err != nil {
				t.Fatal(err)
			}
		}
		bobIssue, _, err := bob.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "bob's"})
		if err != nil {
			t.Fatal(err)
		}
		aliceIssue, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "alice's"})
		if err != nil {
			t.Fatal(err)
		}

		// The poster may attach to their own issue, a reader not to others'.
		a, resp, err := bob.CreateIssueAttachment("alice", "proj", bobIssue.Index, strings.NewReader("log line\n"), "out.log")
		if err != nil || resp.StatusCode != http.StatusCreated || a.Name != "out.log" {
			t.Fatalf("poster attaches: %v %v %+v", err, resp, a)
		}
		r := s.upload(bobTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", aliceIssue.Index), "x.txt", strings.NewReader("x"))
		expectStatus(t, r, http.StatusForbidden)
		if msg := r.message(t); msg != "user should have permission to write issue" {
			t.Fatalf("reader's 403: %q", msg)
		}
		w, resp, err := carol.CreateIssueAttachment("alice", "proj", aliceIssue.Index, strings.NewReader("writer"), "w.txt")
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("writer attaches: %v %v", err, resp)
		}
		// Unknown issue: 404.
		r = s.upload(carolTok, "/api/v1/repos/alice/proj/issues/99/assets", "x.txt", strings.NewReader("x"))
		expectStatus(t, r, http.StatusNotFound)
		// A refused type: 422 with Gitea's message; nothing stored.
		before := len(s.blobFiles(t))
		r = s.upload(carolTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", aliceIssue.Index), "tool.exe", bytes.NewReader([]byte{0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0}))
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if msg := r.message(t); msg != "This file extension or type is not allowed to be uploaded." {
			t.Fatalf("refused type: %q", msg)
		}
		if len(s.blobFiles(t)) != before || len(s.blobTemps(t)) != 0 {
			t.Fatalf("a refused upload left files: %v %v", s.blobFiles(t), s.blobTemps(t))
		}
		// No attachment field: 422.
		r = s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", aliceIssue.Index), "{}", "Content-Type", jsonCT, "Authorization", "token "+carolTok)
		expectStatus(t, r, http.StatusUnprocessableEntity)

		list, _, err := anon.ListIssueAttachments("alice", "proj", aliceIssue.Index)
		if err != nil || len(list) != 1 || list[0].ID != w.ID {
			t.Fatalf("list: %v %+v", err, list)
		}
		if got, _, err := anon.GetIssueAttachment("alice", "proj", aliceIssue.Index, w.ID); err != nil || got.UUID != w.UUID {
			t.Fatalf("get: %v %+v", err, got)
		}
		// Through the other issue's path: 404.
		if _, resp, err := anon.GetIssueAttachment("alice", "proj", bobIssue.Index, w.ID); err == nil || resp.StatusCode != 404 {
			t.Fatalf("get through another issue: %v %v", err, resp)
		}
		if code, _, body := download(t, w.DownloadURL, ""); code != 200 || string(body) != "writer" {
			t.Fatalf("download: %d %q", code, body)
		}
		// The reader may not rename or delete the writer's file on alice's
		// issue; the poster may on their own.
		if _, resp, err := bob.EditIssueAttachment("alice", "proj", aliceIssue.Index, w.ID, gitea.EditAttachmentOptions{Name: "z.txt"}); err == nil || resp.StatusCode != 403 {
			t.Fatalf("reader renames: %v %v", err, resp)
		}
		if ed, resp, err := bob.EditIssueAttachment("alice", "proj", bobIssue.Index, a.ID, gitea.EditAttachmentOptions{Name: "renamed.log"}); err != nil || resp.StatusCode != 201 || ed.Name != "renamed.log" {
			t.Fatalf("poster renames: %v %v %+v", err, resp, ed)
		}
		if resp, err := bob.DeleteIssueAttachment("alice", "proj", bobIssue.Index, a.ID); err != nil || resp.StatusCode != 204 {
			t.Fatalf("poster deletes: %v %v", err, resp)
		}

		// Comments: the poster must also be able to write issues, or be a
		// repository administrator.
		bobComment, _, err := bob.CreateIssueComment("alice", "proj", aliceIssue.Index, gitea.CreateIssueCommentOption{Body: "bob says"})
		if err != nil {
			t.Fatal(err)
		}
		carolComment, _, err := carol.CreateIssueComment("alice", "proj", aliceIssue.Index, gitea.CreateIssueCommentOption{Body: "carol says"})
		if err != nil {
			t.Fatal(err)
		}
		r = s.upload(bobTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/comments/%d/assets", bobComment.ID), "c.txt", strings.NewReader("c"))
		expectStatus(t, r, http.StatusForbidden)
		if msg := r.message(t); msg != "user should have permission to edit comment" {
			t.Fatalf("comment 403: %q", msg)
		}
		r = s.upload(carolTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/comments/%d/assets", bobComment.ID), "c.txt", strings.NewReader("c"))
		expectStatus(t, r, http.StatusForbidden)
		ca, resp, err := carol.CreateIssueCommentAttachment("alice", "proj", carolComment.ID, strings.NewReader("mine"), "mine.txt")
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("comment poster with write attaches: %v %v", err, resp)
		}
		oa, resp, err := alice.CreateIssueCommentAttachment("alice", "proj", bobComment.ID, strings.NewReader("owner"), "owner.txt")
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("owner attaches to a comment: %v %v", err, resp)
		}
		cl, _, err := anon.ListIssueCommentAttachments("alice", "proj", bobComment.ID)
		if err != nil || len(cl) != 1 || cl[0].ID != oa.ID {
			t.Fatalf("comment list: %v %+v", err, cl)
		}
		// Comment files are not the issue's own.
		if list, _, _ := anon.ListIssueAttachments("alice", "proj", aliceIssue.Index); len(list) != 1 {
			t.Fatalf("issue list includes comment files: %+v", list)
		}
		if got, _, err := carol.EditIssueCommentAttachment("alice", "proj", carolComment.ID, ca.ID, gitea.EditAttachmentOptions{Name: "m.txt"}); err != nil || got.Name != "m.txt" {
			t.Fatalf("comment rename: %v %+v", err, got)
		}
		if resp, err := carol.DeleteIssueCommentAttachment("alice", "proj", carolComment.ID, ca.ID); err != nil || resp.StatusCode != 204 {
			t.Fatalf("comment delete: %v %v", err, resp)
		}
		// A deleted comment's files go with the sweep.
		if _, err := alice.DeleteIssueComment("alice", "proj", bobComment.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := s.App.Attachments.Sweep(context.Background(), 0); err != nil || n != 1 {
			t.Fatalf("sweep after comment delete: %d %v", n, err)
		}
		if code, _, _ := download(t, oa.DownloadURL, aliceTok); code != 404 {
			t.Fatalf("file of a deleted comment: %d", code)
		}

		// An archived repository refuses issue file writes with 423, and
		// still serves them.
		if _, _, err := alice.EditRepo("alice", "proj", gitea.EditRepoOption{Archived: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		r = s.upload(carolTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", aliceIssue.Index), "late.txt", strings.NewReader("x"))
		expectStatus(t, r, http.StatusLocked)
		if resp, err := carol.DeleteIssueAttachment("alice", "proj", aliceIssue.Index, w.ID); err == nil || resp.StatusCode != http.StatusLocked {
			t.Fatalf("delete in an archived repository: %v %v", err, resp)
		}
		if code, _, _ := download(t, w.DownloadURL, ""); code != 200 {
			t.Fatalf("download from an archived repository: %d", code)
		}
	})
}

// TestIssueAssetsInJSON: an issue's and a comment's files show in their
// JSON (assets), in single objects and lists, as the attachments area
// renders them; deleting the issue takes its and its comments' files.
func TestIssueAssetsInJSON(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		anon := s.sdk()
		s.createRepo(t, aliceTok, "proj", true, false)
		withFile, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "with a file"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "plain"}); err != nil {
			t.Fatal(err)
		}
		ia, _, err := alice.CreateIssueAttachment("alice", "proj", withFile.Index, strings.NewReader("issue file"), "i.txt")
		if err != nil {
			t.Fatal(err)
		}
		c1, _, err := alice.CreateIssueComment("alice", "proj", withFile.Index, gitea.CreateIssueCommentOption{Body: "one"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := alice.CreateIssueComment("alice", "proj", withFile.Index, gitea.CreateIssueCommentOption{Body: "two"}); err != nil {
			t.Fatal(err)
		}
		ca, _, err := alice.CreateIssueCommentAttachment("alice", "proj", c1.ID, strings.NewReader("comment file"), "c.txt")
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string, got []*gitea.Attachment, want ...*gitea.Attachment) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %d assets, want %d: %+v", what, len(got), len(want), got)
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.ID != w.ID || g.Name != w.Name || g.Size != w.Size || g.UUID != w.UUID ||
					g.DownloadURL != w.DownloadURL || !g.Created.Equal(w.Created) {
					t.Fatalf("%s: %+v, want %+v", what, g, w)
				}
			}
		}

		// The SDK's Issue has no assets field: read the JSON.
		type issueJSON struct {
			Number int64               `json:"number"`
			Assets []*gitea.Attachment `json:"assets"`
		}
		var one issueJSON
		r := s.do("GET", fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d", withFile.Index), "")
		expectStatus(t, r, http.StatusOK)
		r.json(t, &one)
		same("issue", one.Assets, ia) // not the comment's file
		r = s.do("GET", "/api/v1/repos/alice/proj/issues/2", "")
		expectStatus(t, r, http.StatusOK)
		if !bytes.Contains(r.Body, []byte(`"assets":[]`)) {
			t.Fatalf("an issue without files: %s", r.Body)
		}
		var list []issueJSON
		r = s.do("GET", "/api/v1/repos/alice/proj/issues?state=all", "")
		expectStatus(t, r, http.StatusOK)
		r.json(t, &list)
		if len(list) != 2 {
			t.Fatalf("issue list: %s", r.Body)
		}
		for _, is := range list {
			if is.Number == withFile.Index {
				same("listed issue", is.Assets, ia)
			} else {
				same("listed plain issue", is.Assets)
			}
		}

		comments, _, err := anon.ListIssueComments("alice", "proj", withFile.Index, gitea.ListIssueCommentOptions{})
		if err != nil || len(comments) != 2 {
			t.Fatalf("comments: %v %+v", err, comments)
		}
		same("comment", comments[0].Attachments, ca)
		same("other comment", comments[1].Attachments)
		if got, _, err := anon.GetIssueComment("alice", "proj", c1.ID); err != nil {
			t.Fatal(err)
		} else {
			same("single comment", got.Attachments, ca)
		}
		if got, _, err := alice.EditIssueComment("alice", "proj", c1.ID, gitea.EditIssueCommentOption{Body: "edited"}); err != nil {
			t.Fatal(err)
		} else {
			same("edited comment", got.Attachments, ca)
		}

		// Deleting the issue drops both rows; the sweep removes the files.
		if _, err := alice.DeleteIssue("alice", "proj", withFile.Index); err != nil {
			t.Fatal(err)
		}
		for _, a := range []*gitea.Attachment{ia, ca} {
			if code, _, _ := download(t, a.DownloadURL, aliceTok); code != 404 {
				t.Fatalf("file of a deleted issue before the sweep: %d", code)
			}
			// The rows went with the issue, not with the sweep.
			if _, err := s.App.Store.AttachmentByUUID(context.Background(), a.UUID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("row of %s after the issue's delete: %v", a.Name, err)
			}
		}
		if n, err := s.App.Attachments.Sweep(context.Background(), 0); err != nil || n != 2 {
			t.Fatalf("sweep after issue delete: %d %v", n, err)
		}
		for _, a := range []*gitea.Attachment{ia, ca} {
			if code, _, _ := download(t, a.DownloadURL, aliceTok); code != 404 {
				t.Fatalf("file of a deleted issue: %d", code)
			}
		}
	})
}

// TestAttachmentLimits: MAX_SIZE answers 413 without holding the upload
// in memory, and a large upload within it streams with bounded memory.
func TestAttachmentLimits(t *testing.T) {
	// Not parallel: it measures the process's heap during an upload.
	eachBackend(t, func(c *config.Config) {
		c.Attachment.MaxSize = 1
		c.Attachment.ReleaseMaxSize = 96
		c.Attachment.ReleaseAllowedTypes = ".bin,.txt"
	}, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rel, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1", Title: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		// 1 MiB is allowed, one byte more is not.
		r := s.upload(aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", is.Index), "exact.txt", &countingZeros{n: 1 << 20})
		expectStatus(t, r, http.StatusCreated)
		var sent atomic.Int64
		r = s.upload(aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", is.Index), "big.txt", &countingZeros{n: 256 << 20, read: &sent})
		expectStatus(t, r, http.StatusRequestEntityTooLarge)
		if sent.Load() > 64<<20 {
			t.Fatalf("the server read %d bytes past a 1 MiB limit", sent.Load())
		}
		waitFor(t, 5*time.Second, "the refused upload's temp file to go", func() bool { return len(s.blobTemps(t)) == 0 })
		if files := s.blobFiles(t); len(files) != 1 {
			t.Fatalf("files after a refused upload: %v", files)
		}
		// A comment's uploads have the attachment limit too (1 MiB here),
		// not the release assets' (96 MiB).
		cm, _, err := alice.CreateIssueComment("alice", "proj", is.Index, gitea.CreateIssueCommentOption{Body: "c"})
		if err != nil {
			t.Fatal(err)
		}
		commentAssets := fmt.Sprintf("/api/v1/repos/alice/proj/issues/comments/%d/assets", cm.ID)
		expectStatus(t, s.upload(aliceTok, commentAssets, "exact.txt", &countingZeros{n: 1 << 20}), http.StatusCreated)
		expectStatus(t, s.upload(aliceTok, commentAssets, "over.txt", &countingZeros{n: 1<<20 + 1}), http.StatusRequestEntityTooLarge)
		// A declared length beyond the largest upload is refused unread.
		var read atomic.Int64
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v1/repos/alice/proj/releases/%d/assets", s.URL, rel.ID), &countingZeros{n: 200 << 20, read: &read})
		req.ContentLength = 200 << 20
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		req.Header.Set("Authorization", "token "+aliceTok)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("declared too large: %v %v", err, resp)
		} else {
			resp.Body.Close()
		}
		if read.Load() > 8<<20 {
			t.Fatalf("read %d bytes of a body declared too large", read.Load())
		}

		// Fields before the file are read before the repository is
		// checked: at most about a megabyte of them.
		bobTok := s.seedUser("bob", "bob-password", false)
		var junk atomic.Int64
		pr, pw := io.Pipe()
		go func() {
			mw := multipart.NewWriter(pw)
			mw.SetBoundary("b")
			f, _ := mw.CreateFormField("junk")
			_, err := io.Copy(f, &countingZeros{n: 64 << 20, read: &junk})
			pw.CloseWithError(err)
		}()
		req, _ = http.NewRequest("POST", fmt.Sprintf("%s/api/v1/repos/alice/proj/releases/%d/assets", s.URL, rel.ID), pr)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		req.Header.Set("Authorization", "token "+bobTok)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("junk before the file: %v %v", err, resp)
		} else {
			resp.Body.Close()
		}
		pr.CloseWithError(errors.New("done"))
		if junk.Load() > 16<<20 {
			t.Fatalf("read %d bytes of fields before the file", junk.Load())
		}
		// A malformed body is 422.
		r = s.do("POST", fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets", rel.ID), "--b\r\nbroken", "Content-Type", "multipart/form-data; boundary=b", "Authorization", "token "+aliceTok)
		expectStatus(t, r, http.StatusUnprocessableEntity)

		// Release assets have their own type list.
		r = s.upload(aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets", rel.ID), "x.zip", strings.NewReader("PK"))
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if _, resp, err := alice.EditReleaseAttachment("alice", "proj", rel.ID, 1, gitea.EditAttachmentOptions{Name: "x.exe"}); err == nil || resp.StatusCode != 404 {
			t.Fatalf("edit of a missing asset: %v %v", err, resp)
		}

		// A 64 MiB asset streams through with bounded heap.
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}()
		r = s.upload(aliceTok, fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets", rel.ID), "big.bin", &countingZeros{n: 64 << 20})
		close(stop)
		wg.Wait()
		expectStatus(t, r, http.StatusCreated)
		var big gitea.Attachment
		r.json(t, &big)
		if big.Size != 64<<20 {
			t.Fatalf("size %d", big.Size)
		}
		if grew := int64(peak.Load()) - int64(base.HeapAlloc); grew > 32<<20 {
			t.Fatalf("heap grew by %d MiB during a 64 MiB upload", grew>>20)
		}
		code, h, body := download(t, big.DownloadURL, "")
		if code != 200 || len(body) != 64<<20 || h.Get("Content-Disposition") != `attachment; filename=big.bin` {
			t.Fatalf("download: %d %v %d bytes", code, h, len(body))
		}
	})
}

// TestAttachmentGRPC: the same service over gRPC, uploading in chunks.
func TestAttachmentGRPC(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		rel, _, err := alice.CreateRelease("alice", "proj", gitea.CreateReleaseOption{TagName: "v1", Title: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		client := attachmentsv1.NewAttachmentServiceClient(s.grpcConn())
		payload := make([]byte, 300<<10)
		rand.Read(payload)
		uploadAs := func(token string) (*attachmentsv1.CreateReleaseAttachmentResponse, error) {
			ctx := context.Background()
			if token != "" {
				ctx = withToken(ctx, token)
			}
			st, err := client.CreateReleaseAttachment(ctx)
			if err != nil {
				return nil, err
			}
			first := &attachmentsv1.CreateReleaseAttachmentRequest{Owner: "alice", Repo: "proj", Id: rel.ID, Name: "blob.bin"}
			if err := st.Send(first); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			for off := 0; off < len(payload); off += 100 << 10 {
				if err := st.Send(&attachmentsv1.CreateReleaseAttachmentRequest{Data: payload[off : off+100<<10]}); err != nil {
					break // refused: the status comes with CloseAndRecv
				}
			}
			return st.CloseAndRecv()
		}
		if _, err := uploadAs(""); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("anonymous gRPC upload: %v", err)
		}
		if _, err := uploadAs(bobTok); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("stranger gRPC upload: %v", err)
		}
		resp, err := uploadAs(aliceTok)
		if err != nil {
			t.Fatal(err)
		}
		a := resp.GetAttachment()
		if a.GetSize() != int64(len(payload)) || a.GetName() != "blob.bin" {
			t.Fatalf("uploaded: %v", a)
		}
		dl, err := client.DownloadAttachment(context.Background(), &attachmentsv1.DownloadAttachmentRequest{Uuid: a.GetUuid()})
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for {
			m, err := dl.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.GetData()...)
		}
		if !bytes.Equal(got, payload) {
			t.Fatalf("downloaded %d bytes, differ from the upload", len(got))
		}
		// The REST view of the same file.
		r := s.do("GET", fmt.Sprintf("/api/v1/repos/alice/proj/releases/%d/assets/%d", rel.ID, a.GetId()), "")
		expectStatus(t, r, 200)
		var view map[string]any
		if err := json.Unmarshal(r.Body, &view); err != nil || view["download_count"] != float64(1) || view["uuid"] != a.GetUuid() {
			t.Fatalf("REST view: %s", r.Body)
		}
	})
}

// TestAttachmentNameText: an upload's file name reaches the database like
// any request text, through the upload stream's first message: a NUL in
// it (the "name" query or the multipart file name) is refused on both
// databases with the interceptor's message, and nothing is stored;
// control characters and directories are dropped.
func TestAttachmentNameText(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		is, _, err := alice.CreateIssue("alice", "proj", gitea.CreateIssueOption{Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		assets := fmt.Sprintf("/api/v1/repos/alice/proj/issues/%d/assets", is.Index)
		// A raw NUL in the part's header is a malformed body (422 too); an
		// RFC 2231 file name (filename*=) decodes to one.
		expectStatus(t, s.upload(aliceTok, assets, "a\x00b.txt", strings.NewReader("x")), http.StatusUnprocessableEntity)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		part, err := mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="attachment"; filename*=UTF-8''a%00b.txt`}})
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte("x"))
		mw.Close()
		req, _ := http.NewRequest("POST", s.URL+assets, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "token "+aliceTok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		encoded, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, r := range []response{
			s.upload(aliceTok, assets+"?name=a%00b.txt", "x.txt", strings.NewReader("x")),
			{Status: resp.StatusCode, Body: encoded},
		} {
			expectStatus(t, r, http.StatusUnprocessableEntity)
			if !strings.Contains(string(r.Body), `"[Name]: contains a NUL character"`) {
				t.Fatalf("NUL in a file name: %s", r.Body)
			}
		}
		r := s.upload(aliceTok, assets+"?name=dir%2Fc%1B%5B0m.txt", "x.txt", strings.NewReader("x"))
		expectStatus(t, r, http.StatusCreated)
		if !strings.Contains(string(r.Body), `"name":"c[0m.txt"`) {
			t.Fatalf("control characters in a file name: %s", r.Body)
		}
		if files := s.blobFiles(t); len(files) != 1 {
			t.Fatalf("files after two refused uploads and one stored: %v", files)
		}
	})
}
