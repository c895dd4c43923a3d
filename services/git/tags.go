package git

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Tag is a git tag. For a lightweight tag TagSHA is "", and, as in Gitea,
// Message and Tagger are the target commit's message and committer.
type Tag struct {
	Name       string
	CommitSHA  string // the commit the tag points at (peeled); "" if not a commit
	TagSHA     string // the annotated tag object; "" for lightweight tags
	Message    string // tag message without any signature block
	Tagger     Signature
	CommitTime time.Time // committer time of the target commit
}

// ID is the sha Gitea reports as the tag id: the tag object for annotated
// tags, the commit for lightweight ones.
func (t Tag) ID() string {
	if t.TagSHA != "" {
		return t.TagSHA
	}
	return t.CommitSHA
}

// ListTags returns all tags, newest first (tagger date, or committer date
// for lightweight tags), then by name, as `git for-each-ref
// --sort=refname --sort=-creatordate refs/tags/` orders them. Names come
// from the ref files (refsfile.go), objects through the pooled reader and
// the object cache: no process.
func (s *Store) ListTags(ctx context.Context, path string) ([]Tag, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	names, shas, err := s.listRefs(path, "refs/tags/")
	if err != nil {
		return nil, err
	}
	objs, err := s.catFileBatch(ctx, path, shas)
	if err != nil {
		return nil, err
	}
	var found []batchObject
	for i, o := range objs {
		if o.Type == "" {
			continue // the object went missing: for-each-ref skips a broken ref too
		}
		o.Name = strings.TrimPrefix(names[i], "refs/tags/")
		found = append(found, o)
	}
	tags, err := s.tagsFromObjects(ctx, path, found)
	if err != nil {
		return nil, err
	}
	dates := make([]int64, len(tags))
	for i, t := range tags {
		dates[i] = creatorDate(t, found[i].Type)
	}
	sort.Stable(tagsByDate{tags, dates})
	return tags, nil
}

// creatorDate is for-each-ref's %(creatordate) in seconds: the tagger
// date of a tag object, the committer date of a commit, 0 otherwise.
func creatorDate(t Tag, objType string) int64 {
	switch objType {
	case "tag":
		if t.Tagger.When.IsZero() {
			return 0
		}
		return t.Tagger.When.Unix()
	case "commit":
		return t.CommitTime.Unix()
	}
	return 0
}

// tagsByDate orders tags newest first; listRefs gave them in name order,
// which a stable sort keeps among equal dates.
type tagsByDate struct {
	tags  []Tag
	dates []int64
}

func (b tagsByDate) Len() int           { return len(b.tags) }
func (b tagsByDate) Less(i, j int) bool { return b.dates[i] > b.dates[j] }
func (b tagsByDate) Swap(i, j int) {
	b.tags[i], b.tags[j] = b.tags[j], b.tags[i]
	b.dates[i], b.dates[j] = b.dates[j], b.dates[i]
}

// GetTag returns one tag or ErrNotFound. The ref is read from disk and
// the tag and commit objects through the pooled reader: no process.
func (s *Store) GetTag(ctx context.Context, path, name string) (Tag, error) {
	if err := s.checkRepo(path); err != nil {
		return Tag{}, err
	}
	if !ValidRefName(name) {
		return Tag{}, notFoundf("tag %q", name)
	}
	sha, err := s.readRef(path, "refs/tags/"+name)
	if err != nil {
		return Tag{}, err
	}
	if sha == "" {
		return Tag{}, notFoundf("tag %q", name)
	}
	objs, err := s.catFileBatch(ctx, path, []string{sha})
	if err != nil {
		return Tag{}, err
	}
	if objs[0].Type == "" {
		return Tag{}, notFoundf("tag %q", name)
	}
	objs[0].Name = name
	tags, err := s.tagsFromObjects(ctx, path, objs)
	if err != nil {
		return Tag{}, err
	}
	return tags[0], nil
}

