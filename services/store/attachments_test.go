package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

func TestAttachments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "att")
		other := newRepo(t, s, "other")
		rel := &store.Release{RepoID: repo.ID, TagName: "v1"}
		if err := s.CreateRelease(ctx, rel); err != nil {
			t.Fatal(err)
		}
		n := 0
		add := func(a store.Attachment) (*store.Attachment, error) {
			n++
			a.UUID, a.Name = fmt.Sprintf("uuid-%d", n), fmt.Sprintf("f%d.txt", n)
			return &a, s.CreateAttachment(ctx, &a)
		}
		a1, err := add(store.Attachment{RepoID: repo.ID, ReleaseID: rel.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := add(store.Attachment{RepoID: repo.ID, ReleaseID: rel.ID}); err != nil {
			t.Fatal(err)
		}
		// The parent must exist in that repository.
		for _, bad := range []store.Attachment{
			{RepoID: repo.ID, ReleaseID: rel.ID + 100},
			{RepoID: other.ID, ReleaseID: rel.ID},
			{RepoID: repo.ID, IssueID: 12345},
			{RepoID: repo.ID, CommentID: 12345},
			{RepoID: repo.ID},
		} {
			if _, err := add(bad); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("attachment for %+v: %v", bad, err)
			}
		}
		p := store.AttachmentParent{RepoID: repo.ID, ReleaseID: rel.ID}
		list, total, err := s.ListAttachments(ctx, p, 0, 10)
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != a1.ID {
			t.Fatalf("list: %v %d %+v", err, total, list)
		}
		if _, err := s.AttachmentOf(ctx, store.AttachmentParent{RepoID: other.ID, ReleaseID: rel.ID}, a1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("through another repository: %v", err)
		}
		if got, err := s.RenameAttachment(ctx, p, a1.ID, "new.txt"); err != nil || got.Name != "new.txt" {
			t.Fatalf("rename: %v %+v", err, got)
		}

		// Concurrent downloads all count.
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.CountAttachmentDownload(ctx, a1.ID); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got, _ := s.AttachmentByUUID(ctx, a1.UUID); got.DownloadCount != 20 {
			t.Fatalf("download_count %d, want 20", got.DownloadCount)
		}

		// Concurrent deletes: one wins, the other sees ErrNotFound.
		errs := make(chan error, 2)
		for i := 0; i < 2; i++ {
			go func() { _, err := s.DeleteAttachment(ctx, p, a1.ID); errs <- err }()
		}
		e1, e2 := <-errs, <-errs
		if (e1 == nil) == (e2 == nil) || (!errors.Is(e1, store.ErrNotFound) && !errors.Is(e2, store.ErrNotFound)) {
			t.Fatalf("concurrent deletes: %v, %v", e1, e2)
		}
		exists, err := s.AttachmentUUIDsExisting(ctx, []string{a1.UUID, "uuid-2", "nope"})
		if err != nil || exists[a1.UUID] || !exists["uuid-2"] || exists["nope"] {
			t.Fatalf("existing: %v %v", err, exists)
		}

		// Issue and comment files, listed apart and in bulk.
		is := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, Title: "t"}}
		if err := s.CreateIssue(ctx, is); err != nil {
			t.Fatal(err)
		}
		c := &store.Comment{RepoID: repo.ID, IssueID: is.ID, Content: "c"}
		if err := s.CreateComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		ia, err := add(store.Attachment{RepoID: repo.ID, IssueID: is.ID})
		if err != nil {
			t.Fatal(err)
		}
		ca, err := add(store.Attachment{RepoID: repo.ID, IssueID: is.ID, CommentID: c.ID})
		if err != nil {
			t.Fatal(err)
		}
		byIssue, err := s.AttachmentsOf(ctx, 0, "issue_id", []int64{is.ID})
		if err != nil || len(byIssue[is.ID]) != 1 || byIssue[is.ID][0].ID != ia.ID {
			t.Fatalf("issue files: %v %+v", err, byIssue)
		}
		byComment, err := s.AttachmentsOf(ctx, repo.ID, "comment_id", []int64{c.ID})
		if err != nil || len(byComment[c.ID]) != 1 || byComment[c.ID][0].ID != ca.ID {
			t.Fatalf("comment files: %v %+v", err, byComment)
		}
		if _, err := s.AttachmentsOf(ctx, 0, "id; DROP TABLE x", []int64{1}); err == nil {
			t.Fatal("an unknown column was accepted")
		}

		// Deleting the release removes its assets' rows in its transaction.
		if err := s.DeleteRelease(ctx, repo.ID, rel.ID, 0); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := s.ListAttachments(ctx, p, 0, 10); total != 0 {
			t.Fatalf("assets of a deleted release: %d", total)
		}
	})
}

