package app_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
	"golang.org/x/crypto/ssh"
)

// newAuthorizedKey is a fresh ed25519 key: its authorized_keys line and
// its signer.
func newAuthorizedKey(t testing.TB) (string, ssh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))), signer
}

// TestKeysSDK: the Gitea SDK's key calls parse forge's answers; a key is
// its owner's alone (another user's key is not found, for reading and
// deleting), an administrator adds and deletes keys for a user, deploy
// keys are per repository, and a deleted key can be added again. (Who may
// call and the 422s are cases in testdata/cases/keys.yaml.)
func TestKeysSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		rootTok := s.seedUser("boss", "boss-password", true)
		alice, bob, root, anon := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok)), s.sdk(gitea.SetToken(rootTok)), s.sdk()
		s.createRepo(t, aliceTok, "proj", false, true)
		s.createRepo(t, aliceTok, "other", false, false)

		line, signer := newAuthorizedKey(t)
		k, resp, err := alice.CreatePublicKey(gitea.CreateKeyOption{Title: "laptop", Key: line + " alice@laptop"})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("CreatePublicKey: %v", err)
		}
		if k.Title != "laptop" || k.Fingerprint != ssh.FingerprintSHA256(signer.PublicKey()) || k.KeyType != "user" ||
			k.Owner == nil || k.Owner.UserName != "alice" || !strings.HasPrefix(k.Key, line) ||
			!strings.HasSuffix(k.URL, "/api/v1/user/keys/"+fmtInt(k.ID)) || k.Created.IsZero() {
			t.Fatalf("created key: %+v", k)
		}
		got, _, err := alice.GetPublicKey(k.ID)
		if err != nil || got.ID != k.ID || got.Fingerprint != k.Fingerprint {
			t.Fatalf("GetPublicKey: %+v %v", got, err)
		}
		if _, resp, err := bob.GetPublicKey(k.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("bob reads alice's key: %v", err)
		}
		if resp, err := bob.DeletePublicKey(k.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("bob deletes alice's key: %v", err)
		}
		mine, _, err := alice.ListMyPublicKeys(gitea.ListPublicKeysOptions{})
		if err != nil || len(mine) != 1 || mine[0].ID != k.ID {
			t.Fatalf("ListMyPublicKeys: %+v %v", mine, err)
		}
		public, _, err := anon.ListPublicKeys("alice", gitea.ListPublicKeysOptions{})
		if err != nil || len(public) != 1 || public[0].Owner != nil || public[0].KeyType != "" {
			t.Fatalf("ListPublicKeys as anonymous: %+v %v", public, err)
		}

		// An administrator adds and deletes bob's key.
		bobLine, _ := newAuthorizedKey(t)
		bk, resp, err := root.AdminCreateUserPublicKey("bob", gitea.CreateKeyOption{Title: "work", Key: bobLine})
		if err != nil || resp.StatusCode != http.StatusCreated || bk.Owner == nil || bk.Owner.UserName != "bob" {
			t.Fatalf("AdminCreateUserPublicKey: %+v %v", bk, err)
		}
		if resp, err := root.AdminDeleteUserPublicKey("alice", int(bk.ID)); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("deleting bob's key as alice's: %v", err)
		}
		if _, err := root.AdminDeleteUserPublicKey("bob", int(bk.ID)); err != nil {
			t.Fatalf("AdminDeleteUserPublicKey: %v", err)
		}
		if keys, _, _ := bob.ListMyPublicKeys(gitea.ListPublicKeysOptions{}); len(keys) != 0 {
			t.Fatalf("bob's keys after the delete: %+v", keys)
		}

		// Deploy keys: one key on two repositories, each its own entry.
		dLine, _ := newAuthorizedKey(t)
		dk, resp, err := alice.CreateDeployKey("alice", "proj", gitea.CreateKeyOption{Title: "ci", Key: dLine, ReadOnly: true})
		if err != nil || resp.StatusCode != http.StatusCreated || !dk.ReadOnly || dk.Title != "ci" || dk.KeyID == 0 ||
			dk.Repository == nil || dk.Repository.FullName != "alice/proj" ||
			!strings.HasSuffix(dk.URL, "/api/v1/repos/alice/proj/keys/"+fmtInt(dk.ID)) {
			t.Fatalf("CreateDeployKey: %+v %v", dk, err)
		}
		dk2, _, err := alice.CreateDeployKey("alice", "other", gitea.CreateKeyOption{Title: "ci", Key: dLine})
		if err != nil || dk2.ReadOnly || dk2.KeyID != dk.KeyID || dk2.ID == dk.ID {
			t.Fatalf("the same deploy key on another repository: %+v %v", dk2, err)
		}
		if _, resp, err := alice.GetDeployKey("alice", "other", dk.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a deploy key of another repository: %v", err)
		}
		list, _, err := alice.ListDeployKeys("alice", "proj", gitea.ListDeployKeysOptions{})
		if err != nil || len(list) != 1 || list[0].ID != dk.ID || list[0].Key != dLine {
			t.Fatalf("ListDeployKeys: %+v %v", list, err)
		}
		if _, err := alice.DeleteDeployKey("alice", "proj", dk.ID); err != nil {
			t.Fatalf("DeleteDeployKey: %v", err)
		}
		if _, resp, err := alice.GetDeployKey("alice", "proj", dk.ID); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a deleted deploy key: %v", err)
		}
		if _, _, err := alice.GetDeployKey("alice", "other", dk2.ID); err != nil {
			t.Fatalf("the other repository keeps its deploy key: %v", err)
		}
		if _, err := alice.DeleteDeployKey("alice", "other", dk2.ID); err != nil {
			t.Fatalf("DeleteDeployKey: %v", err)
		}
		// No repository has it now: it may become a user's key.
		if _, _, err := bob.CreatePublicKey(gitea.CreateKeyOption{Title: "was-deploy", Key: dLine}); err != nil {
			t.Fatalf("a former deploy key as a user's key: %v", err)
		}

		// A deleted user key may be added again.
		if _, err := alice.DeletePublicKey(k.ID); err != nil {
			t.Fatalf("DeletePublicKey: %v", err)
		}
		if _, _, err := bob.CreatePublicKey(gitea.CreateKeyOption{Title: "now-bobs", Key: line}); err != nil {
			t.Fatalf("re-adding a deleted key: %v", err)
		}
	})
}
