package releases_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/access"
	"forge/services/access/accesstest"
	"forge/services/area"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/releases"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/store/storetest"
	"forge/services/users"
)

const root = "http://forge.test/"

type fixture struct {
	t       *testing.T
	store   *store.Store
	git     *git.Store
	srv     releasesv1.ReleaseServiceClient
	repo    *store.Repository
	path    string
	head    string // commit of main
	owner   context.Context
	writer  context.Context
	reader  context.Context
	anon    context.Context
	ownerID int64
}

// failingStore makes CreateRelease and UpdateRelease fail after the git
// work is done.
type failingStore struct {
	*store.Store
	fail bool
}

func (f *failingStore) CreateRelease(ctx context.Context, r *store.Release) error {
	if f.fail {
		return errors.New("boom")
	}
	return f.Store.CreateRelease(ctx, r)
}

func (f *failingStore) UpdateRelease(ctx context.Context, repoID, id int64, change func(*store.Release) error) (*store.Release, error) {
	if f.fail {
		return nil, errors.Join(change(&store.Release{TagName: "from-failed-edit", Target: "main"}), errors.New("boom"))
	}
	return f.Store.UpdateRelease(ctx, repoID, id, change)
}

func newFixture(t *testing.T, s *store.Store, fs *failingStore) *fixture {
	t.Helper()
	ctx := context.Background()
	g, err := git.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	user := func(name string) (*store.User, context.Context) {
		u := &store.User{Name: name, Email: name + "@x.org", IsActive: true}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		return u, auth.NewContext(ctx, &auth.Principal{User: u})
	}
	owner, ownerCtx := user("owner")
	w, writerCtx := user("writer")
	rd, readerCtx := user("reader")
	user("stranger")
	repo := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: "proj", DefaultBranch: "main", HasReleases: true}
	if err := s.CreateRepository(ctx, repo, owner.ID); err != nil {
		t.Fatal(err)
	}
	s.SetCollaborator(ctx, repo.ID, w.ID, store.AccessWrite)
	s.SetCollaborator(ctx, repo.ID, rd.ID, store.AccessRead)
	path, _ := g.RepoPath(owner.Name, repo.Name)
	if err := g.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	sig := git.Signature{Name: "T", Email: "t@x.org", When: time.Unix(1700000000, 0)}
	head, err := g.InitialCommit(ctx, path, "main", map[string][]byte{"README.md": []byte("hi\n")}, sig, "init")
	if err != nil {
		t.Fatal(err)
	}
	var st releases.Store = s
	if fs != nil {
		fs.Store = s
		st = fs
	}
	pols, err := area.Policies([]area.Area{releases.Area})
	if err != nil {
		t.Fatal(err)
	}
	ch := accesstest.Channel(access.NewChecker(s), pols)
	releasesv1.RegisterReleaseServiceServer(ch, releases.NewServer(st, g, users.Renderer{RootURL: root, Domain: "forge.test"}, root,
		paging.Limits{Default: 30, Max: 50}))
	srv := releasesv1.NewReleaseServiceClient(ch)
	return &fixture{t: t, store: s, git: g, srv: srv, repo: repo, path: path, head: head,
		owner: ownerCtx, writer: writerCtx, reader: readerCtx, anon: ctx, ownerID: owner.ID}
}

// code is the gRPC code a caller gets: handlers return domain errors, which
// the interceptor chain translates (rpcerr.Status).
func code(err error) codes.Code { return status.Code(rpcerr.Status(err)) }

func (f *fixture) create(ctx context.Context, req *releasesv1.CreateReleaseRequest) (*releasesv1.Release, error) {
	req.Owner, req.Repo = "owner", "proj"
	resp, err := f.srv.CreateRelease(ctx, req)
	return resp.GetRelease(), err
}

func (f *fixture) list(ctx context.Context, req *releasesv1.ListReleasesRequest) []string {
	f.t.Helper()
	req.Owner, req.Repo = "owner", "proj"
	resp, err := f.srv.ListReleases(ctx, req)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, r := range resp.GetReleases() {
		out = append(out, r.GetTagName())
	}
	return out
}