// tagsFromObjects describes the tags whose refs point at objs (tag
// objects, commits, or anything else; Name set to the tag's name), as
// for-each-ref would. The target commits of annotated tags are read in
// one exchange, for their dates.
func (s *Store) tagsFromObjects(ctx context.Context, path string, objs []batchObject) ([]Tag, error) {
	tags := make([]Tag, len(objs))
	var targets []string
	var at []int
	for i, o := range objs {
		t := Tag{Name: o.Name}
		switch o.Type {
		case "tag":
			t.TagSHA = o.SHA
			header, msg, _ := bytes.Cut(o.Data, []byte("\n\n"))
			var target, targetType string
			for _, line := range strings.Split(string(header), "\n") {
				key, val, _ := strings.Cut(line, " ")
				switch key {
				case "object":
					target = val
				case "type":
					targetType = val
				case "tagger":
					t.Tagger = parseIdent(val)
				}
			}
			t.Message = string(msg[:signatureStart(msg)])
			if targetType == "commit" {
				t.CommitSHA = target
				targets = append(targets, target)
				at = append(at, i)
			}
		case "commit":
			c := parseRawCommit(o.SHA, o.Data)
			t.CommitSHA = o.SHA
			t.Message = c.Message
			t.Tagger = c.Committer
			t.CommitTime = c.Committer.When
		}
		tags[i] = t
	}
	if len(targets) == 0 {
		return tags, nil
	}
	cs, err := s.catFileBatch(ctx, path, targets)
	if err != nil {
		return nil, err
	}
	for j, c := range cs {
		if c.Type == "commit" {
			tags[at[j]].CommitTime = parseRawCommit(targets[j], c.Data).Committer.When
		}
	}
	return tags, nil
}

// signatureStart is where the signature block at the end of a tag message
// begins (len(msg) if there is none): the last line that starts one, as
// git finds it.
func signatureStart(msg []byte) int {
	start := len(msg)
	for i := 0; i < len(msg); {
		line := msg[i:]
		for _, p := range []string{"-----BEGIN PGP SIGNATURE-----", "-----BEGIN PGP MESSAGE-----",
			"-----BEGIN SSH SIGNATURE-----", "-----BEGIN SIGNED MESSAGE-----"} {
			if bytes.HasPrefix(line, []byte(p)) {
				start = i
			}
		}
		nl := bytes.IndexByte(line, '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
	}
	return start
}

// CreateTag creates refs/tags/<name> pointing at the commit target
// resolves to. With a non-empty message it writes an annotated tag object
// (tagger required); otherwise a lightweight tag. Errors: ErrInvalid (bad
// name or tagger), ErrNotFound (target), ErrAlreadyExists (tag exists),
// ErrConflict (name collides with an existing tag path).
func (s *Store) CreateTag(ctx context.Context, path, name, target, message string, tagger Signature) (Tag, error) {
	if err := s.checkRepo(path); err != nil {
		return Tag{}, err
	}
	if !ValidRefName(name) {
		return Tag{}, invalidf("tag name %q", name)
	}
	sha, err := s.ResolveRef(ctx, path, target)
	if err != nil {
		return Tag{}, err
	}
	obj := sha
	if message != "" {
		tagger, err := checkSignature(tagger, "tagger")
		if err != nil {
			return Tag{}, err
		}
		body := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger %s\n\n%s", sha, name, identLine(tagger), normalizeMessage(message))
		out, err := s.outputIn(ctx, path, strings.NewReader(body), nil, "mktag")
		if err != nil {
			return Tag{}, err
		}
		obj = strings.TrimSpace(string(out))
	}
	if err := s.casRef(ctx, path, "refs/tags/"+name, obj, ""); err != nil {
		return Tag{}, err
	}
	return s.GetTag(ctx, path, name)
}

// DeleteTag deletes refs/tags/<name>; ErrNotFound if it does not exist.
func (s *Store) DeleteTag(ctx context.Context, path, name string) error {
	return s.deleteRef(ctx, path, "tag", "refs/tags/", name)
}

// TagRefs returns the value of each named tag's ref (a tag object, or the
// commit of a lightweight tag) by name, leaving out names that have no
// ref or are invalid. It reads the ref files (no process); its cost is
// proportional to len(names).
func (s *Store) TagRefs(path string, names []string) (map[string]string, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		if !ValidRefName(n) {
			continue
		}
		sha, err := s.readRef(path, "refs/tags/"+n)
		if err != nil {
			return nil, err
		}
		if sha != "" {
			out[n] = sha
		}
	}
	return out, nil
}

// AllTagRefs returns the value of every tag's ref by name (no process).
func (s *Store) AllTagRefs(path string) (map[string]string, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	names, shas, err := s.listRefs(path, "refs/tags/")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for i, n := range names {
		if shas[i] != "" {
			out[strings.TrimPrefix(n, "refs/tags/")] = shas[i]
		}
	}
	return out, nil
}
