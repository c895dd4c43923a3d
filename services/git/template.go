package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// CommitTreeOf makes, in the staged repository staged (InitStaged), one
// commit without parent on branch whose tree is the tree of branch
// srcBranch of the repository src, and returns it: a repository generated
// from a template starts with the template's files and none of its
// history. The objects of that tree are copied into staged (packed), so
// staged does not depend on src afterwards. Returns ErrNotFound when src
// or its branch do not exist. With rules (nil: none) the tree is the
// template's expanded as TemplateRules tells.
func (s *Store) CommitTreeOf(ctx context.Context, staged, src, srcBranch, branch string, author Signature, message string, rules *TemplateRules) (string, error) {
	if err := s.inRoot(src); err != nil {
		return "", err
	}
	if err := s.checkRepo(src); err != nil {
		return "", err
	}
	if !ValidRefName(branch) || !ValidRefName(srcBranch) {
		return "", invalidf("branch name %q", branch)
	}
	author, err := checkSignature(author, "author")
	if err != nil {
		return "", err
	}
	out, err := s.output(ctx, src, "rev-parse", "--verify", "--quiet", "--end-of-options", "refs/heads/"+srcBranch+"^{tree}")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return "", notFoundf("branch %s", srcBranch)
		}
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	// Borrow src's objects while the commit is made, then pack what the
	// new branch reaches into staged and stop borrowing (as git clone
	// --dissociate does).
	alternates := filepath.Join(staged, "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alternates), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(alternates, []byte(absPath(filepath.Join(src, "objects"))+"\n"), 0o644); err != nil {
		return "", err
	}
	defer os.Remove(alternates)
	if rules != nil {
		if tree, err = s.expandTemplate(ctx, staged, src, tree, rules); err != nil {
			return "", err
		}
	}
	sha, err := s.commitTree(ctx, staged, tree, "", author, author, normalizeMessage(message))
	if err != nil {
		return "", err
	}
	if err := s.casRef(ctx, staged, "refs/heads/"+branch, sha, ""); err != nil {
		return "", err
	}
	if err := s.run(ctx, invocation{gitDir: staged, args: []string{"repack", "-a", "-d", "-q"}}); err != nil {
		return "", err
	}
	if err := os.Remove(alternates); err != nil {
		return "", err
	}
	return sha, nil
}

// TemplateRules derive a generated repository's files from its template's
// (Gitea's .gitea/template): the file File of the template's tree, when it
// is a regular file, names through Parse the paths whose contents and
// paths are rewritten by Content and Path; File itself is left out of the
// generated tree. Without File the tree is the template's, unchanged.
type TemplateRules struct {
	File string
	// Parse reads File's content (at most MaxTemplateFileBytes) and
	// returns whether a path is expanded.
	Parse func(content []byte) func(path string) bool
	// Content rewrites a matched text file's content.
	Content func(content []byte) []byte
	// Path rewrites a matched file's path; the result is cleaned (empty
	// components dropped) and kept only when it is a valid path.
	Path func(path string) string
}

// Bounds of a template's expansion: the rules file is read up to
// MaxTemplateFileBytes; at most MaxTemplateExpanded files are rewritten
// and their contents read add up to at most MaxTemplateExpandedBytes
// (more is ErrInvalid, nothing is made). A matched file larger than
// smallObject (1 MiB) or holding a NUL byte in its first 8000 bytes
// (binary, as git judges) keeps its content; its path is still expanded.
const (
	MaxTemplateFileBytes     = 1 << 20
	MaxTemplateExpanded      = 1000
	MaxTemplateExpandedBytes = 64 << 20
	maxTemplatePathBytes     = 512 << 10 // paths named to update-index and ls-tree's verification
)

