package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// EntryType is the kind of a tree entry.
type EntryType string

const (
	EntryFile      EntryType = "file"
	EntryDir       EntryType = "dir"
	EntrySymlink   EntryType = "symlink"
	EntrySubmodule EntryType = "submodule"
)

// Entry is a file, directory, symlink or submodule in a commit's tree.
type Entry struct {
	Name string    // base name ("" for the root)
	Path string    // path from the repository root ("" for the root)
	Type EntryType //
	Mode string    // git mode: 100644, 100755, 120000, 040000, 160000
	SHA  string    // blob, tree, or submodule commit
	Size int64     // blob size (symlink: target length); 0 for dirs and submodules
}

// Stat describes filePath at ref. The root ("" or "/") is a dir entry.
// Returns ErrNotFound for a missing ref or path.
func (s *Store) Stat(ctx context.Context, path, ref, filePath string) (Entry, error) {
	p, err := cleanPath(filePath)
	if err != nil {
		return Entry{}, notFoundf("path %q", filePath)
	}
	commit, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return Entry{}, err
	}
	if p == "" {
		infos, err := s.batchCheck(ctx, path, []string{commit + "^{tree}"})
		if err != nil {
			return Entry{}, err
		}
		return Entry{Type: EntryDir, Mode: "040000", SHA: infos[0].SHA}, nil
	}
	out, err := s.output(ctx, path, "ls-tree", "-z", "--long", "--full-tree", commit, "--", p)
	if err != nil {
		return Entry{}, err
	}
	for _, e := range parseLsTree(out, "") {
		if e.Path == p {
			return e, nil
		}
	}
	return Entry{}, notFoundf("path %q", p)
}

// ReadDir lists the directory dirPath at ref ("" is the root) in git's tree
// order. Returns ErrNotFound for a missing ref or path and ErrInvalid if
// dirPath is not a directory.
func (s *Store) ReadDir(ctx context.Context, path, ref, dirPath string) ([]Entry, error) {
	p, err := cleanPath(dirPath)
	if err != nil {
		return nil, notFoundf("path %q", dirPath)
	}
	commit, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return nil, err
	}
	treeish := commit + "^{tree}"
	if p != "" {
		treeish = commit + ":" + p
	}
	out, err := s.output(ctx, path, "ls-tree", "-z", "--long", "--full-tree", treeish)
	if err != nil {
		// Tell a missing path from a file or submodule (error path only).
		e, serr := s.Stat(ctx, path, commit, p)
		switch {
		case errors.Is(serr, ErrNotFound):
			return nil, serr
		case serr != nil:
			return nil, errors.Join(err, serr)
		case e.Type != EntryDir:
			return nil, invalidf("path %q is not a directory", p)
		}
		return nil, err
	}
	entries := parseLsTree(out, p)
	if entries == nil {
		entries = []Entry{}
	}
	return entries, nil
}

// parseLsTree parses `git ls-tree -z --long` output; names are joined to dir.
func parseLsTree(out []byte, dir string) []Entry {
	var entries []Entry
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			continue
		}
		e := Entry{Mode: f[0], SHA: f[2], Path: name, Name: name}
		if dir != "" {
			e.Path = dir + "/" + name
		}
		if i := strings.LastIndexByte(e.Name, '/'); i >= 0 {
			e.Name = e.Name[i+1:]
		}
		switch {
		case f[1] == "tree":
			e.Type = EntryDir
		case f[1] == "commit":
			e.Type = EntrySubmodule
		case f[0] == "120000":
			e.Type = EntrySymlink
		default:
			e.Type = EntryFile
		}
		if f[3] != "-" {
			e.Size, _ = strconv.ParseInt(f[3], 10, 64)
		}
		entries = append(entries, e)
	}
	return entries
}

// OpenBlob streams the content of filePath at ref (for a symlink: its
// target). The caller must Close the reader. Returns ErrNotFound for a
// missing ref or path and ErrInvalid for a directory or submodule.
func (s *Store) OpenBlob(ctx context.Context, path, ref, filePath string) (io.ReadCloser, int64, error) {
	p, err := cleanPath(filePath)
	if err != nil || p == "" {
		return nil, 0, notFoundf("file %q", filePath)
	}
	commit, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return nil, 0, err
	}
	name := commit + ":" + p
	if strings.ContainsAny(p, "\n") { // cat-file reads names line by line
		e, err := s.Stat(ctx, path, commit, p)
		if err != nil {
			return nil, 0, err
		}
		name = e.SHA
	}
	return s.openObject(ctx, path, name, "blob")
}

