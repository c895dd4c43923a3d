package git

import (
	"bufio"
	"bytes"
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
		tree, err := s.rootTree(ctx, path, commit)
		if err != nil {
			return Entry{}, err
		}
		return Entry{Type: EntryDir, Mode: "040000", SHA: tree}, nil
	}
	e, err := s.entryAt(ctx, path, commit, p)
	if err != nil {
		return Entry{}, err
	}
	es := []Entry{e}
	if err := s.fillSizes(ctx, path, es); err != nil {
		return Entry{}, err
	}
	return es[0], nil
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
	var tree string
	if p == "" {
		if tree, err = s.rootTree(ctx, path, commit); err != nil {
			return nil, err
		}
	} else {
		e, err := s.entryAt(ctx, path, commit, p)
		if err != nil {
			return nil, err
		}
		if e.Type != EntryDir {
			return nil, invalidf("path %q is not a directory", p)
		}
		tree = e.SHA
	}
	entries, err := s.readTree(ctx, path, tree, p)
	if err != nil {
		return nil, err
	}
	if err := s.fillSizes(ctx, path, entries); err != nil {
		return nil, err
	}
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
	e, err := s.entryAt(ctx, path, commit, p)
	if err != nil {
		return nil, 0, err
	}
	switch e.Type {
	case EntryDir:
		return nil, 0, invalidf("object %q is a tree, not a blob", commit+":"+p)
	case EntrySubmodule:
		return nil, 0, notFoundf("object %q", commit+":"+p) // a gitlink's commit is not in this repository
	}
	return s.openObject(ctx, path, e.SHA, "blob")
}

// OpenBlobBySHA streams the blob with the given sha (for the git/blobs
// API). Returns ErrNotFound if there is no such blob.
func (s *Store) OpenBlobBySHA(ctx context.Context, path, sha string) (io.ReadCloser, int64, error) {
	if !isObjectID(sha) {
		return nil, 0, notFoundf("blob %q", sha)
	}
	return s.openObject(ctx, path, strings.ToLower(sha), "blob")
}

// openObject streams one object's content from a pooled cat-file
// reader. The reader goes back to the pool when the content was read to
// the end and closed; a partial read or a cancelled ctx discards it.
func (s *Store) openObject(ctx context.Context, path, name, wantType string) (io.ReadCloser, int64, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, 0, err
	}
	cacheable := immutableName(name)
	if cacheable {
		if v, ok := s.cache.get(s.cacheKey(path, "obj", name)); ok {
			if o := v.(batchObject); o.Type == wantType {
				return io.NopCloser(bytes.NewReader(o.Data)), int64(len(o.Data)), nil
			}
		}
	}
	var c *catFile
	var stop func() bool
	fail := func(err error) (io.ReadCloser, int64, error) {
		stop()
		s.dropReader(c)
		if ctxErr := ctx.Err(); ctxErr != nil && !isDomainErr(err) {
			err = errors.Join(ctxErr, err)
		}
		return nil, 0, err
	}
	var info objectInfo
	for attempt := 0; ; attempt++ {
		var err error
		if c, err = s.getReader(ctx, path); err != nil {
			return nil, 0, err
		}
		stop = context.AfterFunc(ctx, c.cancel)
		if err = c.send("contents " + name); err != nil {
			err = c.failed(err)
		} else {
			info, err = c.header()
		}
		if err == nil {
			break
		}
		// A pooled reader that died while idle is replaced once.
		if !c.reused || attempt > 0 || ctx.Err() != nil {
			return fail(err)
		}
		stop()
		s.dropReader(c)
	}
	var outcome error
	switch {
	case info.Type == "":
		outcome = notFoundf("object %q", name)
	case info.Type != wantType:
		outcome = invalidf("object %q is a %s, not a %s", name, info.Type, wantType)
		if info.Size > smallObject {
			return fail(outcome)
		}
		if _, err := c.out.Discard(int(info.Size) + 1); err != nil {
			return fail(c.failed(err))
		}
	}
	if outcome != nil {
		if !stop() {
			return fail(outcome)
		}
		s.putReader(c)
		return nil, 0, outcome
	}
	if cacheable && info.Size <= smallBlob {
		data := make([]byte, info.Size+1) // content and a newline
		if _, err := io.ReadFull(c.out, data); err != nil {
			return fail(c.failed(err))
		}
		if !stop() {
			return fail(ctx.Err())
		}
		s.putReader(c)
		o := batchObject{SHA: info.SHA, Type: info.Type, Data: data[:info.Size]}
		s.cache.add(s.cacheKey(path, "obj", name), o, info.Size)
		return io.NopCloser(bytes.NewReader(o.Data)), info.Size, nil
	}
	return &blobReader{s: s, c: c, stop: stop, r: io.LimitReader(c.out, info.Size), left: info.Size}, info.Size, nil
}

// blobReader reads one object from a pooled cat-file reader.
type blobReader struct {
	s    *Store
	c    *catFile
	stop func() bool
	r    io.Reader
	left int64

	once sync.Once
}

func (b *blobReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		err = fmt.Errorf("git cat-file: object truncated: %w", io.ErrUnexpectedEOF)
	}
	return n, err
}

// Close returns the reader to the pool if the content was read to the end
// (and its terminating newline is there), and discards it otherwise.
func (b *blobReader) Close() error {
	b.once.Do(func() {
		clean := b.stop() && b.left == 0
		if clean {
			nl, err := b.c.out.ReadByte()
			clean = err == nil && nl == '\n'
		}
		if clean {
			b.s.putReader(b.c)
		} else {
			b.s.dropReader(b.c)
		}
	})
	return nil
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
	// History below a commit never changes: the answer is cached.
	key := s.cacheKey(path, "last", commit+"\x00"+p)
	if v, ok := s.cache.get(key); ok {
		return v.(string), nil
	}
	out, err := s.output(ctx, path, "rev-list", "-1", commit, "--", p)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(out))
	if sha == "" {
		return "", notFoundf("path %q", p)
	}
	s.cache.add(key, sha, int64(len(sha)))
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
	// History below a commit never changes: the answer is cached per
	// commit, directory and names (callers get their own copy).
	key := s.cacheKey(path, "lastdir", commit+"\x00"+dir+"\x00"+strings.Join(names, "\x00"))
	if v, ok := s.cache.get(key); ok {
		for k, sha := range v.(map[string]string) {
			found[k] = sha
		}
		return found, nil
	}
	keep := func() {
		m := make(map[string]string, len(found))
		size := int64(0)
		for k, sha := range found {
			m[k] = sha
			size += int64(len(k)+len(sha)) + 32
		}
		s.cache.add(key, m, size)
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
		keep()
		return found, nil
	}
	if err := cmd.Wait(); err != nil {
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	keep()
	return found, nil
}
