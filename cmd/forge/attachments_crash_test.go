package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"forge/services/attachments"
)

// upload posts a multipart release asset as root.
func (f *crashForge) upload(releaseID int64, name, content string) (int, []byte, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("attachment", name)
	io.WriteString(part, content)
	mw.Close()
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v1/repos/root/proj/releases/%d/assets", f.base, releaseID), &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "token "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

// blobFiles lists the attachment files on disk (path by uuid).
func (f *crashForge) blobFiles() map[string]string {
	out := map[string]string{}
	root := filepath.Join(f.c.dir, "data", "attachments")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) != "tmp" {
			out[d.Name()] = p
		}
		return nil
	})
	return out
}

// TestAttachmentCrashSweep: forge killed between an upload's file and its
// row leaves a file without a row; the sweep at start-up removes it once
// it is older than attachments.SweepAge, and never a file that has a row
// or one young enough to be an upload in flight.
func TestAttachmentCrashSweep(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("proj", true)
		var rel struct{ ID int64 }
		json.Unmarshal(f.mustAPI("POST", "/api/v1/repos/root/proj/releases", `{"tag_name":"v1","name":"v1"}`, 201), &rel)
		code, body, err := f.upload(rel.ID, "kept.txt", "kept")
		if err != nil || code != 201 {
			t.Fatalf("upload: %d %s %v", code, body, err)
		}
		var kept struct{ UUID string }
		json.Unmarshal(body, &kept)
		f.stop()

		f.start(attachments.FailpointAfterFile)
		if code, body, err := f.upload(rel.ID, "lost.txt", "lost"); err == nil {
			t.Fatalf("upload through the failpoint answered %d %s", code, body)
		}
		f.waitKilled()
		files := f.blobFiles()
		if len(files) != 2 {
			t.Fatalf("files after the crash: %v", files)
		}
		var orphan string
		for k := range files {
			if k != kept.UUID {
				orphan = k
			}
		}

		// Restarted at once: the orphan is young, so it stays (it could be
		// an upload of another process in flight); the table never saw it.
		f.start("")
		var list []struct{ UUID string }
		json.Unmarshal(f.mustAPI("GET", fmt.Sprintf("/api/v1/repos/root/proj/releases/%d/assets", rel.ID), "", 200), &list)
		if len(list) != 1 || list[0].UUID != kept.UUID {
			t.Fatalf("assets after the crash: %+v", list)
		}
		if _, ok := f.blobFiles()[orphan]; !ok {
			t.Fatal("a young file was swept")
		}
		f.stop()

		// An hour later (mtimes moved back), the start-up sweep removes the
		// orphan and keeps the file that has a row.
		old := time.Now().Add(-attachments.SweepAge - time.Minute)
		for _, p := range f.blobFiles() {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		f.start("")
		var left []string
		for k := range f.blobFiles() {
			left = append(left, k)
		}
		sort.Strings(left)
		if len(left) != 1 || left[0] != kept.UUID {
			t.Fatalf("files after the sweep: %v (kept %s, orphan %s)", left, kept.UUID, orphan)
		}
		req, _ := http.NewRequest("GET", f.base+"/attachments/"+kept.UUID, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "kept" {
			t.Fatalf("kept file: %d %q", resp.StatusCode, b)
		}
	})
}