// OpenBlobBySHA streams the blob with the given sha (for the git/blobs
// API). Returns ErrNotFound if there is no such blob.
func (s *Store) OpenBlobBySHA(ctx context.Context, path, sha string) (io.ReadCloser, int64, error) {
	if !isObjectID(sha) {
		return nil, 0, notFoundf("blob %q", sha)
	}
	return s.openObject(ctx, path, strings.ToLower(sha), "blob")
}

// openObject starts `git cat-file --batch` for one object and returns a
// reader over its content, streamed from the process.
func (s *Store) openObject(ctx context.Context, path, name, wantType string) (io.ReadCloser, int64, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	inv := invocation{gitDir: path, args: []string{"cat-file", "--batch"}, stdin: strings.NewReader(name + "\n")}
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		cancel()
		return nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, 0, s.wrapErr(ctx, inv, stderr, err)
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	fail := func(err error) (io.ReadCloser, int64, error) {
		cancel()
		cmd.Wait()
		return nil, 0, err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		cancel()
		return nil, 0, s.wrapErr(ctx, inv, stderr, errors.Join(err, cmd.Wait()))
	}
	info := parseBatchHeader(strings.TrimSuffix(line, "\n"))
	switch {
	case info.Type == "":
		return fail(notFoundf("object %q", name))
	case info.Type != wantType:
		return fail(invalidf("object %q is a %s, not a %s", name, info.Type, wantType))
	}
	return &blobReader{r: io.LimitReader(br, info.Size), left: info.Size, cmd: cmd, cancel: cancel,
		wait: func(err error) error { return s.wrapErr(ctx, inv, stderr, err) }}, info.Size, nil
}

// blobReader reads one object from a running cat-file and reaps it on Close.
type blobReader struct {
	r      io.Reader
	left   int64
	cmd    interface{ Wait() error }
	cancel context.CancelFunc
	wait   func(error) error

	once sync.Once
	err  error
}

func (b *blobReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		err = fmt.Errorf("git cat-file: object truncated: %w", io.ErrUnexpectedEOF)
	}
	return n, err
}

// Close stops the process if the content was not read to the end, and
// waits for it.
func (b *blobReader) Close() error {
	b.once.Do(func() {
		early := b.left > 0
		if early {
			b.cancel()
		}
		err := b.cmd.Wait()
		b.cancel()
		if err != nil && !early {
			b.err = b.wait(err)
		}
	})
	return b.err
}

// LastCommitForPath returns the newest commit reachable from ref that
// changed filePath ("" = ref's commit itself). Returns ErrNotFound if the
// ref does not resolve or no commit touched the path.
func (s *Store) LastCommitForPath(ctx context.Context, path, ref, filePath string) (string, error) {
	p, err := cleanPath(filePath)
	if err != nil {
		return "", notFoundf("path %q", filePath)
	}
	commit, err := s.ResolveRef(ctx, path, ref)
	if err != nil || p == "" {
		return commit, err
	}
	out, err := s.output(ctx, path, "rev-list", "-1", commit, "--", p)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(out))
	if sha == "" {
		return "", notFoundf("path %q", p)
	}
	return sha, nil
}

// LastCommitsForEntries returns, for each of names (entries of the
// directory dirPath at ref), the newest commit that changed it, the way
// LastCommitForPath would. It walks history once with a single streaming
// `git log` and stops as soon as every name is found. Names never found
// are absent from the map.
func (s *Store) LastCommitsForEntries(ctx context.Context, path, ref, dirPath string, names []string) (map[string]string, error) {
	dir, err := cleanPath(dirPath)
	if err != nil {
		return nil, notFoundf("path %q", dirPath)
	}
	commit, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	found := make(map[string]string, len(names))
	if len(want) == 0 {
		return found, nil
	}
	args := []string{"log", "--format=%x1e%H", "-z", "--name-only", "-c", "--no-renames", "--root", commit}
	if dir != "" {
		args = append(args, "--", dir)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inv := invocation{gitDir: path, args: args}
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	current, afterHeader := "", false
	for len(found) < len(want) {
		tok, rerr := br.ReadString(0)
		tok = strings.TrimSuffix(tok, "\x00")
		if afterHeader {
			tok = strings.TrimPrefix(tok, "\n")
		}
		afterHeader = false
		switch {
		case strings.HasPrefix(tok, "\x1e"):
			current, afterHeader = tok[1:], true
		case tok != "" && current != "":
			rel, ok := strings.CutPrefix(tok, prefix)
			if !ok {
				break
			}
			first, _, _ := strings.Cut(rel, "/")
			if want[first] && found[first] == "" {
				found[first] = current
			}
		}
		if rerr != nil {
			break
		}
	}
	if len(found) == len(want) {
		cancel() // everything found: stop the walk early
		cmd.Wait()
		return found, nil
	}
	if err := cmd.Wait(); err != nil {
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	return found, nil
}
