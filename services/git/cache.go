package git

import (
	"container/list"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Results keyed by object ids never change: a commit, tree or blob with a
// given id is always the same, and so are a commit's diff stats, the
// number of commits reachable from it and the last commit that touched a
// path below it. The Store keeps such results in one LRU cache bounded in
// bytes (SetCacheSize; 64 MiB by default), shared by all repositories.
//
// Keys start with the Store's repository epoch, the repository's path and
// the generation of the directory at that path: an object id read in one
// repository says nothing about another (a private repository's objects
// must not show through a public one); deleting or renaming any
// repository bumps the epoch, and a repository deleted and recreated by
// another forge process gets a new generation at the first request that
// names its database id (Identify), so a repository at the same path
// never sees its predecessor's entries.

const defaultCacheBytes = 64 << 20

// entryOverhead approximates the bookkeeping bytes of one cache entry.
const entryOverhead = 128

type lruCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	ll    *list.List
	items map[string]*list.Element
}

type lruEntry struct {
	key  string
	val  any
	size int64
}

// SetCacheSize bounds the object cache to n bytes (n < 1: the default,
// 64 MiB). Call it before the Store is used.
func (s *Store) SetCacheSize(n int64) { s.cache.max = n }

func (c *lruCache) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		return nil, false
	}
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry).val, true
}

// add stores val under key, counting size bytes for it (plus key and
// overhead); entries larger than an eighth of the cache are not kept.
func (c *lruCache) add(key string, val any, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.max
	if max < 1 {
		max = defaultCacheBytes
	}
	size += int64(len(key)) + entryOverhead
	if size > max/8 {
		return
	}
	if c.items == nil {
		c.items = map[string]*list.Element{}
		c.ll = list.New()
	}
	if e, ok := c.items[key]; ok {
		old := e.Value.(*lruEntry)
		c.used += size - old.size
		old.val, old.size = val, size
		c.ll.MoveToFront(e)
	} else {
		c.items[key] = c.ll.PushFront(&lruEntry{key: key, val: val, size: size})
		c.used += size
	}
	for c.used > max {
		e := c.ll.Back()
		ent := e.Value.(*lruEntry)
		c.ll.Remove(e)
		delete(c.items, ent.key)
		c.used -= ent.size
	}
}

// cacheKey is the key of what kind says about id in the repository at
// path.
func (s *Store) cacheKey(path, kind, id string) string {
	dir, err := filepath.Abs(path)
	if err != nil {
		dir = path
	}
	return strconv.FormatInt(s.repoEpoch.Load(), 10) + "\x00" + dir + "\x00" +
		strconv.FormatInt(s.repoIDs.generation(dir), 10) + "\x00" + kind + "\x00" + id
}

// repoIdentities tells apart successive repositories at one path when
// another forge process deleted and recreated it (Delete and Rename in
// this process bump the epoch instead): each path gets a generation that
// changes when the repository at the path is a different one. Two signs
// tell: the database id the request layer names with Identify, on every
// request, which changes with any recreation; and, for callers that name
// none, the directory itself (a new inode), looked at again at most once
// per identityCheck (a directory can reuse the inode of a deleted one, so
// that alone is not enough).
type repoIdentities struct {
	mu   sync.Mutex
	m    map[string]*repoIdentity
	next int64
}

type repoIdentity struct {
	fi      os.FileInfo
	gen     int64
	checked time.Time
	repoID  int64 // the last id named by Identify; 0: none since the generation began
}

// Identify tells the Store that the repository at path is the one the
// database knows by repoID, as read for the current request. When the
// path last held another repository (deleted and recreated by another
// process: a new id), results cached for it are not used again; calls
// made for requests that name repoID afterwards see only this one's, and
// cat-file readers started in the old one (which keep its packs open,
// and pass the inode check when the inode was reused) are not reused
// (getReader compares generations).
func (s *Store) Identify(path string, repoID int64) {
	dir, err := filepath.Abs(path)
	if err != nil {
		dir = path
	}
	s.repoIDs.identify(dir, repoID)
}

func (r *repoIdentities) identify(dir string, repoID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id := r.m[dir]; id != nil && id.repoID == repoID {
		return
	}
	fi, err := os.Stat(dir)
	if err != nil {
		delete(r.m, dir) // nothing there: generation looks again
		return
	}
	// A generation begun without an id may hold another repository's
	// results: a new one starts.
	r.start(dir, fi, time.Now()).repoID = repoID
}

const maxIdentities = 4096

// identityCheck is how often a repository directory's identity is looked
// at again (a variable for tests).
var identityCheck = time.Second

func (r *repoIdentities) generation(dir string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	id := r.m[dir]
	if id != nil && now.Sub(id.checked) < identityCheck {
		return id.gen
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return -1 // no repository: nothing is read, so nothing is cached under it
	}
	if id != nil && os.SameFile(id.fi, fi) {
		id.checked = now
		return id.gen
	}
	return r.start(dir, fi, now).gen
}

// start begins a new generation for the directory fi at dir.
func (r *repoIdentities) start(dir string, fi os.FileInfo, now time.Time) *repoIdentity {
	if r.m == nil || len(r.m) >= maxIdentities {
		r.m = map[string]*repoIdentity{}
	}
	r.next++
	id := &repoIdentity{fi: fi, gen: r.next, checked: now}
	r.m[dir] = id
	return id
}
