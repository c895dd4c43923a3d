package app_test

import (
	"os"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestTransferSDK: a repository offered to a user waits for them (201,
// repo_transfer shown, the recipient made a reader of the private
// repository), who may reject it (200, nothing moves) or accept it (202:
// the repository, its history and its files are the new owner's, the old
// name is gone); the owner of an organization moves one there at once
// (202) with a team of it. Refusals as Gitea: a stranger (404), the new
// owner unknown (404), teams for a user (422), a team of another
// organization (403), a name the new owner uses (422), a second offer
// (409), accepting what is not offered (404) or offered to someone else
// (403).
func TestTransferSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		carolTok := s.seedUser("carol", "carol-password", false)
		alice, bob, carol := s.sdk(gitea.SetToken(aliceTok)), s.sdk(gitea.SetToken(bobTok)), s.sdk(gitea.SetToken(carolTok))
		s.createRepo(t, aliceTok, "proj", true, true)
		work := s.clone(t, "alice", "alice-password", "alice", "proj")
		commitFile(t, work, "lib.go", "package lib\n", "add lib")
		gitCmd(t, work, "push", "-q", "origin", "main")
		head := strings.TrimSpace(gitCmd(t, work, "rev-parse", "HEAD"))

		status := func(resp *gitea.Response) int {
			if resp == nil {
				return 0
			}
			return resp.StatusCode
		}
		refused := func(what string, resp *gitea.Response, err error, code int, msg string) {
			t.Helper()
			if err == nil || status(resp) != code || !strings.Contains(err.Error(), msg) {
				t.Fatalf("%s: %d %v, want %d %q", what, status(resp), err, code, msg)
			}
		}
		_, resp, err := carol.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "carol"})
		refused("a stranger's transfer", resp, err, 404, "")
		_, resp, err = alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "nobody"})
		refused("to nobody", resp, err, 404, "The new owner does not exist or cannot be found")
		_, resp, err = alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "bob", TeamIDs: &[]int64{1}})
		refused("teams for a user", resp, err, 422, "Teams can only be added to organization-owned repositories")
		_, resp, err = bob.AcceptRepoTransfer("alice", "proj")
		refused("accept before any offer", resp, err, 404, "")
		_, resp, err = alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "alice"})
		refused("to its own owner", resp, err, 422, "repository already exists [uname: alice, name: proj]")

		// Offered to bob: pending, bob reads it and rejects it.
		r, resp, err := alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "bob"})
		if err != nil || status(resp) != 201 || r.FullName != "alice/proj" || r.RepoTransfer == nil ||
			r.RepoTransfer.Recipient.UserName != "bob" || r.RepoTransfer.Doer.UserName != "alice" {
			t.Fatalf("pending transfer: %d %+v %v", status(resp), r, err)
		}
		_, resp, err = alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "carol"})
		refused("a second offer", resp, err, 409, "repository is already being transferred")
		seen, _, err := bob.GetRepo("alice", "proj")
		if err != nil || seen.RepoTransfer == nil || seen.RepoTransfer.Recipient.UserName != "bob" {
			t.Fatalf("the recipient's view of the offer: %+v %v", seen, err)
		}
		_, resp, err = carol.AcceptRepoTransfer("alice", "proj")
		refused("a stranger accepts", resp, err, 404, "")
		_, resp, err = alice.AcceptRepoTransfer("alice", "proj")
		refused("the owner accepts for bob", resp, err, 403, "permission denied")
		r, resp, err = bob.RejectRepoTransfer("alice", "proj")
		if err != nil || status(resp) != 200 || r.FullName != "alice/proj" || r.RepoTransfer != nil {
			t.Fatalf("reject: %d %+v %v", status(resp), r, err)
		}
		_, resp, err = bob.RejectRepoTransfer("alice", "proj")
		refused("reject twice", resp, err, 404, "repository doesn't have a pending transfer")

		// Offered again and accepted: bob's, with its history.
		if _, resp, err := alice.TransferRepo("alice", "proj", gitea.TransferRepoOption{NewOwner: "bob"}); err != nil || status(resp) != 201 {
			t.Fatalf("offer again: %d %v", status(resp), err)
		}
		r, resp, err = bob.AcceptRepoTransfer("alice", "proj")
		if err != nil || status(resp) != 202 || r.FullName != "bob/proj" || r.Owner.UserName != "bob" || r.RepoTransfer != nil {
			t.Fatalf("accept: %d %+v %v", status(resp), r, err)
		}
		if _, resp, err := alice.GetRepo("alice", "proj"); status(resp) != 404 {
			t.Fatalf("the old name after the transfer: %d %v", status(resp), err)
		}
		if _, err := os.Stat(s.repoDir("alice", "proj")); !os.IsNotExist(err) {
			t.Fatalf("the old directory is still there: %v", err)
		}
		clone := s.clone(t, "bob", "bob-password", "bob", "proj")
		if got := strings.TrimSpace(gitCmd(t, clone, "rev-parse", "HEAD")); got != head {
			t.Fatalf("bob/proj's main is %s, want %s", got, head)
		}
		if b, _, err := bob.GetRepoBranch("bob", "proj", "main"); err != nil || b.Commit.ID != head {
			t.Fatalf("bob/proj's branch record: %+v %v", b, err)
		}

		// A name the recipient already uses.
		s.createRepo(t, aliceTok, "dup", false, false)
		s.createRepo(t, bobTok, "dup", false, false)
		_, resp, err = alice.TransferRepo("alice", "dup", gitea.TransferRepoOption{NewOwner: "bob"})
		refused("a used name", resp, err, 422, "repository already exists [uname: bob, name: dup]")

		// Into alice's organization at once, with a team of it.
		if _, _, err := alice.CreateOrg(gitea.CreateOrgOption{Name: "acme"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := carol.CreateOrg(gitea.CreateOrgOption{Name: "other"}); err != nil {
			t.Fatal(err)
		}
		devs, _, err := alice.CreateTeam("acme", gitea.CreateTeamOption{Name: "devs", Permission: gitea.AccessModeWrite,
			Units: []gitea.RepoUnitType{gitea.RepoUnitCode}})
		if err != nil {
			t.Fatal(err)
		}
		foreign, _, err := carol.CreateTeam("other", gitea.CreateTeamOption{Name: "x", Permission: gitea.AccessModeRead,
			Units: []gitea.RepoUnitType{gitea.RepoUnitCode}})
		if err != nil {
			t.Fatal(err)
		}
		_, resp, err = alice.TransferRepo("alice", "dup", gitea.TransferRepoOption{NewOwner: "acme", TeamIDs: &[]int64{foreign.ID}})
		refused("a team of another organization", resp, err, 403, "belongs not to org")
		r, resp, err = alice.TransferRepo("alice", "dup", gitea.TransferRepoOption{NewOwner: "acme", TeamIDs: &[]int64{devs.ID}})
		if err != nil || status(resp) != 202 || r.FullName != "acme/dup" || r.RepoTransfer != nil {
			t.Fatalf("transfer into the organization: %d %+v %v", status(resp), r, err)
		}
		ts, _, err := alice.GetRepoTeams("acme", "dup")
		if err != nil || !strings.Contains(teamNames(ts), "devs") {
			t.Fatalf("the repository's teams: %s %v", teamNames(ts), err)
		}
		if _, err := os.Stat(s.repoDir("acme", "dup")); err != nil {
			t.Fatalf("the new directory: %v", err)
		}
	})
}