func (f *fixture) tagSHA(name string) string {
	tag, err := f.git.GetTag(context.Background(), f.path, name)
	if errors.Is(err, git.ErrNotFound) {
		return ""
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return tag.CommitSHA
}

func TestCreateRelease(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, nil)
		rel, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v1.0", Name: "One", Body: "notes"})
		if err != nil {
			t.Fatal(err)
		}
		if rel.GetTargetCommitish() != "main" || rel.GetName() != "One" || rel.GetAuthor().GetLogin() != "writer" {
			t.Fatalf("release: %+v", rel)
		}
		// The author is rendered as for an anonymous viewer.
		if rel.GetAuthor().GetEmail() != "writer@noreply.forge.test" {
			t.Fatalf("author email %q", rel.GetAuthor().GetEmail())
		}
		if want := root + "owner/proj/releases/tag/v1.0"; rel.GetHtmlUrl() != want {
			t.Fatalf("html_url %q", rel.GetHtmlUrl())
		}
		if want := root + "api/v1/repos/owner/proj/releases/" + itoa(rel.GetId()) + "/assets"; rel.GetUploadUrl() != want {
			t.Fatalf("upload_url %q", rel.GetUploadUrl())
		}
		if rel.GetAssets() == nil || len(rel.GetAssets()) != 0 {
			t.Fatalf("assets %v, want empty non-nil", rel.GetAssets())
		}
		// A new tag was created at the default branch.
		if got := f.tagSHA("v1.0"); got != f.head {
			t.Fatalf("tag v1.0 at %q, want %s", got, f.head)
		}

		// A second release for the tag: 409 (Aborted).
		if _, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v1.0"}); code(err) != codes.Aborted {
			t.Fatalf("duplicate: %v", err)
		}
		// An existing plain tag is reused.
		if _, err := f.git.CreateTag(context.Background(), f.path, "pre-existing", "main", "", git.Signature{}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "pre-existing", TargetCommitish: "nonexistent"}); err != nil {
			t.Fatalf("release for existing tag: %v", err)
		}
		// Validation and rules.
		for _, c := range []struct {
			ctx  context.Context
			req  *releasesv1.CreateReleaseRequest
			want codes.Code
		}{
			{f.writer, &releasesv1.CreateReleaseRequest{}, codes.InvalidArgument},
			{f.writer, &releasesv1.CreateReleaseRequest{TagName: "bad..name"}, codes.InvalidArgument},
			{f.writer, &releasesv1.CreateReleaseRequest{TagName: "v2", TargetCommitish: "no-such-branch"}, codes.NotFound},
			{f.writer, &releasesv1.CreateReleaseRequest{TagName: "v2", TargetCommitish: "no-such-branch", Draft: true}, codes.NotFound},
			{f.reader, &releasesv1.CreateReleaseRequest{TagName: "v2"}, codes.PermissionDenied},
		} {
			if _, err := f.create(c.ctx, c.req); code(err) != c.want {
				t.Errorf("%+v: %v, want %v", c.req, err, c.want)
			}
		}
		if f.tagSHA("v2") != "" {
			t.Fatal("failed create left tag v2")
		}
	})
}

func TestCreateReleaseEmptyRepo(t *testing.T) {
	f := newFixture(t, storetest.Open(t, "sqlite3"), nil)
	ctx := context.Background()
	empty := &store.Repository{OwnerID: f.ownerID, OwnerName: "owner", Name: "empty", DefaultBranch: "main", HasReleases: true, IsEmpty: true}
	if err := f.store.CreateRepository(ctx, empty, 0); err != nil {
		t.Fatal(err)
	}
	path, _ := f.git.RepoPath("owner", "empty")
	if err := f.git.Init(ctx, path, "main"); err != nil {
		t.Fatal(err)
	}
	_, err := f.srv.CreateRelease(f.owner, &releasesv1.CreateReleaseRequest{Owner: "owner", Repo: "empty", TagName: "v1"})
	if code(err) != codes.InvalidArgument || status.Convert(err).Message() != "repo is empty" {
		t.Fatalf("empty repo: %v", err)
	}
}

