package git

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Archives are cached on disk per repository, commit, format, prefix and
// (for bundles) ref name: what `git archive` or `git bundle` produces
// from them never changes. An entry is written to a temporary file while
// it is streamed to the first requester and renamed into place only when
// git succeeded, so a crash or a cancelled request never leaves a torn
// entry; later requests are copied from the file without starting git.
// Entries of a repository live in one directory, removed with the
// repository (Delete, and Rename: the prefix is the repository's name).
// The whole cache is bounded in bytes; past the bound the least recently
// used entries (by modification time, refreshed on every hit) go first.

// DefaultArchiveCacheBytes bounds the archive cache when SetArchiveCache
// is given no bound.
const DefaultArchiveCacheBytes = 1 << 30

type archiveCache struct {
	dir string
	max int64

	mu      sync.Mutex
	used    int64
	counted bool
}

// SetArchiveCache caches produced archives under dir, at most max bytes
// in all (max < 1: DefaultArchiveCacheBytes). dir "" turns caching off.
// Call it before the Store is used.
func (s *Store) SetArchiveCache(dir string, max int64) {
	if max < 1 {
		max = DefaultArchiveCacheBytes
	}
	s.archives = &archiveCache{dir: dir, max: max}
	if dir == "" {
		s.archives = nil
	}
}

// repoDir is the directory of a repository's entries.
func (c *archiveCache) repoDir(path string) string {
	sum := sha256.Sum256([]byte(absPath(path)))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:16]))
}

// entry is the file of one archive.
func (c *archiveCache) entry(path string, rev Revision, format ArchiveFormat, prefix string) string {
	ref := ""
	if format == ArchiveBundle {
		ref = string(rev.Kind) + ":" + rev.Name
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{string(format), prefix, ref, rev.SHA}, "\x00")))
	return filepath.Join(c.repoDir(path), hex.EncodeToString(sum[:])+"."+string(format))
}

// serve copies a cached entry to w; false when there is none.
func (c *archiveCache) serve(file string, w io.Writer) (bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	now := time.Now()
	os.Chtimes(file, now, now) // recently used: evicted last
	_, err = io.Copy(w, f)
	return true, err
}

// create opens a temporary file beside file's directory.
func (c *archiveCache) create(file string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
		return nil, err
	}
	return os.CreateTemp(filepath.Dir(file), ".tmp-*")
}

// commit moves a complete temporary file into place and evicts past the
// bound.
func (c *archiveCache) commit(tmp *os.File, file string) error {
	st, err := tmp.Stat()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.counted {
		c.used = 0
		c.walk(func(_ string, info fs.FileInfo) { c.used += info.Size() })
		c.sweepTemps()
		c.counted = true
	} else {
		c.used += st.Size()
	}
	if c.used > c.max {
		c.evictLocked()
	}
	return nil
}

// walk visits the complete entries.
func (c *archiveCache) walk(fn func(path string, info fs.FileInfo)) {
	filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fn(p, info)
		}
		return nil
	})
}

// evictLocked removes the least recently used entries until the cache
// holds at most nine tenths of its bound.
func (c *archiveCache) evictLocked() {
	type ent struct {
		path string
		size int64
		mod  time.Time
	}
	var all []ent
	c.used = 0
	c.walk(func(p string, info fs.FileInfo) {
		all = append(all, ent{p, info.Size(), info.ModTime()})
		c.used += info.Size()
	})
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, e := range all {
		if c.used <= c.max/10*9 {
			break
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			c.used -= e.size
		}
	}
}

// sweepTemps removes temporary files a crashed process left (an hour
// old: no archive takes that long to make).
func (c *archiveCache) sweepTemps() {
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().Before(old) {
			os.Remove(p)
		}
		return nil
	})
}

// forget removes a repository's entries.
func (c *archiveCache) forget(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	os.RemoveAll(c.repoDir(path))
	c.counted = false
}
