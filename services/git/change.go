package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"forge/services/failpoint"
)

// FileOp is a ChangeFiles operation.
type FileOp string

const (
	OpCreate FileOp = "create"
	OpUpdate FileOp = "update"
	OpDelete FileOp = "delete"
)

// FileChange is one operation of a ChangeFiles call.
type FileChange struct {
	Op       FileOp
	Path     string
	FromPath string // update only: rename FromPath to Path (SHA is FromPath's)
	Content  []byte // create and update
	// SHA is the blob sha the caller last saw, required by the API for
	// update and delete: a mismatch returns ErrConflict. Empty skips the check.
	SHA string
}

// ChangeFilesOptions describes one commit made through the contents API.
type ChangeFilesOptions struct {
	// Branch is the branch to commit on ("" = the default branch). In an
	// empty repository it may not exist yet: the commit becomes the first.
	Branch string
	// NewBranch, if set, is created from Branch and receives the commit
	// instead; ErrAlreadyExists if it exists.
	NewBranch string
	// OldCommitSHA, if set, is the commit the caller expects Branch to be
	// at; otherwise the current head is used. Either way the branch is
	// moved with a compare-and-swap, so a concurrent change yields
	// ErrConflict instead of being lost.
	OldCommitSHA string
	Files        []FileChange
	Author       Signature // When zero: now
	Committer    Signature // zero: Author
	Message      string
	Signoff      bool // append "Signed-off-by: <committer>"
}

// changeFilesOnce is one attempt of ChangeFiles: it applies opts.Files on
// top of the branch head as one commit and returns the new commit sha. If
// the branch moved meanwhile it returns a *refMovedError (which matches
// ErrConflict) for ChangeFiles to retry. Errors:
//   - ErrNotFound: the branch does not exist (in a non-empty repository),
//     or a file to update or delete does not exist;
//   - ErrAlreadyExists: a file to create (or rename to) exists, or
//     NewBranch exists;
//   - ErrConflict: a SHA or OldCommitSHA does not match, or the branch
//     moved while the commit was being made;
//   - ErrInvalid: bad paths (see ChangeFiles) or signatures, a path used
//     twice, a directory where a file is expected or a file where a
//     directory is needed.
func (s *Store) changeFilesOnce(ctx context.Context, path string, opts ChangeFilesOptions) (string, error) {
	if err := s.checkRepo(path); err != nil {
		return "", err
	}
	author, err := checkSignature(opts.Author, "author")
	if err != nil {
		return "", err
	}
	committer := opts.Committer
	if committer.Name == "" && committer.Email == "" {
		committer = author
	}
	if committer, err = checkSignature(committer, "committer"); err != nil {
		return "", err
	}
	if len(opts.Files) == 0 {
		return "", invalidf("no file operations")
	}
	branch := opts.Branch
	if branch == "" {
		if branch, err = s.DefaultBranch(ctx, path); err != nil {
			return "", err
		}
	}
	if !ValidRefName(branch) {
		return "", notFoundf("branch %q", branch)
	}
	target := branch
	if opts.NewBranch != "" {
		if !ValidRefName(opts.NewBranch) {
			return "", invalidf("branch name %q", opts.NewBranch)
		}
		target = opts.NewBranch
	}
	ops, err := normalizeOps(opts.Files)
	if err != nil {
		return "", err
	}

	parent, err := s.refSHA(ctx, path, "refs/heads/"+branch)
	if err != nil {
		return "", err
	}
	if parent == "" {
		empty, err := s.IsEmpty(ctx, path)
		if err != nil {
			return "", err
		}
		if !empty {
			return "", notFoundf("branch %q", branch)
		}
	}
	if opts.OldCommitSHA != "" && !strings.EqualFold(opts.OldCommitSHA, parent) {
		return "", conflictf("branch %q is at %s, not %s", branch, shortSHA(parent), shortSHA(opts.OldCommitSHA))
	}
	if opts.NewBranch != "" && opts.NewBranch != branch {
		if sha, err := s.refSHA(ctx, path, "refs/heads/"+opts.NewBranch); err != nil {
			return "", err
		} else if sha != "" {
			return "", existsf("branch %q", opts.NewBranch)
		}
	}

	idx, err := s.newIndex(ctx, path, parent)
	if err != nil {
		return "", err
	}
	defer idx.remove()
	failpoint.Hit("contents-write-after-index")
	lines, err := s.planChanges(ctx, path, idx, parent, ops)
	if err != nil {
		return "", err
	}
	tree, err := idx.writeTree(ctx, lines)
	if err != nil {
		return "", err
	}
	msg := normalizeMessage(opts.Message)
	if opts.Signoff {
		msg = addSignoff(msg, committer)
	}
	sha, err := s.commitTree(ctx, path, tree, parent, author, committer, msg)
	if err != nil {
		return "", err
	}
	old := parent
	if target != branch {
		old = ""
	}
	if err := s.casRef(ctx, path, "refs/heads/"+target, sha, old); err != nil {
		if target == branch && errors.Is(err, ErrAlreadyExists) {
			// A concurrent first commit to an empty repository won.
			return "", &refMovedError{ref: "refs/heads/" + branch}
		}
		return "", err
	}
	return sha, nil
}

