package store_test

import (
	"context"
	"errors"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// TestKeys: a fingerprint is a user's key or a deploy key, never both;
// titles are unique per account and deploy key names per repository; a
// deploy key shared by two repositories goes when the last one drops it;
// deleting the repository or the user clears their keys.
func TestKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice, bob := newUser("alice", "alice@example.org", false), newUser("bob", "bob@example.org", false)
		for _, u := range []*store.User{alice, bob} {
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		r1 := &store.Repository{OwnerID: alice.ID, OwnerName: "alice", Name: "one", DefaultBranch: "main"}
		r2 := &store.Repository{OwnerID: alice.ID, OwnerName: "alice", Name: "two", DefaultBranch: "main"}
		for _, r := range []*store.Repository{r1, r2} {
			if err := s.CreateRepository(ctx, r, alice.ID); err != nil {
				t.Fatal(err)
			}
		}
		k := &store.PublicKey{OwnerID: alice.ID, Name: "laptop", Fingerprint: "SHA256:a", Content: "ssh-ed25519 AAAA"}
		if err := s.AddPublicKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPublicKey(ctx, &store.PublicKey{OwnerID: bob.ID, Name: "x", Fingerprint: "SHA256:a"}); !errors.Is(err, store.ErrKeyUsed) {
			t.Fatalf("the same key for bob: %v", err)
		}
		if err := s.AddPublicKey(ctx, &store.PublicKey{OwnerID: alice.ID, Name: "laptop", Fingerprint: "SHA256:b"}); !errors.Is(err, store.ErrKeyTitleUsed) {
			t.Fatalf("a second laptop: %v", err)
		}
		if _, err := s.AddDeployKey(ctx, r1.ID, "ci", "SHA256:a", "x", store.AccessRead); !errors.Is(err, store.ErrKeyUsed) {
			t.Fatalf("a user's key as a deploy key: %v", err)
		}
		d1, err := s.AddDeployKey(ctx, r1.ID, "ci", "SHA256:d", "ssh-ed25519 DDDD", store.AccessRead)
		if err != nil || d1.Content != "ssh-ed25519 DDDD" {
			t.Fatalf("AddDeployKey: %+v %v", d1, err)
		}
		if _, err := s.AddDeployKey(ctx, r1.ID, "ci2", "SHA256:d", "ssh-ed25519 DDDD", store.AccessRead); !errors.Is(err, store.ErrDeployKeyAdded) {
			t.Fatalf("twice on one repository: %v", err)
		}
		if _, err := s.AddDeployKey(ctx, r1.ID, "ci", "SHA256:e", "ssh-ed25519 EEEE", store.AccessRead); !errors.Is(err, store.ErrDeployKeyNameUsed) {
			t.Fatalf("a used name: %v", err)
		}
		d2, err := s.AddDeployKey(ctx, r2.ID, "ci", "SHA256:d", "ignored", store.AccessWrite)
		if err != nil || d2.KeyID != d1.KeyID || d2.Mode != store.AccessWrite {
			t.Fatalf("the key on a second repository: %+v %v", d2, err)
		}
		if got, err := s.DeployKeyFor(ctx, d1.KeyID, r2.ID); err != nil || got.ID != d2.ID || got.Content != "ssh-ed25519 DDDD" {
			t.Fatalf("DeployKeyFor: %+v %v", got, err)
		}
		if err := s.DeleteDeployKey(ctx, r2.ID, d1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleting another repository's deploy key: %v", err)
		}
		if err := s.DeleteDeployKey(ctx, r1.ID, d1.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PublicKeyByFingerprint(ctx, "SHA256:d"); err != nil {
			t.Fatalf("the key r2 still has: %v", err)
		}
		// The repository goes: its deploy keys with it; the key, left
		// without repositories, may become a user's key.
		if err := s.DeleteRepository(ctx, r2.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeployKeyFor(ctx, d1.KeyID, r2.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted repository's deploy key: %v", err)
		}
		if err := s.AddPublicKey(ctx, &store.PublicKey{OwnerID: bob.ID, Name: "was-deploy", Fingerprint: "SHA256:d", Content: "ssh-ed25519 DDDD"}); err != nil {
			t.Fatalf("an orphaned deploy key as a user's key: %v", err)
		}
		keys, total, err := s.ListPublicKeys(ctx, alice.ID, "", 0, 10)
		if err != nil || total != 1 || len(keys) != 1 || keys[0].ID != k.ID {
			t.Fatalf("ListPublicKeys: %+v %d %v", keys, total, err)
		}
		if err := s.DeletePublicKey(ctx, bob.ID, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("bob deletes alice's key: %v", err)
		}
		if err := s.DeleteUser(ctx, "alice", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PublicKeyByID(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted user's key: %v", err)
		}
	})
}
