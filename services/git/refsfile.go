package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Refs are read from the git dir's files without starting git, the way
// git's "files" ref backend lays them out: a loose ref is the file
// <gitdir>/<refname> holding "<sha>\n" or "ref: <target>\n"; refs without
// a loose file are looked up in <gitdir>/packed-refs ("<sha> <refname>"
// lines, sorted, each optionally followed by "^<peeled sha>"). A loose
// ref wins over a packed one. Every lookup reads the files afresh; only
// the parsed packed-refs is kept, and it is revalidated by the file's
// identity, size and modification time on every lookup, as git does.

// maxSymrefDepth is how many "ref: " hops are followed (git's limit too).
const maxSymrefDepth = 5

// packedRefs is a parsed packed-refs file.
type packedRefs struct {
	names []string // sorted
	shas  []string
	stat  fs.FileInfo
}

// packedCache keeps parsed packed-refs files by path, at most
// maxPackedCached of them and maxPackedBytes of file content in all (the
// whole map is dropped when full: cheap and bounded).
type packedCache struct {
	mu    sync.Mutex
	m     map[string]*packedRefs
	bytes int64
}

const (
	maxPackedCached = 256
	maxPackedBytes  = 32 << 20
)

// readLooseRef reads <dir>/<name>. found is false if there is no such
// file (or it is a directory: a ref "a" when "a/b" exists is missing).
func readLooseRef(dir, name string) (content string, found bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimRight(string(b), "\n\r "), true, nil
}

// packed returns the parsed packed-refs of dir (nil if it has none).
func (s *Store) packed(dir string) (*packedRefs, error) {
	file := filepath.Join(dir, "packed-refs")
	for attempt := 0; ; attempt++ {
		st, err := os.Stat(file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		s.packedRefs.mu.Lock()
		p := s.packedRefs.m[file]
		s.packedRefs.mu.Unlock()
		if p != nil && sameStat(p.stat, st) {
			return p, nil
		}
		b, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // replaced between stat and read by a concurrent pack-refs
		}
		if err != nil {
			return nil, err
		}
		// The file may have been replaced after the stat: keep the parse
		// only if the stat still matches, so a stale parse is never cached.
		p = parsePackedRefs(b)
		if st2, err := os.Stat(file); err == nil && sameStat(st, st2) && int64(len(b)) == st.Size() {
			p.stat = st
			s.packedRefs.mu.Lock()
			c := &s.packedRefs
			if c.m == nil || len(c.m) >= maxPackedCached || c.bytes+st.Size() > maxPackedBytes {
				c.m, c.bytes = map[string]*packedRefs{}, 0
			}
			if old := c.m[file]; old != nil {
				c.bytes -= old.stat.Size()
			}
			c.m[file] = p
			c.bytes += st.Size()
			s.packedRefs.mu.Unlock()
		}
		return p, nil
	}
}

// sameStat reports whether two stats describe the same, unchanged file.
// Files modified within the last second are never trusted (a rewrite in
// the same timestamp granule with the same size would look unchanged).
func sameStat(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) &&
		time.Since(b.ModTime()) > time.Second
}

func parsePackedRefs(b []byte) *packedRefs {
	p := &packedRefs{}
	sorted := true
	for len(b) > 0 {
		var raw []byte
		raw, b, _ = bytes.Cut(b, []byte("\n"))
		line := string(bytes.TrimSuffix(raw, []byte("\r")))
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue // header, or the peeled value of the previous tag
		}
		sha, name, ok := strings.Cut(line, " ")
		if !ok || !isObjectID(sha) {
			continue
		}
		if n := len(p.names); n > 0 && p.names[n-1] >= name {
			sorted = false
		}
		p.names = append(p.names, name)
		p.shas = append(p.shas, sha)
	}
	if !sorted {
		sort.Sort(byName{p})
	}
	return p
}

type byName struct{ p *packedRefs }

func (b byName) Len() int           { return len(b.p.names) }
func (b byName) Less(i, j int) bool { return b.p.names[i] < b.p.names[j] }
func (b byName) Swap(i, j int) {
	b.p.names[i], b.p.names[j] = b.p.names[j], b.p.names[i]
	b.p.shas[i], b.p.shas[j] = b.p.shas[j], b.p.shas[i]
}