func TestCreateReleaseRollsBackTag(t *testing.T) {
	fs := &failingStore{}
	f := newFixture(t, storetest.Open(t, "sqlite3"), fs)
	fs.fail = true
	if _, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v1"}); code(err) != codes.Internal {
		t.Fatalf("create with failing store: %v", err)
	}
	if f.tagSHA("v1") != "" {
		t.Fatal("tag left behind by a failed create")
	}
	// Nor is a tag made by a failed edit kept.
	if _, err := f.srv.EditRelease(f.writer, &releasesv1.EditReleaseRequest{Owner: "owner", Repo: "proj", Id: 1}); code(err) != codes.Internal {
		t.Fatalf("edit with failing store: %v", err)
	}
	if f.tagSHA("from-failed-edit") != "" {
		t.Fatal("tag left behind by a failed edit")
	}
	// An existing tag is never removed.
	fs.fail = false
	f.git.CreateTag(context.Background(), f.path, "kept", "main", "", git.Signature{})
	fs.fail = true
	f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "kept"})
	if f.tagSHA("kept") == "" {
		t.Fatal("pre-existing tag removed by a failed create")
	}
}

func TestDraftsAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, nil)
		yes, no := true, false
		stable, _ := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v1"})
		time.Sleep(1100 * time.Millisecond) // creation times have second precision
		f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v2-rc", Prerelease: true})
		draft, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v3", Draft: true})
		if err != nil {
			t.Fatal(err)
		}
		if f.tagSHA("v3") != "" {
			t.Fatal("a draft created its tag")
		}
		eq := func(what string, got []string, want ...string) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: %v, want %v", what, got, want)
				}
			}
		}
		eq("writer", f.list(f.writer, &releasesv1.ListReleasesRequest{}), "v3", "v2-rc", "v1")
		eq("reader", f.list(f.reader, &releasesv1.ListReleasesRequest{}), "v2-rc", "v1")
		eq("anonymous", f.list(f.anon, &releasesv1.ListReleasesRequest{}), "v2-rc", "v1")
		eq("reader drafts", f.list(f.reader, &releasesv1.ListReleasesRequest{Draft: &yes}))
		eq("writer drafts", f.list(f.writer, &releasesv1.ListReleasesRequest{Draft: &yes}), "v3")
		eq("pre-releases", f.list(f.writer, &releasesv1.ListReleasesRequest{PreRelease: &yes}), "v2-rc")
		eq("no pre-releases", f.list(f.writer, &releasesv1.ListReleasesRequest{PreRelease: &no}), "v3", "v1")
		eq("limit", f.list(f.writer, &releasesv1.ListReleasesRequest{Limit: 1, Page: 2}), "v2-rc")

		get := func(ctx context.Context, id int64) error {
			_, err := f.srv.GetRelease(ctx, &releasesv1.GetReleaseRequest{Owner: "owner", Repo: "proj", Id: id})
			return err
		}
		byTag := func(ctx context.Context, tag string) error {
			_, err := f.srv.GetReleaseByTag(ctx, &releasesv1.GetReleaseByTagRequest{Owner: "owner", Repo: "proj", Tag: tag})
			return err
		}
		if code(get(f.reader, draft.GetId())) != codes.NotFound || code(byTag(f.anon, "v3")) != codes.NotFound {
			t.Fatal("draft visible to a reader")
		}
		if get(f.writer, draft.GetId()) != nil || byTag(f.writer, "v3") != nil {
			t.Fatal("draft invisible to a writer")
		}
		if code(get(f.reader, 9999)) != codes.NotFound || code(byTag(f.reader, "nope")) != codes.NotFound {
			t.Fatal("missing release not NotFound")
		}

		latest, err := f.srv.GetLatestRelease(f.anon, &releasesv1.GetLatestReleaseRequest{Owner: "owner", Repo: "proj"})
		if err != nil || latest.GetRelease().GetId() != stable.GetId() {
			t.Fatalf("latest: %v %v", latest, err)
		}

		// Publishing the draft creates its tag and makes it the newest.
		edited, err := f.srv.EditRelease(f.writer, &releasesv1.EditReleaseRequest{Owner: "owner", Repo: "proj", Id: draft.GetId(), Draft: &no, Name: "Three"})
		if err != nil {
			t.Fatal(err)
		}
		if edited.GetRelease().GetDraft() || edited.GetRelease().GetName() != "Three" || f.tagSHA("v3") != f.head {
			t.Fatalf("published: %+v, tag %q", edited.GetRelease(), f.tagSHA("v3"))
		}
		latest, _ = f.srv.GetLatestRelease(f.anon, &releasesv1.GetLatestReleaseRequest{Owner: "owner", Repo: "proj"})
		if latest.GetRelease().GetId() != draft.GetId() {
			t.Fatalf("latest after publishing: %v", latest.GetRelease().GetTagName())
		}
	})
}

