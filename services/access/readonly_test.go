package access_test

import (
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/rpcerr"
	"forge/services/store"
)

func TestReadOnly(t *testing.T) {
	repo := func(archived, mirror bool) *access.Repo {
		return &access.Repo{
			Repository: &store.Repository{ID: 7, Name: "demo", IsArchived: archived, IsMirror: mirror},
			Owner:      &store.User{Name: "alice"},
			Mode:       store.AccessOwner,
		}
	}
	const locked = "<Repository 7:alice/demo> is archived"
	cases := []struct {
		name             string
		archived, mirror bool
		writes           auth.RepoWrite
		code             codes.Code
		http             int
		msg              string
	}{
		{"plain code", false, false, auth.WritesCode, codes.OK, 0, ""},
		{"archived code", true, false, auth.WritesCode, codes.FailedPrecondition, http.StatusLocked, locked},
		{"archived mirror code", true, true, auth.WritesCode, codes.FailedPrecondition, http.StatusLocked, locked},
		{"mirror code", false, true, auth.WritesCode, codes.PermissionDenied, http.StatusForbidden, access.MirrorReadOnlyMessage},
		{"archived releases", true, false, auth.WritesReleases, codes.PermissionDenied, http.StatusForbidden, locked},
		{"mirror releases", false, true, auth.WritesReleases, codes.PermissionDenied, http.StatusForbidden, access.MirrorReadOnlyMessage},
		{"archived mirroring", true, true, auth.WritesMirroring, codes.FailedPrecondition, http.StatusLocked, locked},
		{"mirror mirroring", false, true, auth.WritesMirroring, codes.OK, 0, ""},
		{"archived push", true, false, auth.WritesPush, codes.PermissionDenied, http.StatusForbidden, locked},
		{"mirror push", false, true, auth.WritesPush, codes.PermissionDenied, http.StatusForbidden, access.MirrorReadOnlyMessage},
		{"archived issues", true, false, auth.WritesIssues, codes.FailedPrecondition, http.StatusLocked, locked},
		{"archived mirror issues", true, true, auth.WritesIssues, codes.FailedPrecondition, http.StatusLocked, locked},
		{"mirror issues", false, true, auth.WritesIssues, codes.OK, 0, ""},
		{"archived settings", true, true, auth.WritesSettings, codes.OK, 0, ""},
		{"archived nothing", true, true, auth.WritesNothing, codes.OK, 0, ""},
		{"archived read", true, true, auth.WritesUndeclared, codes.OK, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := access.ReadOnly(repo(c.archived, c.mirror), c.writes)
			st := status.Convert(rpcerr.Status(err))
			if st.Code() != c.code || st.Message() != c.msg {
				t.Fatalf("ReadOnly: %v, want %v %q", err, c.code, c.msg)
			}
			got, ok := rpcerr.HTTPStatus(st)
			if ok != (c.http != 0) || got != c.http {
				t.Fatalf("HTTP status %d %v, want %d", got, ok, c.http)
			}
		})
	}
}
