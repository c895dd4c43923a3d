package git

import (
	"context"
	"strings"
)

// verifyTree checks that tree holds exactly what the update-index records
// in lines asked for: each added path with its mode and blob, each removed
// path gone. git's update-index skips a path it refuses ("Ignoring path")
// and still exits 0, and replaces a file by a directory (or the reverse)
// without complaint; a commit must never be made from such a partial
// result, so a mismatch is ErrInvalid and nothing is committed.
func (s *Store) verifyTree(ctx context.Context, repo, tree string, lines []string) error {
	type want struct{ mode, sha string }
	wants := make(map[string]want, len(lines))
	paths := make([]string, 0, len(lines))
	for _, l := range lines {
		meta, p, _ := strings.Cut(l, "\t")
		mode, sha, _ := strings.Cut(meta, " ")
		wants[p] = want{mode: mode, sha: sha}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil
	}
	out, err := s.output(ctx, repo, append([]string{"ls-tree", "-z", "--long", "--full-tree", tree, "--"}, paths...)...)
	if err != nil {
		return err
	}
	got := map[string]Entry{}
	for _, e := range parseLsTree(out, "") {
		got[e.Path] = e
	}
	for _, p := range paths {
		w, e := wants[p], got[p]
		if w.mode == "0" {
			if e.Path != "" {
				return invalidf("git refused to remove path %q", shortPath(p))
			}
			continue
		}
		if e.Path == "" || e.Mode != w.mode || e.SHA != w.sha {
			return invalidf("git refused path %q", shortPath(p))
		}
	}
	return nil
}