func TestEditAndDelete(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := newFixture(t, s, nil)
		a, _ := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "a", Name: "A", Body: "body"})
		b, _ := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "b"})
		edit := func(ctx context.Context, req *releasesv1.EditReleaseRequest) (*releasesv1.Release, error) {
			req.Owner, req.Repo = "owner", "proj"
			resp, err := f.srv.EditRelease(ctx, req)
			return resp.GetRelease(), err
		}
		// Empty strings leave fields unchanged.
		got, err := edit(f.writer, &releasesv1.EditReleaseRequest{Id: a.GetId(), Body: "new"})
		if err != nil || got.GetName() != "A" || got.GetBody() != "new" || got.GetTagName() != "a" {
			t.Fatalf("edit: %+v %v", got, err)
		}
		// Moving onto another release's tag: 409.
		if _, err := edit(f.writer, &releasesv1.EditReleaseRequest{Id: a.GetId(), TagName: "b"}); code(err) != codes.Aborted {
			t.Fatalf("rename onto b: %v", err)
		}
		// A new tag name creates that tag.
		if got, err := edit(f.writer, &releasesv1.EditReleaseRequest{Id: a.GetId(), TagName: "a2"}); err != nil || got.GetTagName() != "a2" || f.tagSHA("a2") == "" {
			t.Fatalf("rename to a2: %+v %v", got, err)
		}
		if _, err := edit(f.reader, &releasesv1.EditReleaseRequest{Id: a.GetId(), Name: "x"}); code(err) != codes.PermissionDenied {
			t.Fatalf("reader edit: %v", err)
		}
		if _, err := edit(f.writer, &releasesv1.EditReleaseRequest{Id: 9999, Name: "x"}); code(err) != codes.NotFound {
			t.Fatalf("edit missing: %v", err)
		}

		del := func(ctx context.Context, id int64) error {
			_, err := f.srv.DeleteRelease(ctx, &releasesv1.DeleteReleaseRequest{Owner: "owner", Repo: "proj", Id: id})
			return err
		}
		if code(del(f.reader, b.GetId())) != codes.PermissionDenied {
			t.Fatal("reader deleted a release")
		}
		if err := del(f.writer, b.GetId()); err != nil {
			t.Fatal(err)
		}
		if code(del(f.writer, b.GetId())) != codes.NotFound {
			t.Fatal("second delete not NotFound")
		}
		if f.tagSHA("b") == "" {
			t.Fatal("deleting the release removed its tag")
		}
		// The kept tag can get a release again.
		if _, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "b"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.srv.DeleteReleaseByTag(f.writer, &releasesv1.DeleteReleaseByTagRequest{Owner: "owner", Repo: "proj", Tag: "b"}); err != nil {
			t.Fatal(err)
		}
		if f.tagSHA("b") == "" {
			t.Fatal("deleting the release by tag removed its tag")
		}
	})
}

