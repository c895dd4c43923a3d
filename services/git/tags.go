package git

import (
	"bytes"
	"context"
	"fmt"
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

var tagFields = []string{
	"%(refname)", "%(objecttype)", "%(objectname)", "%(*objecttype)", "%(*objectname)",
	"%(contents)", "%(contents:signature)", "%(tagger)", "%(committer)", "%(*committer)",
}

// ListTags returns all tags, newest first (tagger date, or committer date
// for lightweight tags), then by name, using one git process.
func (s *Store) ListTags(ctx context.Context, path string) ([]Tag, error) {
	return s.tags(ctx, path, "refs/tags/", "--sort=refname", "--sort=-creatordate")
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
	t := Tag{Name: name}
	switch o := objs[0]; o.Type {
	case "tag":
		t.TagSHA = sha
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
			cs, err := s.catFileBatch(ctx, path, []string{target})
			if err != nil {
				return Tag{}, err
			}
			if cs[0].Type == "commit" {
				t.CommitTime = parseRawCommit(target, cs[0].Data).Committer.When
			}
		}
	case "commit":
		c := parseRawCommit(sha, o.Data)
		t.CommitSHA = sha
		t.Message = c.Message
		t.Tagger = c.Committer
		t.CommitTime = c.Committer.When
	case "":
		return Tag{}, notFoundf("tag %q", name)
	}
	return t, nil
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

func (s *Store) tags(ctx context.Context, path, pattern string, sort ...string) ([]Tag, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	args := append([]string{"for-each-ref", "--format=" + strings.Join(tagFields, "%00") + "%00"}, sort...)
	out, err := s.output(ctx, path, append(args, pattern)...)
	if err != nil {
		return nil, err
	}
	var tags []Tag
	for _, rec := range splitRecords(out, len(tagFields)) {
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
