package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestTransfers: an offer is one per repository and makes the recipient a
// reader when asked; a transfer moves the owner, drops the new owner's
// collaboration and the pending offer, refuses a name the new owner uses,
// and rolls everything back when move fails.
func TestTransfers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		repo := newRepo(t, s, "moving")
		bob := newUser("bob", "bob@x.org", false)
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		offer := &store.RepoTransfer{RepoID: repo.ID, DoerID: repo.OwnerID, RecipientID: bob.ID}
		if err := s.OfferRepository(ctx, offer, true); err != nil {
			t.Fatal(err)
		}
		if m, err := s.CollaboratorMode(ctx, repo.ID, bob.ID); err != nil || m != store.AccessRead {
			t.Fatalf("the recipient's collaboration: %v %v", m, err)
		}
		if err := s.OfferRepository(ctx, &store.RepoTransfer{RepoID: repo.ID, RecipientID: bob.ID}, false); !errors.Is(err, store.ErrTransferPending) {
			t.Fatalf("a second offer: %v", err)
		}
		pending, err := s.PendingTransfer(ctx, repo.ID)
		if err != nil || pending.RecipientID != bob.ID {
			t.Fatalf("PendingTransfer: %+v %v", pending, err)
		}
		// A failing move leaves everything as it was.
		boom := errors.New("boom")
		if _, err := s.TransferRepository(ctx, store.Transfer{RepoID: repo.ID, NewOwner: bob, Pending: pending},
			func(_, _ *store.Repository) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("failed move: %v", err)
		}
		if r, _ := s.RepositoryByID(ctx, repo.ID); r.OwnerID != repo.OwnerID {
			t.Fatalf("owner after a failed move: %d", r.OwnerID)
		}
		var from, to string
		updated, err := s.TransferRepository(ctx, store.Transfer{RepoID: repo.ID, NewOwner: bob, Pending: pending},
			func(old, now *store.Repository) error { from, to = old.OwnerName, now.OwnerName; return nil })
		if err != nil || updated.OwnerID != bob.ID || updated.OwnerName != "bob" || from != repo.OwnerName || to != "bob" {
			t.Fatalf("transfer: %+v %v (%s -> %s)", updated, err, from, to)
		}
		if _, err := s.RepositoryByName(ctx, bob.ID, "moving"); err != nil {
			t.Fatalf("bob/moving: %v", err)
		}
		if m, _ := s.CollaboratorMode(ctx, repo.ID, bob.ID); m != store.AccessNone {
			t.Fatalf("the new owner is still a collaborator: %v", m)
		}
		if _, err := s.PendingTransfer(ctx, repo.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the offer outlived the transfer: %v", err)
		}
		if _, err := s.TransferRepository(ctx, store.Transfer{RepoID: repo.ID, NewOwner: bob, Pending: pending},
			func(_, _ *store.Repository) error { return nil }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("accepting an offer twice: %v", err)
		}
		// A name the new owner uses.
		other := newRepo(t, s, "moving2")
		taken := &store.Repository{OwnerID: bob.ID, OwnerName: "bob", Name: "moving2", DefaultBranch: "main"}
		if err := s.CreateRepository(ctx, taken, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.OfferRepository(ctx, &store.RepoTransfer{RepoID: other.ID, RecipientID: bob.ID}, false); !errors.Is(err, store.ErrRepoExists) {
			t.Fatalf("offer onto a used name: %v", err)
		}
		if _, err := s.TransferRepository(ctx, store.Transfer{RepoID: other.ID, NewOwner: bob},
			func(_, _ *store.Repository) error { return nil }); !errors.Is(err, store.ErrRepoExists) {
			t.Fatalf("transfer onto a used name: %v", err)
		}
		if err := s.CancelTransfer(ctx, other.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cancel without an offer: %v", err)
		}
	})
}
