package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestCreateRepositoryAtomicMirror: a migrated mirror's record, branches
// and mirror state are committed together, or not at all when placing
// the files fails; CheckNewRepository gives the same refusals early.
func TestCreateRepositoryAtomicMirror(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newUser("mig", "mig@x.org", false)
		if err := s.CreateUser(ctx, owner); err != nil {
			t.Fatal(err)
		}
		newRepo := func() store.NewRepository {
			return store.NewRepository{
				Repo:     &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "Copy", DefaultBranch: "main", IsMirror: true},
				Branches: []store.BranchUpdate{{Name: "main", CommitID: "a1"}},
				Mirror:   &store.Mirror{IntervalSecs: 3600, RemoteAddress: "https://example.org/x.git", RemoteSealed: []byte("sealed")},
				Limit:    1,
			}
		}
		failed := errors.New("place failed")
		n := newRepo()
		if err := s.CreateRepositoryAtomic(ctx, n, func() error { return failed }); !errors.Is(err, failed) {
			t.Fatalf("failed place: %v", err)
		}
		if _, err := s.RepositoryByName(ctx, owner.ID, "copy"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("record after a failed place: %v", err)
		}
		if n.Mirror.RepoID != 0 {
			if _, err := s.MirrorByRepoID(ctx, n.Mirror.RepoID); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("mirror row after a failed place: %v", err)
			}
		}
		if err := s.CheckNewRepository(ctx, owner.ID, "COPY", 1); err != nil {
			t.Fatalf("check before: %v", err)
		}

		n = newRepo()
		if err := s.CreateRepositoryAtomic(ctx, n, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		m, err := s.MirrorByRepoID(ctx, n.Repo.ID)
		if err != nil || m.IntervalSecs != 3600 || m.NextUpdateUnix == 0 || string(m.RemoteSealed) != "sealed" {
			t.Fatalf("mirror row: %+v %v", m, err)
		}
		if r, err := s.RepositoryByID(ctx, n.Repo.ID); err != nil || r.IsEmpty || !r.IsMirror {
			t.Fatalf("record: %+v %v", r, err)
		}
		if got := branchNames(t, s, n.Repo.ID); len(got) != 1 || got[0] != "main@a1" {
			t.Fatalf("branches: %v", got)
		}
		if err := s.CheckNewRepository(ctx, owner.ID, "copy", -1); !errors.Is(err, store.ErrRepoExists) {
			t.Fatalf("check of a taken name: %v", err)
		}
		if err := s.CheckNewRepository(ctx, owner.ID, "other", 1); !errors.Is(err, store.ErrRepoLimit) {
			t.Fatalf("check at the limit: %v", err)
		}
	})
}
