package code

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	branchesv1 "forge/gen/forge/branches/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/store/storetest"
	"forge/services/users"
)

// fixture is a real store (SQLite) and git store with alice's empty
// public repository alice/proj, and a context in which alice calls.
type fixture struct {
	deps  Deps
	st    *store.Store
	alice *store.User
	repo  *store.Repository
	ctx   context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, "sqlite3")
	gs, err := git.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	alice := &store.User{Name: "alice", Email: "alice@example.org", IsActive: true}
	if err := st.CreateUser(ctx, alice); err != nil {
		t.Fatal(err)
	}
	rec := repos.NewRecord(alice, "proj", "", "main", false)
	if err := st.CreateRepository(ctx, rec, 0); err != nil {
		t.Fatal(err)
	}
	path, _ := gs.RepoPath("alice", "proj")
	if err := gs.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	root := "http://forge.test/"
	return &fixture{
		deps: Deps{
			Store: st, Git: gs, Sync: &repos.Syncer{Store: st, Git: gs},
			Render: Renderer{RootURL: root, Users: users.Renderer{RootURL: root, Domain: "forge.test"}},
			Limits: paging.Limits{Default: 30, Max: 50},
		},
		st: st, alice: alice, repo: rec,
		ctx: auth.NewContext(ctx, &auth.Principal{User: alice, Method: auth.MethodToken}),
	}
}

// call is f.ctx carrying alice/proj as the auth interceptor resolves it
// for each call in the real server (access.RepoFrom).
func (f *fixture) call(t *testing.T) context.Context {
	t.Helper()
	r, err := access.NewChecker(f.st).Resolve(f.ctx, "alice", "proj", auth.FromContext(f.ctx))
	if err != nil {
		t.Fatal(err)
	}
	return access.WithRepo(f.ctx, r)
}

func (f *fixture) create(t *testing.T, path, content, branch string) *contentsv1.FileResponse {
	t.Helper()
	resp, err := NewContentServer(f.deps).CreateFile(f.call(t), &contentsv1.CreateFileRequest{
		Owner: "alice", Repo: "proj", Filepath: path, Content: base64.StdEncoding.EncodeToString([]byte(content)), Branch: branch,
	})
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	return resp.GetFile()
}

func TestFileChangesAreRecorded(t *testing.T) {
	f := newFixture(t)
	first := f.create(t, "a.txt", "a", "")
	recs, total, err := f.st.ListBranches(f.ctx, f.repo.ID, 0, 10)
	if err != nil || total != 1 || recs[0].Name != "main" || recs[0].CommitID != first.GetCommit().GetSha() || recs[0].PusherID != f.alice.ID {
		t.Fatalf("records after the first commit: %+v %v", recs, err)
	}
	r, _ := f.st.RepositoryByID(f.ctx, f.repo.ID)
	if r.IsEmpty {
		t.Fatal("repository still marked empty")
	}
	second := f.create(t, "b.txt", "b", "main")
	recs, _, _ = f.st.ListBranches(f.ctx, f.repo.ID, 0, 10)
	if recs[0].CommitID != second.GetCommit().GetSha() || second.GetCommit().GetParents()[0].GetSha() != first.GetCommit().GetSha() {
		t.Fatalf("records after the second commit: %+v", recs)
	}
}

func TestContentsLargeBlobHasNoContent(t *testing.T) {
	f := newFixture(t)
	f.create(t, "small.txt", "1234", "")
	f.create(t, "large.txt", "12345", "")
	f.deps.MaxBlobSize = 4
	s := NewContentServer(f.deps)
	for name, want := range map[string]string{"small.txt": "MTIzNA==", "large.txt": ""} {
		resp, err := s.GetContents(f.call(t), &contentsv1.GetContentsRequest{Owner: "alice", Repo: "proj", Filepath: name})
		if err != nil {
			t.Fatal(err)
		}
		file := resp.GetFile()
		if file.Content == nil || file.GetContent() != want || file.GetEncoding() != "base64" {
			t.Fatalf("%s: %+v", name, file)
		}
	}
}

// rawStream collects what GetRawFile sends.
type rawStream struct {
	grpc.ServerStream
	ctx  context.Context
	msgs []*contentsv1.GetRawFileResponse
}

