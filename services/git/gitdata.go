package git

import (
	"context"
	"strings"
)

// Reads of the git data API (git/trees, git/blobs, git/refs, git/tags):
// objects through the pooled cat-file readers, refs from the ref files.

// MaxTreeEntries bounds a recursive tree listing: a tree with more
// entries is answered with the first MaxTreeEntries (counted in the
// total), so one request cannot walk an unbounded tree.
const MaxTreeEntries = 100000

// Tree is a tree listing for the git/trees API.
type Tree struct {
	SHA     string  // the tree's id
	Entries []Entry // in git's order; recursive listings pre-order
	// Capped is true when a recursive listing stopped at MaxTreeEntries.
	Capped bool
}

// TreeEntries lists the tree rev names: a tree, commit or tag id, or a
// ref (see Resolve). Recursive walks the subtrees (their entries follow
// the subtree's own entry, as `git ls-tree -r -t` lists them). Sizes are
// not set (FillSizes sets them for a page). ErrNotFound when rev names
// no tree.
func (s *Store) TreeEntries(ctx context.Context, path, rev string, recursive bool) (Tree, error) {
	if err := s.checkRepo(path); err != nil {
		return Tree{}, err
	}
	name := ""
	if isObjectID(rev) && (len(rev) == 40 || len(rev) == 64) {
		name = strings.ToLower(rev)
	} else {
		sha, err := s.ResolveRef(ctx, path, rev)
		if err != nil {
			return Tree{}, err
		}
		name = sha
	}
	infos, err := s.batchCheck(ctx, path, []string{name + "^{tree}"})
	if err != nil {
		return Tree{}, err
	}
	if infos[0].Type != "tree" {
		return Tree{}, notFoundf("tree %q", rev)
	}
	t := Tree{SHA: infos[0].SHA}
	entries, err := s.readTree(ctx, path, t.SHA, "")
	if err != nil {
		return Tree{}, err
	}
	if !recursive {
		t.Entries = entries
		return t, nil
	}
	var walk func(es []Entry) error
	walk = func(es []Entry) error {
		for _, e := range es {
			if len(t.Entries) >= MaxTreeEntries {
				t.Capped = true
				return nil
			}
			t.Entries = append(t.Entries, e)
			if e.Type != EntryDir {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			sub, err := s.readTree(ctx, path, e.SHA, e.Path)
			if err != nil {
				return err
			}
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(entries); err != nil {
		return Tree{}, err
	}
	return t, nil
}

// FillSizes sets the blob sizes of entries (files and symlinks) with one
// exchange with a pooled reader.
func (s *Store) FillSizes(ctx context.Context, path string, entries []Entry) error {
	return s.fillSizes(ctx, path, entries)
}

// BlobInfo returns the size of the blob sha (a full id); ErrNotFound when
// there is no such blob.
func (s *Store) BlobInfo(ctx context.Context, path, sha string) (string, int64, error) {
	if err := s.checkRepo(path); err != nil {
		return "", 0, err
	}
	if !isObjectID(sha) || (len(sha) != 40 && len(sha) != 64) {
		return "", 0, notFoundf("blob %q", sha)
	}
	sha = strings.ToLower(sha)
	infos, err := s.batchCheck(ctx, path, []string{sha})
	if err != nil {
		return "", 0, err
	}
	if infos[0].Type != "blob" {
		return "", 0, notFoundf("blob %q", sha)
	}
	return infos[0].SHA, infos[0].Size, nil
}

// Ref is a ref and the object it points at.
type Ref struct {
	Name string // full name (refs/heads/main)
	SHA  string
	Type string // the object's type: commit, tag, tree, blob
}

// Refs lists the refs whose full name starts with prefix ("refs/" for
// all), in name order, with the types of their objects (one exchange with
// a pooled reader). At most limit refs are returned (0: no limit).
func (s *Store) Refs(ctx context.Context, path, prefix string, limit int) ([]Ref, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	// listRefs walks a directory: list the directory holding the prefix
	// and keep the names that start with it.
	dir := prefix[:strings.LastIndex(prefix, "/")+1]
	names, shas, err := s.listRefs(path, dir)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for i, n := range names {
		if !strings.HasPrefix(n, prefix) || shas[i] == "" {
			continue
		}
		if limit > 0 && len(refs) >= limit {
			break
		}
		refs = append(refs, Ref{Name: n, SHA: shas[i]})
	}
	if len(refs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.SHA
	}
	infos, err := s.batchCheck(ctx, path, ids)
	if err != nil {
		return nil, err
	}
	for i := range refs {
		refs[i].Type = infos[i].Type
	}
	return refs, nil
}

// AnnotatedTag is an annotated tag object.
type AnnotatedTag struct {
	SHA        string
	Name       string
	Object     string
	ObjectType string
	Tagger     Signature
	Message    string
}

// TagObject reads the annotated tag object sha (a full id); ErrNotFound
// when sha names no tag object.
func (s *Store) TagObject(ctx context.Context, path, sha string) (AnnotatedTag, error) {
	if err := s.checkRepo(path); err != nil {
		return AnnotatedTag{}, err
	}
	if !isObjectID(sha) || (len(sha) != 40 && len(sha) != 64) {
		return AnnotatedTag{}, notFoundf("tag %q", sha)
	}
	sha = strings.ToLower(sha)
	objs, err := s.catFileBatch(ctx, path, []string{sha})
	if err != nil {
		return AnnotatedTag{}, err
	}
	if objs[0].Type != "tag" {
		return AnnotatedTag{}, notFoundf("tag %q", sha)
	}
	t := AnnotatedTag{SHA: sha}
	data := string(objs[0].Data)
	head, msg, _ := strings.Cut(data, "\n\n")
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "object":
			t.Object = v
		case "type":
			t.ObjectType = v
		case "tag":
			t.Name = v
		case "tagger":
			t.Tagger = parseIdent(v)
		}
	}
	t.Message = msg
	return t, nil
}