func TestTags(t *testing.T) {
	f := newFixture(t, storetest.Open(t, "sqlite3"), nil)
	ctx := context.Background()
	tagger := git.Signature{Name: "Tagger", Email: "tagger@x.org", When: time.Unix(1700000100, 0)}
	if _, err := f.git.CreateTag(ctx, f.path, "annotated", "main", "  Tag message  \n", tagger); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"l1", "l2"} {
		if _, err := f.git.CreateTag(ctx, f.path, n, "main", "", git.Signature{}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := f.srv.ListTags(f.anon, &releasesv1.ListTagsRequest{Owner: "owner", Repo: "proj", Limit: 2})
	if err != nil || resp.GetTotalCount() != 3 || len(resp.GetTags()) != 2 {
		t.Fatalf("list: %v %v", resp, err)
	}
	if resp.GetTags()[0].GetName() != "annotated" { // newest tagger date first
		t.Fatalf("first tag %q", resp.GetTags()[0].GetName())
	}
	ann := resp.GetTags()[0]
	if ann.GetMessage() != "Tag message" || ann.GetCommit().GetSha() != f.head || ann.GetId() == f.head ||
		ann.GetCommit().GetCreated().AsTime().Unix() != 1700000100 ||
		ann.GetZipballUrl() != root+"owner/proj/archive/annotated.zip" {
		t.Fatalf("annotated tag: %+v", ann)
	}
	page2, _ := f.srv.ListTags(f.anon, &releasesv1.ListTagsRequest{Owner: "owner", Repo: "proj", Limit: 2, Page: 2})
	if len(page2.GetTags()) != 1 {
		t.Fatalf("page 2: %v", page2.GetTags())
	}
	one, err := f.srv.GetTag(f.anon, &releasesv1.GetTagRequest{Owner: "owner", Repo: "proj", Tag: "l1"})
	if err != nil || one.GetTag().GetId() != f.head || one.GetTag().GetMessage() != "init" {
		t.Fatalf("get l1: %v %v", one, err)
	}
	if _, err := f.srv.GetTag(f.anon, &releasesv1.GetTagRequest{Owner: "owner", Repo: "proj", Tag: "nope"}); code(err) != codes.NotFound {
		t.Fatalf("missing tag: %v", err)
	}

	del := func(c context.Context, tag string) error {
		_, err := f.srv.DeleteTag(c, &releasesv1.DeleteTagRequest{Owner: "owner", Repo: "proj", Tag: tag})
		return err
	}
	f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "l2"})
	if code(del(f.writer, "l2")) != codes.Aborted {
		t.Fatal("deleted a tag with a release")
	}
	if code(del(f.reader, "l1")) != codes.PermissionDenied {
		t.Fatal("reader deleted a tag")
	}
	if err := del(f.writer, "l1"); err != nil {
		t.Fatal(err)
	}
	if code(del(f.writer, "l1")) != codes.NotFound || code(del(f.writer, "bad..name")) != codes.NotFound {
		t.Fatal("deleting a missing tag not NotFound")
	}
}

// With the releases unit off, only repository administrators reach
// releases; tags stay readable.
func TestReleasesUnitDisabled(t *testing.T) {
	f := newFixture(t, storetest.Open(t, "sqlite3"), nil)
	if _, err := f.store.UpdateRepository(context.Background(), f.repo.ID, func(r *store.Repository) error { r.HasReleases = false; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.ListReleases(f.reader, &releasesv1.ListReleasesRequest{Owner: "owner", Repo: "proj"}); code(err) != codes.PermissionDenied {
		t.Fatalf("reader: %v", err)
	}
	if _, err := f.create(f.writer, &releasesv1.CreateReleaseRequest{TagName: "v1"}); code(err) != codes.PermissionDenied {
		t.Fatalf("writer: %v", err)
	}
	if _, err := f.create(f.owner, &releasesv1.CreateReleaseRequest{TagName: "v1"}); err != nil {
		t.Fatalf("owner: %v", err)
	}
	if _, err := f.srv.ListTags(f.reader, &releasesv1.ListTagsRequest{Owner: "owner", Repo: "proj"}); err != nil {
		t.Fatalf("tags: %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
