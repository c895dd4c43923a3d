package repos

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/rpcerr"
	"forge/services/store"
)

// fakeStore is a Store for the use cases' own rules: the methods a test
// does not set panic (the nil embedded interface), so a test also proves
// which store calls a rule does not make.
type fakeStore struct {
	Store
	users   map[string]*store.User
	deleted []int64
	delErr  error
	setCall int
}

func (f *fakeStore) UserByName(_ context.Context, name string) (*store.User, error) {
	if u, ok := f.users[name]; ok {
		return u, nil
	}
	return nil, store.ErrNotFound
}

func (f *fakeStore) UserVisible(context.Context, store.UserFilter, int64) (bool, error) {
	return true, nil
}

func (f *fakeStore) DeleteRepositoryBy(_ context.Context, id, _ int64) error {
	if f.delErr != nil {
		return f.delErr
	}
	f.deleted = append(f.deleted, id)
	return nil
}

func (f *fakeStore) SetCollaborator(context.Context, int64, int64, store.AccessMode) error {
	f.setCall++
	return nil
}

func newGit(t *testing.T) *git.Store {
	t.Helper()
	g, err := git.New(filepath.Join(t.TempDir(), "repositories"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPurgerDeletesRecordThenFiles: the record goes first; files are
// removed only once it is gone, and a repository without files is fine.
func TestPurgerDeletesRecordThenFiles(t *testing.T) {
	ctx := context.Background()
	g := newGit(t)
	r := &store.Repository{ID: 7, OwnerName: "bob", Name: "Tool"}
	path, err := g.RepoPath(r.OwnerName, r.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}

	refusing := &fakeStore{delErr: store.ErrNotFound}
	if err := (Purger{Store: refusing, Git: g}).Purge(ctx, r); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("purge with the record refused: %v, want store.ErrNotFound", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("files removed although the record stayed: %v", err)
	}

	st := &fakeStore{}
	if err := (Purger{Store: st, Git: g}).Purge(ctx, r); err != nil {
		t.Fatal(err)
	}
	if len(st.deleted) != 1 || st.deleted[0] != 7 {
		t.Fatalf("deleted records %v, want [7]", st.deleted)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("files remain after purge: %v", err)
	}
	// Nothing on disk (an interrupted create) is not an error.
	if err := (Purger{Store: st, Git: g}).Purge(ctx, r); err != nil {
		t.Fatalf("purge without files: %v", err)
	}
}

// TestAddCollaboratorRules: an unknown user, an organization and the
// owner are refused as invalid arguments before anything is written.
func TestAddCollaboratorRules(t *testing.T) {
	ctx := context.Background()
	owner := &store.User{ID: 1, Name: "alice", Type: store.UserTypeIndividual, Visibility: store.VisibilityPublic}
	org := &store.User{ID: 2, Name: "team", Type: store.UserTypeOrganization, Visibility: store.VisibilityPublic}
	bob := &store.User{ID: 3, Name: "bob", Type: store.UserTypeIndividual, Visibility: store.VisibilityPublic}
	st := &fakeStore{users: map[string]*store.User{"alice": owner, "team": org, "bob": bob}}
	svc := NewService(st, newGit(t), nil)
	r := &access.Repo{Repository: &store.Repository{ID: 9, OwnerID: owner.ID, Name: "tool"}, Owner: owner, Mode: store.AccessOwner}
	caller := &auth.Principal{User: owner}

	for _, tc := range []struct{ name, perm, msg string }{
		{"nobody", "", "user does not exist [name: nobody]"},
		{"team", "", "user does not exist [name: team]"},
		{"alice", "", "the owner cannot be a collaborator of their own repository"},
		{"bob", "owner", `[Permission]: invalid permission "owner" (read, write, admin)`},
	} {
		err := svc.AddCollaborator(ctx, r, tc.name, tc.perm, caller)
		if st, _ := status.FromError(rpcerr.Status(err)); st.Code() != codes.InvalidArgument || st.Message() != tc.msg {
			t.Errorf("add %q (%q): %v, want InvalidArgument %q", tc.name, tc.perm, err, tc.msg)
		}
	}
	if st.setCall != 0 {
		t.Fatalf("a refused collaborator was written (%d calls)", st.setCall)
	}
	if err := svc.AddCollaborator(ctx, r, "bob", "read", caller); err != nil || st.setCall != 1 {
		t.Fatalf("add bob: %v, %d writes", err, st.setCall)
	}
}

// TestEditChecksBeforeWriting: an invalid change is refused before the
// record is touched (the fake has no UpdateRepository: a write panics).
// Field forms and sizes are declared on the request and checked before the
// use case runs (services/validate); the rules here need the repository.
func TestEditChecksBeforeWriting(t *testing.T) {
	ctx := context.Background()
	svc := NewService(&fakeStore{}, newGit(t), nil)
	owner := &store.User{ID: 1, Name: "alice"}
	r := &access.Repo{Repository: &store.Repository{ID: 9, OwnerID: 1, Name: "tool", IsEmpty: true, IsMirror: true}, Owner: owner, Mode: store.AccessOwner}
	bad, branch, interval := "octopus", "a..b", "1m"
	for _, e := range []Edit{
		{DefaultMergeStyle: &bad},
		{DefaultBranch: &branch},
		{MirrorInterval: &interval},
	} {
		if _, err := svc.Edit(ctx, r, e); status.Code(rpcerr.Status(err)) != codes.InvalidArgument {
			t.Errorf("edit %+v: %v, want InvalidArgument", e, err)
		}
	}
}
