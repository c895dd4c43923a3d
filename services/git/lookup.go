package git

import (
	"context"
	"strings"
)

// lookupPaths returns the entries of parent's tree that planChanges needs
// for ops: each path itself, its existing leading directories and, where
// that chain of directories ends early, the entry that ends it (a file in
// the way). It costs two git processes whose arguments grow linearly with
// the paths: only the op paths and at most one more name per path are
// passed, never every leading directory.
func (s *Store) lookupPaths(ctx context.Context, repo, parent string, ops []FileChange) (map[string]Entry, error) {
	var paths []string
	for _, op := range ops {
		paths = append(paths, op.Path)
		if op.FromPath != "" {
			paths = append(paths, op.FromPath)
		}
	}
	// -t lists every tree ls-tree descends into to reach a pathspec, so the
	// existing leading directories come with the paths themselves.
	existing, err := s.lsTreePaths(ctx, repo, parent, paths)
	if err != nil {
		return nil, err
	}
	// A file where a directory is expected is not descended into and so not
	// listed: ask for the first leading name that did not show as a dir.
	var blockers []string
	seen := map[string]bool{}
	for _, p := range paths {
		if q := firstMissingDir(p, existing); q != "" && !seen[q] {
			seen[q] = true
			blockers = append(blockers, q)
		}
	}
	if len(blockers) == 0 {
		return existing, nil
	}
	more, err := s.lsTreePaths(ctx, repo, parent, blockers)
	if err != nil {
		return nil, err
	}
	for k, e := range more {
		existing[k] = e
	}
	return existing, nil
}

// lsTreePaths lists the entries of tree-ish at paths (and, through -t, the
// trees leading to them), keyed by path.
func (s *Store) lsTreePaths(ctx context.Context, repo, treeish string, paths []string) (map[string]Entry, error) {
	args := append([]string{"ls-tree", "-t", "-z", "--long", "--full-tree", treeish, "--"}, paths...)
	out, err := s.output(ctx, repo, args...)
	if err != nil {
		return nil, err
	}
	entries := map[string]Entry{}
	for _, e := range parseLsTree(out, "") {
		entries[e.Path] = e
	}
	return entries, nil
}

// firstMissingDir returns the shortest leading directory of p that is not a
// directory in existing, or "" when all of them are.
func firstMissingDir(p string, existing map[string]Entry) string {
	for i := strings.IndexByte(p, '/'); i >= 0; {
		if e, ok := existing[p[:i]]; !ok || e.Type != EntryDir {
			return p[:i]
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return ""
}