// InitialCommit makes the first commit of an empty repository on branch,
// with the given files (path -> content, mode 100644), and points the branch
// at it. Returns ErrAlreadyExists if the branch exists.
func (s *Store) InitialCommit(ctx context.Context, path, branch string, files map[string][]byte, author Signature, message string) (string, error) {
	if err := s.checkRepo(path); err != nil {
		return "", err
	}
	if !ValidRefName(branch) {
		return "", invalidf("branch name %q", branch)
	}
	author, err := checkSignature(author, "author")
	if err != nil {
		return "", err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	changes := make([]FileChange, len(paths))
	for i, p := range paths {
		changes[i] = FileChange{Op: OpCreate, Path: p, Content: files[p]}
	}
	ops, err := normalizeOps(changes)
	if err != nil {
		return "", err
	}
	idx, err := s.newIndex(ctx, path, "")
	if err != nil {
		return "", err
	}
	defer idx.remove()
	lines, err := s.planChanges(ctx, path, idx, "", ops)
	if err != nil {
		return "", err
	}
	tree, err := idx.writeTree(ctx, lines)
	if err != nil {
		return "", err
	}
	sha, err := s.commitTree(ctx, path, tree, "", author, author, normalizeMessage(message))
	if err != nil {
		return "", err
	}
	if err := s.casRef(ctx, path, "refs/heads/"+branch, sha, ""); err != nil {
		return "", err
	}
	return sha, nil
}

// normalizeOps validates and cleans operations; a path may appear once.
func normalizeOps(files []FileChange) ([]FileChange, error) {
	seen := make(map[string]bool)
	out := make([]FileChange, len(files))
	for i, f := range files {
		p, err := cleanWritePath(f.Path)
		if err != nil {
			return nil, err
		}
		f.Path = p
		switch f.Op {
		case OpCreate, OpDelete:
			if f.FromPath != "" {
				return nil, invalidf("from_path is only valid for update")
			}
		case OpUpdate:
			if f.FromPath != "" {
				if f.FromPath, err = cleanWritePath(f.FromPath); err != nil {
					return nil, err
				}
				if f.FromPath == f.Path {
					f.FromPath = ""
				}
			}
		default:
			return nil, invalidf("operation %q", f.Op)
		}
		if f.SHA != "" && !isObjectID(f.SHA) {
			return nil, invalidf("sha %q", f.SHA)
		}
		f.SHA = strings.ToLower(f.SHA)
		for _, q := range []string{f.Path, f.FromPath} {
			if q == "" {
				continue
			}
			if seen[q] {
				return nil, invalidf("path %q used twice", q)
			}
			seen[q] = true
		}
		out[i] = f
	}
	return out, nil
}

// planChanges checks ops against the parent tree, writes new blobs and
// returns the `update-index -z --index-info` records to apply.
func (s *Store) planChanges(ctx context.Context, path string, idx *tempIndex, parent string, ops []FileChange) ([]string, error) {
	existing := map[string]Entry{}
	if parent != "" {
		var err error
		if existing, err = s.lookupPaths(ctx, path, parent, ops); err != nil {
			return nil, err
		}
	}
	isFile := func(e Entry) bool { return e.Type == EntryFile || e.Type == EntrySymlink }
	// checkParents: every leading directory of p must be a dir or absent.
	// lookupPaths listed the existing ones and the first entry that is not
	// a directory, so the walk stops at the first absent name.
	checkParents := func(p string) error {
		for i := 0; i < len(p); i++ {
			if p[i] != '/' {
				continue
			}
			e, ok := existing[p[:i]]
			if !ok {
				return nil
			}
			if e.Type != EntryDir {
				return invalidf("%q is a file, cannot create %q", shortPath(p[:i]), shortPath(p))
			}
		}
		return nil
	}
	checkSHA := func(op FileChange, e Entry) error {
		if op.SHA != "" && op.SHA != e.SHA {
			return &SHAMismatchError{Path: e.Path, Given: op.SHA, Current: e.SHA}
		}
		return nil
	}
	var lines []string
	for _, op := range ops {
		switch op.Op {
		case OpCreate:
			if _, ok := existing[op.Path]; ok {
				return nil, &FileExistsError{Path: op.Path}
			}
			if err := checkParents(op.Path); err != nil {
				return nil, err
			}
			blob, err := s.hashObject(ctx, path, op.Content)
			if err != nil {
				return nil, err
			}
			lines = append(lines, "100644 "+blob+"\t"+op.Path)
		case OpUpdate:
			src := op.Path
			if op.FromPath != "" {
				src = op.FromPath
			}
			e, ok := existing[src]
			if !ok {
				return nil, notFoundf("file %q", src)
			}
			if !isFile(e) {
				return nil, invalidf("%q is not a file", src)
			}
			if err := checkSHA(op, e); err != nil {
				return nil, err
			}
			if op.FromPath != "" {
				if _, ok := existing[op.Path]; ok {
					return nil, existsf("file %q", op.Path)
				}
				if err := checkParents(op.Path); err != nil {
					return nil, err
				}
				lines = append(lines, "0 "+strings.Repeat("0", len(e.SHA))+"\t"+op.FromPath)
			}
			blob, err := s.hashObject(ctx, path, op.Content)
			if err != nil {
				return nil, err
			}
			lines = append(lines, e.Mode+" "+blob+"\t"+op.Path)
		case OpDelete:
			e, ok := existing[op.Path]
			if !ok {
				return nil, notFoundf("file %q", op.Path)
			}
			if !isFile(e) {
				return nil, invalidf("%q is not a file", op.Path)
			}
			if err := checkSHA(op, e); err != nil {
				return nil, err
			}
			lines = append(lines, "0 "+strings.Repeat("0", len(e.SHA))+"\t"+op.Path)
		}
	}
	return lines, nil
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func shortSHA(sha string) string {
	if sha == "" {
		return "(none)"
	}
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

// hashObject writes content as a blob and returns its sha.
func (s *Store) hashObject(ctx context.Context, path string, content []byte) (string, error) {
	out, err := s.outputIn(ctx, path, bytes.NewReader(content), nil, "hash-object", "-w", "--no-filters", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// tempIndex is a private index file (GIT_INDEX_FILE) for building a tree.
type tempIndex struct {
	s    *Store
	path string // repository
	dir  string
	file string
}

// newIndex creates a temporary index holding parent's tree ("" = empty).
func (s *Store) newIndex(ctx context.Context, path, parent string) (*tempIndex, error) {
	if err := s.setup(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(s.tmpDir, "index-")
	if err != nil {
		return nil, err
	}
	idx := &tempIndex{s: s, path: path, dir: dir, file: filepath.Join(dir, "index")}
	if parent != "" {
		if err := s.run(ctx, invocation{gitDir: path, args: []string{"read-tree", parent}, env: idx.env()}); err != nil {
			idx.remove()
			return nil, err
		}
	}
	return idx, nil
}

func (t *tempIndex) env() []string { return []string{"GIT_INDEX_FILE=" + t.file} }

func (t *tempIndex) remove() { os.RemoveAll(t.dir) }

// writeTree applies index-info records and writes the tree.
func (t *tempIndex) writeTree(ctx context.Context, lines []string) (string, error) {
	var in bytes.Buffer
	for _, l := range lines {
		in.WriteString(l)
		in.WriteByte(0)
	}
	err := t.s.run(ctx, invocation{gitDir: t.path, env: t.env(), stdin: &in,
		args: []string{"update-index", "-z", "--add", "--index-info"}})
	if err != nil {
		if stderrContains(err, "appears as both a file and as a directory", "cannot add", "is a directory", "invalid path") {
			return "", invalidf("file paths collide: %v", err)
		}
		return "", err
	}
	out, err := t.s.outputIn(ctx, t.path, nil, t.env(), "write-tree")
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	if err := t.s.verifyTree(ctx, t.path, tree, lines); err != nil {
		return "", err
	}
	return tree, nil
}

// commitTree writes a commit object and returns its sha.
func (s *Store) commitTree(ctx context.Context, path, tree, parent string, author, committer Signature, msg string) (string, error) {
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	env := append(identEnv("AUTHOR", author), identEnv("COMMITTER", committer)...)
	out, err := s.outputIn(ctx, path, strings.NewReader(msg), env, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// addSignoff appends a Signed-off-by trailer for the committer.
func addSignoff(msg string, c Signature) string {
	trailer := "Signed-off-by: " + c.Name + " <" + c.Email + ">"
	if strings.Contains(msg, trailer) {
		return msg
	}
	if msg == "" {
		return trailer + "\n"
	}
	return msg + "\n" + trailer + "\n"
}