// TestAttachmentRacesParentDelete: uploads racing the delete of their
// release either land before it (and go with it) or are refused; no row
// is left for a release that no longer exists.
func TestAttachmentRacesParentDelete(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "race")
		for round := 0; round < 5; round++ {
			rel := &store.Release{RepoID: repo.ID, TagName: fmt.Sprintf("v%d", round)}
			if err := s.CreateRelease(ctx, rel); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := &store.Attachment{RepoID: repo.ID, ReleaseID: rel.ID, UUID: fmt.Sprintf("r%d-%d", round, i), Name: "x"}
					if err := s.CreateAttachment(ctx, a); err != nil && !errors.Is(err, store.ErrNotFound) {
						t.Error(err)
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.DeleteRelease(ctx, repo.ID, rel.ID, 0); err != nil {
					t.Error(err)
				}
			}()
			wg.Wait()
			if _, total, _ := s.ListAttachments(ctx, store.AttachmentParent{RepoID: repo.ID, ReleaseID: rel.ID}, 0, 50); total != 0 {
				t.Fatalf("round %d: %d rows for a deleted release", round, total)
			}
		}
		// Orphans made behind the store's back are removed by the sweep's
		// first step.
		if err := s.DB().Exec("INSERT INTO attachments (uuid, repo_id, issue_id, comment_id, release_id, uploader_id, name, size, download_count, created_unix) VALUES ('orphan', ?, 0, 0, 424242, 0, 'o', 0, 0, 0)", repo.ID).Error; err != nil {
			t.Fatal(err)
		}
		if n, err := s.DeleteOrphanAttachments(ctx); err != nil || n != 1 {
			t.Fatalf("orphans: %d %v", n, err)
		}
	})
}

// TestIssueDeleteRemovesAttachments: deleting a comment removes its
// files' rows, deleting an issue removes its own and its comments', in
// the delete's transaction; other issues' files stay.
func TestIssueDeleteRemovesAttachments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "isdel")
		newIssue := func() (*store.NewIssue, *store.Comment) {
			is := &store.NewIssue{Issue: store.Issue{RepoID: repo.ID, Title: "t"}}
			if err := s.CreateIssue(ctx, is); err != nil {
				t.Fatal(err)
			}
			c := &store.Comment{RepoID: repo.ID, IssueID: is.ID, Content: "c"}
			if err := s.CreateComment(ctx, c); err != nil {
				t.Fatal(err)
			}
			return is, c
		}
		n := 0
		add := func(issueID, commentID int64) {
			n++
			a := &store.Attachment{RepoID: repo.ID, IssueID: issueID, CommentID: commentID, UUID: fmt.Sprintf("d-%d", n), Name: "x"}
			if err := s.CreateAttachment(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		count := func() int64 {
			var k int64
			if err := s.DB().Model(&store.Attachment{}).Where("repo_id = ?", repo.ID).Count(&k).Error; err != nil {
				t.Fatal(err)
			}
			return k
		}
		gone, goneC := newIssue()
		kept, keptC := newIssue()
		for _, is := range []*store.NewIssue{gone, kept} {
			add(is.ID, 0)
		}
		for _, c := range []*store.Comment{goneC, keptC} {
			add(c.IssueID, c.ID)
			add(c.IssueID, c.ID)
		}

		if err := s.DeleteComment(ctx, repo.ID, keptC.ID); err != nil {
			t.Fatal(err)
		}
		if got := count(); got != 4 {
			t.Fatalf("after deleting a comment: %d rows, want 4", got)
		}
		if err := s.DeleteIssue(ctx, repo.ID, gone.Index); err != nil {
			t.Fatal(err)
		}
		if got := count(); got != 1 {
			t.Fatalf("after deleting an issue: %d rows, want 1", got)
		}
		left, err := s.AttachmentsOf(ctx, repo.ID, "issue_id", []int64{kept.ID})
		if err != nil || len(left[kept.ID]) != 1 {
			t.Fatalf("the other issue's file: %v %+v", err, left)
		}

		// Uploads to a comment racing its issue's delete land before it
		// (and go with it) or are refused: no row outlives the issue.
		for round := 0; round < 5; round++ {
			is, c := newIssue()
			var wg sync.WaitGroup
			for i := 0; i < 6; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := &store.Attachment{RepoID: repo.ID, IssueID: is.ID, CommentID: c.ID, UUID: fmt.Sprintf("race-%d-%d", round, i), Name: "x"}
					if i%2 == 0 {
						a.CommentID = 0
					}
					if err := s.CreateAttachment(ctx, a); err != nil && !errors.Is(err, store.ErrNotFound) {
						t.Error(err)
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.DeleteIssue(ctx, repo.ID, is.Index); err != nil {
					t.Error(err)
				}
			}()
			wg.Wait()
			if got := count(); got != 1 {
				t.Fatalf("round %d: %d rows, want 1", round, got)
			}
		}
	})
}
