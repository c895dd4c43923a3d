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

func releaseTags(rs []store.Release) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += " "
		}
		out += r.TagName
	}
	return out
}

func TestReleases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "rel")
		other := newRepo(t, s, "other")
		mk := func(tag string, created int64, draft, pre bool) *store.Release {
			t.Helper()
			r := &store.Release{RepoID: repo.ID, PublisherID: repo.OwnerID, TagName: tag, Title: "T " + tag, Target: "main",
				Sha1: "abc", IsDraft: draft, IsPrerelease: pre, CreatedUnix: created}
			if err := s.CreateRelease(ctx, r); err != nil {
				t.Fatalf("create %s: %v", tag, err)
			}
			return r
		}
		v1 := mk("v1.0", 100, false, false)
		mk("v1.1-rc", 200, false, true)
		mk("v2.0", 300, true, false)
		v09 := mk("v0.9", 50, false, false)

		// Another repository's release is invisible here.
		if err := s.CreateRelease(ctx, &store.Release{RepoID: other.ID, TagName: "v9", CreatedUnix: 999}); err != nil {
			t.Fatal(err)
		}

		// Same tag, any case: exists.
		if err := s.CreateRelease(ctx, &store.Release{RepoID: repo.ID, TagName: "V1.0"}); !errors.Is(err, store.ErrReleaseExists) {
			t.Fatalf("duplicate tag: %v", err)
		}

		list := func(o store.ReleaseListOptions) (string, int64) {
			t.Helper()
			o.RepoID, o.Limit = repo.ID, 10
			rs, total, err := s.ListReleases(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			return releaseTags(rs), total
		}
		yes, no := true, false
		for _, c := range []struct {
			o     store.ReleaseListOptions
			want  string
			total int64
		}{
			{store.ReleaseListOptions{}, "v1.1-rc v1.0 v0.9", 3},
			{store.ReleaseListOptions{IncludeDrafts: true}, "v2.0 v1.1-rc v1.0 v0.9", 4},
			{store.ReleaseListOptions{IncludeDrafts: true, Draft: &yes}, "v2.0", 1},
			{store.ReleaseListOptions{Draft: &yes}, "", 0}, // a reader asking for drafts gets none
			{store.ReleaseListOptions{IncludeDrafts: true, Draft: &no}, "v1.1-rc v1.0 v0.9", 3},
			{store.ReleaseListOptions{IncludeDrafts: true, Prerelease: &yes}, "v1.1-rc", 1},
			{store.ReleaseListOptions{IncludeDrafts: true, Prerelease: &no}, "v2.0 v1.0 v0.9", 3},
			{store.ReleaseListOptions{IncludeDrafts: true, Offset: 1}, "v1.1-rc v1.0 v0.9", 4},
		} {
			if got, total := list(c.o); got != c.want || total != c.total {
				t.Errorf("%+v: %q (%d), want %q (%d)", c.o, got, total, c.want, c.total)
			}
		}

		// Latest skips drafts and pre-releases.
		latest, err := s.LatestRelease(ctx, repo.ID)
		if err != nil || latest.ID != v1.ID {
			t.Fatalf("latest: %+v %v", latest, err)
		}

		got, err := s.ReleaseByTag(ctx, repo.ID, "V0.9")
		if err != nil || got.ID != v09.ID {
			t.Fatalf("by tag: %+v %v", got, err)
		}
		if _, err := s.ReleaseByID(ctx, other.ID, v1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("release through another repository: %v", err)
		}
		if n, err := s.CountReleases(ctx, repo.ID); err != nil || n != 3 {
			t.Fatalf("count: %d %v", n, err)
		}

		// Update: change fields; renaming onto a used tag is refused.
		upd, err := s.UpdateRelease(ctx, repo.ID, v1.ID, func(r *store.Release) error {
			r.Title, r.TagName = "First", "v1.0.0"
			return nil
		})
		if err != nil || upd.Title != "First" || upd.LowerTagName != "v1.0.0" {
			t.Fatalf("update: %+v %v", upd, err)
		}
		if _, err := s.ReleaseByTag(ctx, repo.ID, "v1.0"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("old tag still found: %v", err)
		}
		if _, err := s.UpdateRelease(ctx, repo.ID, v1.ID, func(r *store.Release) error { r.TagName = "V0.9"; return nil }); !errors.Is(err, store.ErrReleaseExists) {
			t.Fatalf("rename onto used tag: %v", err)
		}
		stop := errors.New("stop")
		if _, err := s.UpdateRelease(ctx, repo.ID, v1.ID, func(r *store.Release) error { r.Title = "x"; return stop }); !errors.Is(err, stop) {
			t.Fatalf("aborted update: %v", err)
		}
		if r, _ := s.ReleaseByID(ctx, repo.ID, v1.ID); r.Title != "First" {
			t.Fatalf("aborted update was saved: %+v", r)
		}
		if _, err := s.UpdateRelease(ctx, other.ID, v1.ID, func(*store.Release) error { return nil }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update through another repository: %v", err)
		}

		// Delete; twice is NotFound.
		if err := s.DeleteRelease(ctx, repo.ID, v09.ID, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteRelease(ctx, repo.ID, v09.ID, 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		// The tag is free again.
		mk("v0.9", 60, false, false)
	})
}

// A tag-only record is never listed and becomes the release created for
// its tag.
func TestReleaseFromTagRecord(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "tagrec")
		tag := &store.Release{RepoID: repo.ID, TagName: "v1", LowerTagName: "v1", IsTag: true, Sha1: "abc", CreatedUnix: 10}
		if err := s.DB().Create(tag).Error; err != nil {
			t.Fatal(err)
		}
		if rs, total, err := s.ListReleases(ctx, store.ReleaseListOptions{RepoID: repo.ID, IncludeDrafts: true, Limit: 10}); err != nil || len(rs) != 0 || total != 0 {
			t.Fatalf("tag record listed: %v %d %v", rs, total, err)
		}
		for _, get := range []func() (*store.Release, error){
			func() (*store.Release, error) { return s.ReleaseByID(ctx, repo.ID, tag.ID) },
			func() (*store.Release, error) { return s.ReleaseByTag(ctx, repo.ID, "v1") },
			func() (*store.Release, error) { return s.LatestRelease(ctx, repo.ID) },
		} {
			if _, err := get(); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("tag record found: %v", err)
			}
		}
		if err := s.DeleteRelease(ctx, repo.ID, tag.ID, 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("tag record deleted as a release: %v", err)
		}
		r := &store.Release{RepoID: repo.ID, TagName: "v1", Title: "One", Sha1: "abc"}
		if err := s.CreateRelease(ctx, r); err != nil {
			t.Fatal(err)
		}
		if r.ID != tag.ID {
			t.Fatalf("release id %d, want the tag record's %d", r.ID, tag.ID)
		}
		got, err := s.ReleaseByTag(ctx, repo.ID, "v1")
		if err != nil || got.Title != "One" || got.IsTag {
			t.Fatalf("converted: %+v %v", got, err)
		}
	})
}

// Concurrent creates of one tag: exactly one wins, the others see
// ErrReleaseExists.
func TestCreateReleaseConcurrent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "race")
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.CreateRelease(ctx, &store.Release{RepoID: repo.ID, TagName: "v1", Title: fmt.Sprint(i)})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, store.ErrReleaseExists):
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d creates succeeded, want 1", ok)
		}
	})
}
