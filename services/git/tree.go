package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"strings"
)

// Trees are read as objects through the pooled reader (and so the object
// cache) and parsed here, instead of running `git ls-tree` per request.

// parseTree parses a raw tree object: entries "<mode> <name>\0<id>", the
// id in binary (20 bytes for SHA-1, 32 for SHA-256: idLen). Names are
// joined to dir for Path.
func parseTree(data []byte, dir string, idLen int) ([]Entry, bool) {
	var entries []Entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, false
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || sp+1+nul+1+idLen > len(data) {
			return nil, false
		}
		mode := string(data[:sp])
		name := string(data[sp+1 : sp+1+nul])
		id := hex.EncodeToString(data[sp+1+nul+1 : sp+1+nul+1+idLen])
		data = data[sp+1+nul+1+idLen:]
		if len(mode) == 5 {
			mode = "0" + mode // git writes trees as "40000"; ls-tree shows "040000"
		}
		e := Entry{Name: name, Path: name, Mode: mode, SHA: id}
		if dir != "" {
			e.Path = dir + "/" + name
		}
		switch {
		case mode == "040000":
			e.Type = EntryDir
		case mode == "160000":
			e.Type = EntrySubmodule
		case mode == "120000":
			e.Type = EntrySymlink
		default:
			e.Type = EntryFile
		}
		entries = append(entries, e)
	}
	return entries, true
}

// readTree returns the entries of the tree with id tree, without sizes.
func (s *Store) readTree(ctx context.Context, path, tree, dir string) ([]Entry, error) {
	objs, err := s.catFileBatch(ctx, path, []string{tree})
	if err != nil {
		return nil, err
	}
	o := objs[0]
	switch o.Type {
	case "":
		return nil, notFoundf("tree %q", tree)
	case "tree":
	default:
		return nil, invalidf("object %q is a %s, not a tree", tree, o.Type)
	}
	entries, ok := parseTree(o.Data, dir, len(tree)/2)
	if !ok {
		return nil, &Error{Command: "cat-file", Stderr: "malformed tree " + tree}
	}
	return entries, nil
}

// rootTree returns the root tree of commit (a full id).
func (s *Store) rootTree(ctx context.Context, path, commit string) (string, error) {
	objs, err := s.catFileBatch(ctx, path, []string{commit})
	if err != nil {
		return "", err
	}
	if objs[0].Type != "commit" {
		return "", notFoundf("commit %q", commit)
	}
	return parseRawCommit(commit, objs[0].Data).Tree, nil
}

// entryAt walks from commit's root tree to p (cleaned, not "") and
// returns its entry without size. ErrNotFound if a component is missing
// or a leading component is not a directory.
func (s *Store) entryAt(ctx context.Context, path, commit, p string) (Entry, error) {
	tree, err := s.rootTree(ctx, path, commit)
	if err != nil {
		return Entry{}, err
	}
	dir := ""
	parts := strings.Split(p, "/")
	for i, name := range parts {
		entries, err := s.readTree(ctx, path, tree, dir)
		if err != nil {
			return Entry{}, err
		}
		var found *Entry
		for j := range entries {
			if entries[j].Name == name {
				found = &entries[j]
				break
			}
		}
		if found == nil {
			return Entry{}, notFoundf("path %q", p)
		}
		if i == len(parts)-1 {
			return *found, nil
		}
		if found.Type != EntryDir {
			return Entry{}, notFoundf("path %q", p)
		}
		tree, dir = found.SHA, found.Path
	}
	return Entry{}, notFoundf("path %q", p)
}

// fillSizes sets Size of the file and symlink entries (blob sizes) with
// one exchange (cached per blob id).
func (s *Store) fillSizes(ctx context.Context, path string, entries []Entry) error {
	var names []string
	var at []int
	for i, e := range entries {
		if e.Type == EntryFile || e.Type == EntrySymlink {
			names = append(names, e.SHA)
			at = append(at, i)
		}
	}
	if len(names) == 0 {
		return nil
	}
	infos, err := s.batchCheck(ctx, path, names)
	if err != nil {
		return err
	}
	for j, info := range infos {
		entries[at[j]].Size = info.Size
	}
	return nil
}

// findTreeEntry looks up name in a raw tree object and returns its mode
// (as written in the tree) and hex id, without parsing the other entries
// into Entry values.
func findTreeEntry(data []byte, name string, idLen int) (mode, id string, ok bool) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return "", "", false
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || sp+1+nul+1+idLen > len(data) {
			return "", "", false
		}
		if string(data[sp+1:sp+1+nul]) == name {
			return string(data[:sp]), hex.EncodeToString(data[sp+1+nul+1 : sp+1+nul+1+idLen]), true
		}
		data = data[sp+1+nul+1+idLen:]
	}
	return "", "", false
}
