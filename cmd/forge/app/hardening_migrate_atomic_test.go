package app_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestMigrateRacesAllOrNothing: migrations racing for one name, or for
// the owner's last repository slot, are decided when the repository is
// recorded; exactly one wins, the others get Gitea's refusal and leave
// nothing behind: no record, no directory, no scratch clone.
func TestMigrateRacesAllOrNothing(t *testing.T) {
	t.Parallel()
	eachBackend(t, allowLocal, func(t *testing.T, s *testServer) {
		const alicePW = "alice-password"
		aliceTok := s.seedUser("alice", alicePW, false)
		s.createRepo(t, aliceTok, "source", true, true)
		migrate := func(name string, mirror bool) response {
			body := `{"clone_addr":"` + s.URL + `/alice/source.git","repo_name":"` + name + `","mirror":` + boolText(mirror) +
				`,"auth_username":"alice","auth_password":"` + alicePW + `"}`
			return s.do("POST", "/api/v1/repos/migrate", body, "Authorization", "token "+aliceTok, "Content-Type", jsonCT)
		}
		race := func(names ...string) []response {
			out := make([]response, len(names))
			var wg sync.WaitGroup
			for i, name := range names {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out[i] = migrate(name, i%2 == 0)
				}()
			}
			wg.Wait()
			return out
		}
		winners := func(rs []response, refusal int, msg string) int {
			t.Helper()
			won := -1
			for i, r := range rs {
				switch {
				case r.Status == 201 && won < 0:
					won = i
				case r.Status == refusal && r.message(t) == msg:
				default:
					t.Fatalf("migration %d: %d %s", i, r.Status, r.Body)
				}
			}
			if won < 0 {
				t.Fatalf("no migration won: %v", rs)
			}
			return won
		}

		// One name, four migrations.
		won := winners(race("copy", "copy", "copy", "copy"), 409, "The repository with the same name already exists.")
		rec := s.repoRecord(t, "alice", "copy")
		if rec.IsMirror != (won%2 == 0) || rec.IsEmpty || rec.DefaultBranch != "main" {
			t.Fatalf("the winner's record: %+v (winner %d)", rec, won)
		}
		if got := s.branchRecords(t, "alice", "copy"); len(got) != 1 || !strings.HasPrefix(got[0], "main@") {
			t.Fatalf("branch records: %v", got)
		}
		checkOnDisk(t, s, "copy.git", "source.git")

		// One slot left, four names.
		s.adminDo(t, "PATCH", "/api/v1/admin/users/alice", `{"max_repo_creation":3}`, 200)
		won = winners(race("l0", "l1", "l2", "l3"), 403, "user has reached maximum limit of repositories [limit: 3]")
		checkOnDisk(t, s, "copy.git", "l"+fmtInt(int64(won))+".git", "source.git")
		for i := range 4 {
			want := 404
			if i == won {
				want = 200
			}
			expectStatus(t, s.do("GET", "/api/v1/repos/alice/l"+fmtInt(int64(i)), "", "Authorization", "token "+aliceTok), want)
		}
		// Refused before the clone when the outcome is already known.
		r := migrate("late", false)
		if r.Status != 403 {
			t.Fatalf("migration at the limit: %d %s", r.Status, r.Body)
		}
		checkOnDisk(t, s, "copy.git", "l"+fmtInt(int64(won))+".git", "source.git")
	})
}

// checkOnDisk asserts that alice's directory holds exactly want and that
// no staged repository is left in forge's scratch space.
func checkOnDisk(t *testing.T, s *testServer, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Cfg.Repository.Root, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("alice's directory holds %v, want %v", got, want)
	}
	staged, _ := filepath.Glob(filepath.Join(s.Cfg.Repository.Root, "@forge", "tmp", "create-*"))
	if len(staged) != 0 {
		t.Fatalf("staged repositories left: %v", staged)
	}
}
