package app_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"forge/services/config"
	"forge/services/store"
)

// TestRevokedInAnotherProcess: a token revoked by another process is
// refused on the very next request, although the principal was cached
// and this process was told nothing: on PostgreSQL through a second forge
// process's API, on SQLite by a separate OS process writing the file with
// plain SQL (what the forge command line or the sqlite3 shell does).
func TestRevokedInAnotherProcess(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		for i := range 3 {
			tok := s.seedUser("gone"+string(rune('a'+i)), "gone-password-1", false)
			warm(t, s, "/api/v1/user", tok, 200)
			if s.Cfg.Database.Type == "postgres" {
				peer := startPeer(t, s)
				expectStatus(t, peer.do("DELETE", "/api/v1/users/gone"+string(rune('a'+i))+"/tokens/seed", "",
					"Authorization", basicAuth("gone"+string(rune('a'+i)), "gone-password-1")), 204)
			} else {
				sqlInOtherProcess(t, s.Cfg.Database.Path,
					`DELETE FROM access_tokens WHERE uid = (SELECT id FROM users WHERE lower_name = 'gone`+string(rune('a'+i))+`')`)
			}
			r := s.do("GET", "/api/v1/user", "", "Authorization", "token "+tok)
			expectStatus(t, r, 401)
		}
	})
}

// sqlInOtherProcess runs one statement on the SQLite file from a child
// process (this test binary, see TestHelperSQLiteWrite).
func sqlInOtherProcess(t *testing.T, path, stmt string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSQLiteWrite$")
	cmd.Env = append(os.Environ(), "FORGE_HELPER_SQLITE_PATH="+path, "FORGE_HELPER_SQLITE_STMT="+stmt)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}

// TestHelperSQLiteWrite is the child of sqlInOtherProcess; it does nothing
// in a normal run.
func TestHelperSQLiteWrite(t *testing.T) {
	path := os.Getenv("FORGE_HELPER_SQLITE_PATH")
	if path == "" {
		return
	}
	cfg := config.Default().Database
	cfg.Type, cfg.Path = "sqlite3", path
	st, err := store.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res := st.DB().WithContext(context.Background()).Exec(os.Getenv("FORGE_HELPER_SQLITE_STMT"))
	if res.Error != nil || res.RowsAffected == 0 {
		t.Fatalf("%v, %d rows", res.Error, res.RowsAffected)
	}
}
