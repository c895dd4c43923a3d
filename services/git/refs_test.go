package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestBranches(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")

	if empty, err := s.IsEmpty(ctx, path); err != nil || !empty {
		t.Fatalf("IsEmpty(new) = %v, %v", empty, err)
	}
	if bs, err := s.ListBranches(ctx, path); err != nil || len(bs) != 0 {
		t.Fatalf("ListBranches(empty) = %v, %v", bs, err)
	}
	if _, err := s.CreateBranch(ctx, path, "x", "main"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("CreateBranch in empty repo: %v", err)
	}

	c1 := commitFiles(t, s, path, "main", "one\n\nbody", create("a", "a"))
	if empty, _ := s.IsEmpty(ctx, path); empty {
		t.Fatal("IsEmpty after a commit")
	}
	// A newer commit on "newer" so the list is ordered by commit time.
	later := testAuthor
	later.When = later.When.Add(time.Hour)
	c2, err := s.ChangeFiles(ctx, path, ChangeFilesOptions{NewBranch: "newer", Files: []FileChange{create("b", "b")}, Author: later, Message: "two"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTag(ctx, path, "v1", "main", "", Signature{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, from string
		wantSHA    string
		wantErr    error
	}{
		{"from-branch", "newer", c2, nil},
		{"from-tag", "v1", c1, nil},
		{"from-sha", c2, c2, nil},
		{"from-short-sha", c1[:6], c1, nil},
		{"feature/nested", "main", c1, nil},
		{"from-missing", "nope", "", ErrNotFound},
		{"main", "main", "", ErrAlreadyExists},
		{"v1", "main", "", ErrAlreadyExists},      // a tag has that name
		{"main/sub", "main", "", ErrConflict},     // refs/heads/main is a file
		{"feature", "main", "", ErrConflict},      // refs/heads/feature/ is a dir
		{"bad..name", "main", "", ErrInvalid},     // invalid ref name
		{"-leading", "main", "", ErrInvalid},      // option-like
		{"with space", "main", "", ErrInvalid},    // space
		{"trailing.lock", "main", "", ErrInvalid}, // .lock
	}
	for _, tc := range tests {
		br, err := s.CreateBranch(ctx, path, tc.name, tc.from)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("CreateBranch(%q, %q): err %v, want %v", tc.name, tc.from, err, tc.wantErr)
			}
			continue
		}
		if err != nil || br.Name != tc.name || br.Commit.SHA != tc.wantSHA {
			t.Errorf("CreateBranch(%q, %q) = %+v, %v", tc.name, tc.from, br, err)
		}
	}

	list, err := s.ListBranches(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range list {
		got = append(got, b.Name+"@"+b.Commit.SHA[:7])
	}
	want := []string{"from-branch@" + c2[:7], "from-sha@" + c2[:7], "newer@" + c2[:7],
		"feature/nested@" + c1[:7], "from-short-sha@" + c1[:7], "from-tag@" + c1[:7], "main@" + c1[:7]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ListBranches\n got %v\nwant %v", got, want)
	}
	main := list[len(list)-1]
	if main.Commit.Message != "one\n\nbody\n" || len(main.Commit.Parents) != 0 || !main.Commit.Author.When.Equal(testAuthor.When) ||
		main.Commit.Author.Email != testAuthor.Email || main.Commit.Committer.Name != testAuthor.Name || !isObjectID(main.Commit.Tree) {
		t.Fatalf("main commit %+v", main.Commit)
	}
	if list[0].Commit.Parents[0] != c1 {
		t.Fatalf("newer parents %v", list[0].Commit.Parents)
	}

	// BranchesByName agrees with ListBranches and skips missing/invalid names.
	byName, err := s.BranchesByName(ctx, path, []string{"newer", "nope", "main", "../x", "feature/nested"})
	if err != nil {
		t.Fatal(err)
	}
	if len(byName) != 3 || byName[0].Name != "newer" || byName[1].Name != "main" || byName[2].Name != "feature/nested" {
		t.Fatalf("BranchesByName = %+v", byName)
	}
	for _, b := range byName {
		for _, l := range list {
			if l.Name == b.Name && fmt.Sprintf("%+v", l) != fmt.Sprintf("%+v", b) {
				t.Errorf("BranchesByName %+v\nListBranches %+v", b, l)
			}
		}
	}
	names, err := s.BranchNames(ctx, path)
	if err != nil || len(names) != len(list) || names[0] != "feature/nested" {
		t.Fatalf("BranchNames = %v, %v", names, err)
	}
	if _, err := s.GetBranch(ctx, path, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetBranch(nope): %v", err)
	}

	// Default branch.
	if d, err := s.DefaultBranch(ctx, path); err != nil || d != "main" {
		t.Fatalf("DefaultBranch = %q, %v", d, err)
	}
	if err := s.SetDefaultBranch(ctx, path, "newer"); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.DefaultBranch(ctx, path); d != "newer" {
		t.Fatalf("DefaultBranch after set = %q", d)
	}
	if sha, _ := s.ResolveRef(ctx, path, ""); sha != c2 {
		t.Fatalf("ResolveRef(\"\") = %s", sha)
	}
	if err := s.SetDefaultBranch(ctx, path, "a..b"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("SetDefaultBranch(bad): %v", err)
	}

	// Delete.
	if err := s.DeleteBranch(ctx, path, "from-tag"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"from-tag", "nope", "a..b"} {
		if err := s.DeleteBranch(ctx, path, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("DeleteBranch(%q): %v", name, err)
		}
	}
	if _, err := s.GetBranch(ctx, path, "from-tag"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted branch still there: %v", err)
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	c1 := commitFiles(t, s, path, "main", "one", create("a", "a"))
	c2 := commitFiles(t, s, path, "main", "two", create("b", "b"))
	// A branch and a tag both named "same": the branch wins (as in Gitea).
	if _, err := s.CreateBranch(ctx, path, "same", c1); err != nil {
		t.Fatal(err)
	}
	if err := s.casRef(ctx, path, "refs/tags/same", c2, ""); err != nil {
		t.Fatal(err)
	}
	tag, err := s.CreateTag(ctx, path, "annotated", c1, "msg", testAuthor)
	if err != nil {
		t.Fatal(err)
	}
	// A branch whose name looks like a sha prefix beats the sha.
	if _, err := s.CreateBranch(ctx, path, c1[:7], c2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref  string
		want Revision
		err  error
	}{
		{"main", Revision{c2, RefBranch, "main"}, nil},
		{"", Revision{c2, RefBranch, "main"}, nil},
		{"HEAD", Revision{c2, RefBranch, "main"}, nil},
		{"refs/heads/main", Revision{c2, RefBranch, "main"}, nil},
		{"same", Revision{c1, RefBranch, "same"}, nil},
		{"refs/tags/same", Revision{c2, RefTag, "same"}, nil},
		{"annotated", Revision{c1, RefTag, "annotated"}, nil},
		{c1, Revision{c1, RefCommit, c1}, nil},
		{strings.ToUpper(c1), Revision{c1, RefCommit, strings.ToUpper(c1)}, nil},
		{c2[:4], Revision{c2, RefCommit, c2[:4]}, nil},
		{c1[:7], Revision{c2, RefBranch, c1[:7]}, nil},
		{tag.TagSHA, Revision{c1, RefCommit, tag.TagSHA}, nil},
		{"nope", Revision{}, ErrNotFound},
		{"main~1", Revision{}, ErrNotFound},
		{"main^{tree}", Revision{}, ErrNotFound},
		{"main:a", Revision{}, ErrNotFound},
		{"--all", Revision{}, ErrNotFound},
		{"abc", Revision{}, ErrNotFound},
		{strings.Repeat("0", 40), Revision{}, ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.Resolve(ctx, path, tc.ref)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Resolve(%q): err %v, want %v", tc.ref, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v", tc.ref, got, err, tc.want)
		}
	}
}

func TestTags(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	path := newRepo(t, s, "o", "r")
	c1 := commitFiles(t, s, path, "main", "one", create("a", "a"))
	c2 := commitFiles(t, s, path, "main", "two\n\nbody", create("b", "b"))

	light, err := s.CreateTag(ctx, path, "light", c2, "", Signature{})
	if err != nil {
		t.Fatal(err)
	}
	if light.TagSHA != "" || light.CommitSHA != c2 || light.ID() != c2 || light.Message != "two\n\nbody\n" ||
		light.Tagger.Name != testAuthor.Name || !light.CommitTime.Equal(testAuthor.When) {
		t.Fatalf("lightweight tag %+v", light)
	}
	tagger := Signature{Name: "Tagger", Email: "tagger@forge.invalid", When: testAuthor.When.Add(2 * time.Hour)}
	ann, err := s.CreateTag(ctx, path, "v1.0/rc", c1, "Release 1.0", tagger)
	if err != nil {
		t.Fatal(err)
	}
	if !isObjectID(ann.TagSHA) || ann.TagSHA == c1 || ann.CommitSHA != c1 || ann.ID() != ann.TagSHA ||
		ann.Message != "Release 1.0\n" || ann.Tagger.Name != "Tagger" || !ann.Tagger.When.Equal(tagger.When) {
		t.Fatalf("annotated tag %+v", ann)
	}
	if _, off := ann.Tagger.When.Zone(); off != 7200 {
		t.Fatalf("tagger zone %d", off)
	}

	errTests := []struct {
		name, target, msg string
		tagger            Signature
		want              error
	}{
		{"light", c1, "", Signature{}, ErrAlreadyExists},
		{"v1.0", c1, "", Signature{}, ErrConflict}, // refs/tags/v1.0/ is a directory
		{"new", "nope", "", Signature{}, ErrNotFound},
		{"bad name", c1, "", Signature{}, ErrInvalid},
		{"new", c1, "needs a tagger", Signature{}, ErrInvalid},
		{"new", c1, "bad tagger", Signature{Name: "a<b", Email: "x@y"}, ErrInvalid},
	}
	for _, tc := range errTests {
		if _, err := s.CreateTag(ctx, path, tc.name, tc.target, tc.msg, tc.tagger); !errors.Is(err, tc.want) {
			t.Errorf("CreateTag(%q, %q, %q): err %v, want %v", tc.name, tc.target, tc.msg, err, tc.want)
		}
	}

	// Newest first: the annotated tag's tagger date is later.
	tags, err := s.ListTags(ctx, path)
	if err != nil || len(tags) != 2 || tags[0] != ann || tags[1] != light {
		t.Fatalf("ListTags = %+v, %v", tags, err)
	}
	if got, err := s.GetTag(ctx, path, "v1.0/rc"); err != nil || got != ann {
		t.Fatalf("GetTag = %+v, %v", got, err)
	}
	for _, name := range []string{"v1.0", "nope", "a..b"} {
		if _, err := s.GetTag(ctx, path, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetTag(%q): %v", name, err)
		}
	}
	if err := s.DeleteTag(ctx, path, "v1.0/rc"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTag(ctx, path, "v1.0/rc"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second DeleteTag: %v", err)
	}
	if tags, _ := s.ListTags(ctx, path); len(tags) != 1 {
		t.Fatalf("after delete: %+v", tags)
	}
}

func TestValidRefName(t *testing.T) {
	valid := []string{"main", "feature/x", "v1.0.0", "release-1_2", "a@b", "ünï", "x.y/z"}
	invalid := []string{"", "HEAD", "@", "-x", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", `a\b`,
		"a/", "/a", "a//b", ".a", "a/.b", "a.lock", "a/b.lock/c", "a.", "a@{1}", "a\x00", "a\tb", "a\x7f",
		strings.Repeat("x", 256)}
	for _, n := range valid {
		if !ValidRefName(n) {
			t.Errorf("ValidRefName(%q) = false", n)
		}
	}
	for _, n := range invalid {
		if ValidRefName(n) {
			t.Errorf("ValidRefName(%q) = true", n)
		}
	}
}