func (p *packedRefs) lookup(name string) (string, bool) {
	if p == nil {
		return "", false
	}
	i := sort.SearchStrings(p.names, name)
	if i < len(p.names) && p.names[i] == name {
		return p.shas[i], true
	}
	return "", false
}

// readRef returns the object id the full ref name (or "HEAD") points at,
// following symbolic refs, or "" if it does not exist. It starts no
// process.
func (s *Store) readRef(path, name string) (string, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for depth := 0; depth <= maxSymrefDepth; depth++ {
		if name != "HEAD" && !safeRefPath(name) {
			return "", nil
		}
		content, found, err := readLooseRef(dir, name)
		if err != nil {
			return "", err
		}
		if !found {
			p, err := s.packed(dir)
			if err != nil {
				return "", err
			}
			sha, ok := p.lookup(name)
			if !ok {
				// A concurrent pack-refs writes packed-refs before it
				// removes the loose file, and a ref update writes its
				// loose file before dropping the packed entry: look at
				// the loose file once more before calling it missing.
				if content, found, err = readLooseRef(dir, name); err != nil || !found {
					return "", err
				}
			} else {
				return sha, nil
			}
		}
		if target, ok := strings.CutPrefix(content, "ref: "); ok {
			name = strings.TrimSpace(target)
			continue
		}
		if isObjectID(content) {
			return strings.ToLower(content), nil
		}
		return "", nil // a broken ref reads as missing, as in git
	}
	return "", nil
}

// safeRefPath reports whether name is a ref under refs/ that can be read
// as a file below the git dir: no empty, "." or ".." component, no
// control characters. (A ref's full name may be longer than
// ValidRefName's limit on branch and tag names.)
func safeRefPath(name string) bool {
	if !strings.HasPrefix(name, "refs/") {
		return false
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || comp == "." || comp == ".." {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f || name[i] == '\\' {
			return false
		}
	}
	return true
}

// symbolicHead returns the full ref name HEAD points at, without a
// process; "" if HEAD is detached or unreadable.
func symbolicHead(path string) (string, error) {
	content, found, err := readLooseRef(path, "HEAD")
	if err != nil || !found {
		return "", err
	}
	target, ok := strings.CutPrefix(content, "ref: ")
	if !ok {
		return "", nil
	}
	return strings.TrimSpace(target), nil
}

// listRefs returns the full names of the refs under prefix (e.g.
// "refs/tags/") in byte order, with the object ids they point at: the
// loose files below the git dir and the packed-refs entries, a loose ref
// winning, symbolic and broken refs resolved as readRef does. It starts
// no process, and reads each loose file once. Loose files are walked before packed-refs is read: a
// concurrent pack-refs writes packed-refs before removing the loose
// files, so a ref is never missed.
func (s *Store) listRefs(path, prefix string) (names, shas []string, err error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	loose := map[string]string{} // name -> object id, "" when only readRef can tell
	var all []string
	root := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking, or no such directory
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		content, found, err := readLooseRef(dir, name)
		if err != nil || !found {
			return err
		}
		if isObjectID(content) {
			loose[name] = strings.ToLower(content)
		} else {
			loose[name] = "" // symbolic or broken
		}
		all = append(all, name)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	p, err := s.packed(dir)
	if err != nil {
		return nil, nil, err
	}
	packedSHA := map[string]string{}
	if p != nil {
		for i := sort.SearchStrings(p.names, prefix); i < len(p.names) && strings.HasPrefix(p.names[i], prefix); i++ {
			if _, ok := loose[p.names[i]]; !ok {
				packedSHA[p.names[i]] = p.shas[i]
				all = append(all, p.names[i])
			}
		}
	}
	sort.Strings(all)
	for _, name := range all {
		sha, isLoose := loose[name]
		switch {
		case isLoose && sha == "":
			if sha, err = s.readRef(dir, name); err != nil {
				return nil, nil, err
			}
		case !isLoose:
			sha = strings.ToLower(packedSHA[name])
		}
		if sha != "" {
			names = append(names, name)
			shas = append(shas, sha)
		}
	}
	return names, shas, nil
}