// expandTemplate returns the tree of the generated repository: tree (of
// src) with rules applied, written in staged (which borrows src's objects
// through its alternates). Processes: read-tree, hash-object (one for all
// new blobs), update-index, write-tree and its verification, whatever the
// number of files; the template's objects are read through the pooled
// readers.
func (s *Store) expandTemplate(ctx context.Context, staged, src, tree string, rules *TemplateRules) (string, error) {
	listing, err := s.TreeEntries(ctx, src, tree, true)
	if err != nil {
		return "", err
	}
	if listing.Capped {
		return "", invalidf("the template has more than %d entries", MaxTreeEntries)
	}
	var rulesFile *Entry
	for i, e := range listing.Entries {
		if e.Path == rules.File {
			rulesFile = &listing.Entries[i]
			break
		}
	}
	if rulesFile == nil || rulesFile.Type != EntryFile {
		return tree, nil
	}
	infos, err := s.batchCheck(ctx, src, []string{rulesFile.SHA})
	if err != nil {
		return "", err
	}
	if infos[0].Size > MaxTemplateFileBytes {
		return "", invalidf("%s is larger than %d bytes", rules.File, MaxTemplateFileBytes)
	}
	objs, err := s.catFileBatch(ctx, src, []string{rulesFile.SHA})
	if err != nil {
		return "", err
	}
	rulesText := objs[0].Data
	zero := strings.Repeat("0", len(tree))
	removed := []string{"0 " + zero + "\t" + rules.File}
	match := rules.Parse(rulesText)
	var matched []Entry
	for _, e := range listing.Entries {
		if e.Type != EntryFile || e.Path == rules.File || match == nil || !match(e.Path) {
			continue
		}
		if len(matched) == MaxTemplateExpanded {
			return "", invalidf("the template expands more than %d files", MaxTemplateExpanded)
		}
		matched = append(matched, e)
	}
	if err := s.fillSizes(ctx, src, matched); err != nil {
		return "", err
	}
	var names []string
	var total int64
	for _, e := range matched {
		if e.Size <= smallObject {
			if total += e.Size; total > MaxTemplateExpandedBytes {
				return "", invalidf("the template's files to expand exceed %d bytes", MaxTemplateExpandedBytes)
			}
			names = append(names, e.SHA)
		}
	}
	contents := map[string][]byte{}
	if len(names) > 0 {
		objs, err := s.catFileBatch(ctx, src, names)
		if err != nil {
			return "", err
		}
		for i, o := range objs {
			contents[names[i]] = o.Data
		}
	}
	type added struct {
		e       Entry
		path    string
		content []byte // nil: the blob is kept
	}
	var adds []added
	for _, e := range matched {
		a := added{e: e, path: e.Path}
		if p, err := cleanWritePath(strings.Join(strings.FieldsFunc(rules.Path(e.Path), func(r rune) bool { return r == '/' }), "/")); err == nil {
			a.path = p
		}
		if data, ok := contents[e.SHA]; ok && bytes.IndexByte(data[:min(len(data), 8000)], 0) < 0 {
			if out := rules.Content(data); !bytes.Equal(out, data) {
				a.content = out
			}
		}
		if a.path == e.Path && a.content == nil {
			continue
		}
		adds = append(adds, a)
	}
	idx, err := s.newIndex(ctx, staged, tree)
	if err != nil {
		return "", err
	}
	defer idx.remove()
	// New blobs: one hash-object for all, reading the contents from files
	// of the index's private directory.
	var paths bytes.Buffer
	n := 0
	for i, a := range adds {
		if a.content == nil {
			continue
		}
		f := filepath.Join(idx.dir, "blob-"+strconv.Itoa(i))
		if err := os.WriteFile(f, a.content, 0o600); err != nil {
			return "", err
		}
		paths.WriteString(f + "\n")
		n++
	}
	var blobs []string
	if n > 0 {
		out, err := s.outputIn(ctx, staged, &paths, nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return "", err
		}
		blobs = strings.Fields(string(out))
		if len(blobs) != n {
			return "", &Error{Command: "hash-object", Stderr: "unexpected output"}
		}
	}
	// Removals first, then additions: a file whose path expands to
	// another's replaces it, as the last written wins in Gitea's walk.
	var lines []string
	size := len(rules.File)
	last := map[string]string{}
	var order []string
	for _, a := range adds {
		sha := a.e.SHA
		if a.content != nil {
			sha, blobs = blobs[0], blobs[1:]
		}
		if a.path != a.e.Path {
			removed = append(removed, "0 "+zero+"\t"+a.e.Path)
			size += len(a.e.Path)
		}
		if _, ok := last[a.path]; !ok {
			order = append(order, a.path)
			size += len(a.path)
		}
		last[a.path] = a.e.Mode + " " + sha + "\t" + a.path
	}
	if size > maxTemplatePathBytes {
		return "", invalidf("the template's expanded paths exceed %d bytes", maxTemplatePathBytes)
	}
	lines = append(lines, removed...)
	for _, p := range order {
		lines = append(lines, last[p])
	}
	return idx.writeTree(ctx, lines)
}
