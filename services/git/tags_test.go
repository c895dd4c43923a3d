package git

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var forEachRefTagFields = []string{
	"%(refname)", "%(objecttype)", "%(objectname)", "%(*objecttype)", "%(*objectname)",
	"%(contents)", "%(contents:signature)", "%(tagger)", "%(committer)", "%(*committer)",
}

// forEachRefTags is what git itself says the tags are, in ListTags's
// order: the oracle ListTags and GetTag are held to.
func forEachRefTags(ctx context.Context, s *Store, path string) ([]Tag, error) {
	out, err := s.output(ctx, path, "for-each-ref", "--format="+strings.Join(forEachRefTagFields, "%00")+"%00",
		"--sort=refname", "--sort=-creatordate", "refs/tags/")
	if err != nil {
		return nil, err
	}
	var tags []Tag
	for _, rec := range splitRecords(out, len(forEachRefTagFields)) {
		t := Tag{Name: strings.TrimPrefix(rec[0], "refs/tags/")}
		switch rec[1] {
		case "tag":
			t.TagSHA = rec[2]
			if rec[3] == "commit" {
				t.CommitSHA = rec[4]
				t.CommitTime = parseIdent(rec[9]).When
			}
			t.Message = strings.TrimSuffix(rec[5], rec[6])
			t.Tagger = parseIdent(rec[7])
		case "commit":
			t.CommitSHA = rec[2]
			t.Message = rec[5]
			t.Tagger = parseIdent(rec[8])
			t.CommitTime = t.Tagger.When
		}
		tags = append(tags, t)
	}
	return tags, nil
}

// ListTags (refs from files, objects through the pool) lists what
// for-each-ref lists, in its order: loose and packed, annotated, signed,
// lightweight, nested and non-commit tags, several of the same date.
func TestListTagsMatchesForEachRef(t *testing.T) {
	ctx := context.Background()
	s, path, first := poolFixture(t, 1)
	tree := gitCmd(t, path, "rev-parse", first+"^{tree}")
	gitCmd(t, path, "tag", "light", first)
	gitCmd(t, path, "tag", "-a", "-m", "annotated\n\nbody", "ann", first)
	gitCmd(t, path, "tag", "-a", "-m", "nested", "nested", "ann")
	gitCmd(t, path, "tag", "treetag", tree)
	body := "object " + first + "\ntype commit\ntag signed\ntagger T <t@x> 1700000000 +0100\n\nsigned message\n" +
		"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
	obj, err := gitCmdErr(t, path, strings.NewReader(body), "mktag")
	if err != nil {
		t.Fatal(err)
	}
	gitCmd(t, path, "update-ref", "refs/tags/signed", obj)
	for i := range 6 { // equal dates: by name
		body := fmt.Sprintf("object %s\ntype commit\ntag same%d\ntagger T <t@x> 1600000000 +0000\n\nsame\n", first, i)
		obj, err := gitCmdErr(t, path, strings.NewReader(body), "mktag")
		if err != nil {
			t.Fatal(err)
		}
		gitCmd(t, path, "update-ref", fmt.Sprintf("refs/tags/d/same%d", 5-i), obj)
	}
	gitCmd(t, path, "pack-refs", "--all", "--prune")
	gitCmd(t, path, "tag", "-a", "-m", "loose after packing", "z-loose", first)
	gitCmd(t, path, "tag", "-f", "light", tree) // loose shadows packed
	gitCmd(t, path, "tag", "-d", "nested")

	want, err := forEachRefTags(ctx, s, path)
	if err != nil || len(want) != 11 {
		t.Fatal(len(want), err)
	}
	got, err := s.ListTags(ctx, path)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ListTags: %v\n got %+v\nwant %+v", err, got, want)
	}
}