func (s *rawStream) Context() context.Context { return s.ctx }
func (s *rawStream) Send(m *contentsv1.GetRawFileResponse) error {
	s.msgs = append(s.msgs, m)
	return nil
}

func TestGetRawFile(t *testing.T) {
	f := newFixture(t)
	big := bytes.Repeat([]byte("x"), 3*rawChunk+10)
	f.create(t, "dir/big.txt", string(big), "")
	f.create(t, "dir/empty", "", "")
	s := NewContentServer(f.deps)
	get := func(path, ref string) (*rawStream, error) {
		st := &rawStream{ctx: f.call(t)}
		return st, s.GetRawFile(&contentsv1.GetRawFileRequest{Owner: "alice", Repo: "proj", Filepath: path, Ref: ref}, st)
	}
	st, err := get("dir/big.txt", "")
	if err != nil || len(st.msgs) != 4 {
		t.Fatalf("big file: %d messages, %v", len(st.msgs), err)
	}
	var got []byte
	for i, m := range st.msgs {
		if (i == 0) != (m.GetContentType() != "") {
			t.Fatalf("metadata in message %d: %+v", i, m)
		}
		got = append(got, m.GetData()...)
	}
	if first := st.msgs[0]; !bytes.Equal(got, big) || first.GetSize() != int64(len(big)) || first.GetName() != "big.txt" ||
		first.GetContentType() != "text/plain; charset=utf-8" {
		t.Fatalf("big file: %d bytes, first %q %d %q", len(got), first.GetContentType(), first.GetSize(), first.GetName())
	}
	// An empty file still sends its metadata.
	if st, err := get("dir/empty", ""); err != nil || len(st.msgs) != 1 || st.msgs[0].GetSize() != 0 {
		t.Fatalf("empty file: %+v %v", st.msgs, err)
	}
	for _, p := range []string{"dir", "nope", "main/nope"} {
		if _, err := get(p, ""); status.Code(rpcerr.Status(err)) != codes.NotFound {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

func TestSplitRef(t *testing.T) {
	f := newFixture(t)
	c := f.create(t, "a/b.txt", "x", "")
	f.create(t, "top.txt", "x", "")
	b := NewBranchServer(f.deps)
	for _, name := range []string{"a", "feature/x"} {
		if _, err := b.CreateBranch(f.call(t), &branchesv1.CreateBranchRequest{Owner: "alice", Repo: "proj", NewBranchName: name}); err != nil {
			t.Fatal(err)
		}
	}
	s := NewContentServer(f.deps)
	r, err := f.deps.resolve(f.call(t))
	if err != nil {
		t.Fatal(err)
	}
	sha := c.GetCommit().GetSha()
	for in, want := range map[string]string{
		"top.txt":              "main top.txt",
		"a/b.txt":              "refs/heads/a b.txt", // the branch "a" wins over the directory
		"feature/x/a/b.txt":    "refs/heads/feature/x a/b.txt",
		"main/top.txt":         "refs/heads/main top.txt",
		sha[:7] + "/a/b.txt":   sha + " a/b.txt",
		"nope/top.txt":         "main nope/top.txt",
		"0000000/top.txt":      "main 0000000/top.txt",
		"feature/nope/top.txt": "main feature/nope/top.txt",
	} {
		ref, p, err := s.splitRef(f.ctx, r, in)
		if err != nil || ref+" "+p != want {
			t.Fatalf("%s: %q %q %v, want %s", in, ref, p, err, want)
		}
	}
}

func TestRawContentType(t *testing.T) {
	for in, want := range map[string]string{
		"hello\n":                        "text/plain; charset=utf-8",
		"":                               "text/plain; charset=utf-8",
		"<html><script></script></html>": "text/plain; charset=utf-8",
		`<svg xmlns="http://www.w3.org/2000/svg"></svg>`: "text/plain; charset=utf-8",
		"\x89PNG\r\n\x1a\n\x00\x00":                      "image/png",
		"%PDF-1.4\n":                                     "application/pdf",
		"\x00\x01\x02\x03":                               "application/octet-stream",
		"\xfe\xff\x00h\x00i":                             "text/plain; charset=utf-16be",
	} {
		if got := rawContentType([]byte(in)); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

func TestSignatures(t *testing.T) {
	doer := &store.User{Name: "alice", Email: "Alice@example.org"}
	named := &store.User{Name: "bob", FullName: "Bob B", Email: "bob@example.org"}
	id := func(name, email string) *contentsv1.Identity { return &contentsv1.Identity{Name: name, Email: email} }
	sig := func(s git.Signature) string { return s.Name + " <" + s.Email + ">" }
	for _, c := range []struct {
		doer              *store.User
		author, committer *contentsv1.Identity
		want              string
	}{
		{doer, nil, nil, "alice <Alice@example.org> / alice <Alice@example.org>"},
		{named, nil, nil, "Bob B <bob@example.org> / Bob B <bob@example.org>"},
		{doer, id("Ann", "ann@x.org"), nil, "Ann <ann@x.org> / Ann <ann@x.org>"},
		{doer, nil, id("Carl", "carl@x.org"), "Carl <carl@x.org> / Carl <carl@x.org>"},
		{doer, id("Ann", "ann@x.org"), id("Carl", "carl@x.org"), "Ann <ann@x.org> / Carl <carl@x.org>"},
		{doer, id("Ann", ""), nil, "alice <Alice@example.org> / alice <Alice@example.org>"}, // no e-mail: ignored
		{doer, id("", "alice@EXAMPLE.org"), nil, "alice <Alice@example.org> / alice <Alice@example.org>"},
		{doer, id("Alias", "alice@example.org"), nil, "Alias <Alice@example.org> / Alias <Alice@example.org>"},
		{doer, id("", "dave@x.org"), nil, "dave <dave@x.org> / dave <dave@x.org>"},
	} {
		a, cm := signatures(c.doer, c.author, c.committer, nil)
		if got := sig(a) + " / " + sig(cm); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.author, c.committer, got, c.want)
		}
		if time.Since(a.When) > time.Minute || time.Since(cm.When) > time.Minute {
			t.Errorf("times not now: %v %v", a.When, cm.When)
		}
	}
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	a, c := signatures(doer, nil, nil, &contentsv1.CommitDates{Author: timestamppb.New(when), Committer: timestamppb.New(time.Time{})})
	if !a.When.Equal(when) || time.Since(c.When) > time.Minute {
		t.Errorf("dates: %v %v", a.When, c.When)
	}
}

func TestAffectedFiles(t *testing.T) {
	got := affectedFiles([]git.ChangedFile{
		{Filename: "a", Status: git.FileAdded}, {Filename: "b", Status: git.FileModified},
		{Filename: "c", Status: git.FileDeleted}, {Filename: "new", PreviousFilename: "old", Status: git.FileRenamed},
	})
	var out []string
	for _, f := range got {
		out = append(out, f.GetFilename()+":"+f.GetStatus())
	}
	if strings.Join(out, " ") != "a:added b:modified c:removed old:removed new:added" {
		t.Fatalf("%v", out)
	}
}

// emailStore counts the queries FindAccounts makes.
type emailStore struct {
	Store
	users   []*store.User
	queries int
}

func (s *emailStore) UsersByEmails(_ context.Context, emails []string) (map[string]*store.User, error) {
	s.queries++
	out := map[string]*store.User{}
	for _, u := range s.users {
		for _, e := range emails {
			if e == strings.ToLower(u.Email) {
				out[e] = u
			}
		}
	}
	return out, nil
}

func (s *emailStore) UserByName(_ context.Context, name string) (*store.User, error) {
	for _, u := range s.users {
		if strings.EqualFold(u.Name, name) {
			return u, nil
		}
	}
	return nil, store.ErrNotFound
}

func TestFindAccounts(t *testing.T) {
	alice := &store.User{ID: 1, Name: "alice", Email: "Alice@Example.org"}
	bob := &store.User{ID: 2, Name: "bob", Email: "bob@example.org"}
	org := &store.User{ID: 3, Name: "org", Type: store.UserTypeOrganization}
	s := &emailStore{users: []*store.User{alice, bob, org}}
	sig := func(e string) git.Signature { return git.Signature{Email: e} }
	commits := []*git.Commit{
		{Author: sig("alice@example.org"), Committer: sig("ALICE@example.org")},
		{Author: sig("bob@noreply.forge.test"), Committer: sig("nobody@example.org")},
		{Author: sig("org@noreply.forge.test"), Committer: sig("")},
	}
	who, err := FindAccounts(context.Background(), s, "forge.test", commits...)
	if err != nil || s.queries != 1 {
		t.Fatalf("%v, %d queries", err, s.queries)
	}
	if who.lookup("ALICE@EXAMPLE.ORG") != alice || who.lookup("bob@noreply.forge.test") != bob ||
		who.lookup("nobody@example.org") != nil || who.lookup("org@noreply.forge.test") != nil || who.lookup("") != nil {
		t.Fatalf("accounts: %v", who)
	}
}

func TestRenderCommit(t *testing.T) {
	v := Renderer{RootURL: "http://forge.test/", Users: users.Renderer{RootURL: "http://forge.test/", Domain: "forge.test"}}
	u := v.URLs("alice", "proj")
	zone := time.FixedZone("", 2*3600)
	c := &git.Commit{
		SHA: "c1", Tree: "t1", Parents: []string{"p1"}, Message: "msg\n",
		Author:    git.Signature{Name: "A", Email: "a@x.org", When: time.Date(2024, 1, 2, 3, 4, 5, 0, zone)},
		Committer: git.Signature{Name: "C", Email: "c@x.org", When: time.Date(2024, 1, 2, 4, 4, 5, 0, zone)},
		Files:     []git.ChangedFile{{Filename: "f", Status: git.FileAdded}},
		Stats:     &git.Stats{Total: 3, Additions: 2, Deletions: 1},
	}
	out := v.Commit(u, c, Accounts{"a@x.org": {ID: 7, Name: "ann"}}, CommitOptions{Stat: true, Verification: true, Files: true})
	if out.GetUrl() != "http://forge.test/api/v1/repos/alice/proj/git/commits/c1" || out.GetHtmlUrl() != "http://forge.test/alice/proj/commit/c1" ||
		out.GetCommit().GetAuthor().GetDate() != "2024-01-02T03:04:05+02:00" || out.GetCommit().GetTree().GetUrl() != "http://forge.test/api/v1/repos/alice/proj/git/trees/t1" ||
		out.GetAuthor().GetLogin() != "ann" || out.GetCommitter() != nil || out.GetStats().GetTotal() != 3 || len(out.GetFiles()) != 1 ||
		out.GetCreated().AsTime() != c.Committer.When.UTC() || out.GetParents()[0].GetCreated().AsTime() != (time.Time{}) {
		t.Fatalf("%v", out)
	}
	out = v.Commit(u, c, nil, CommitOptions{})
	if out.GetStats() != nil || out.GetFiles() != nil || out.GetCommit().GetVerification() != nil {
		t.Fatalf("without options: %v", out)
	}
	fc := v.FileCommit(u, c)
	if fc.GetAuthor().GetDate() != "2024-01-02T01:04:05Z" || fc.GetCreated().AsTime() != (time.Time{}) {
		t.Fatalf("file commit: %v", fc)
	}
	pc := v.PayloadCommit(u, c, Accounts{"c@x.org": {Name: "carl"}})
	if pc.GetAuthor().GetUsername() != "" || pc.GetCommitter().GetUsername() != "carl" || pc.GetTimestamp().AsTime() != c.Author.When.UTC() ||
		pc.GetUrl() != "http://forge.test/alice/proj/commit/c1" || pc.GetVerification().GetReason() != "gpg.error.not_signed_commit" {
		t.Fatalf("payload commit: %v", pc)
	}
}

func TestListBranchesRecordsMissingRecords(t *testing.T) {
	f := newFixture(t)
	c := f.create(t, "a.txt", "a", "")
	// A repository whose records were never written (older than them).
	if err := f.st.DB().Where("repo_id = ?", f.repo.ID).Delete(&store.Branch{}).Error; err != nil {
		t.Fatal(err)
	}
	resp, err := NewBranchServer(f.deps).ListBranches(f.call(t), &branchesv1.ListBranchesRequest{Owner: "alice", Repo: "proj"})
	if err != nil || resp.GetTotalCount() != 1 || len(resp.GetBranches().GetBranches()) != 1 ||
		resp.GetBranches().GetBranches()[0].GetCommit().GetId() != c.GetCommit().GetSha() {
		t.Fatalf("list: %v %v", resp, err)
	}
	if recs, total, _ := f.st.ListBranches(f.ctx, f.repo.ID, 0, 10); total != 1 || recs[0].Name != "main" {
		t.Fatalf("records not restored: %v", recs)
	}
}
