package access

import (
	"context"
	"strings"
	"sync"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// resolved caches what resolving a repository reads, the owner's row and
// the repository's, by owner and name and by id, so that the check of a
// call naming a repository costs no lookup. The caller's access is not
// cached: it is computed afresh on every call (modes).
//
// Like the principal cache (auth/cache.go) it is invalidated, never timed
// out: every entry belongs to the generation (store.Generation) read
// before it was loaded, and the whole cache is dropped as soon as a call
// reads another one. The database moves the generation, by triggers, in
// the transaction of any change to a user row (renames, visibility,
// deletion: the owner) or to a repository row (renames, transfers,
// visibility, units, settings, deletion), whichever process commits it,
// so a call that starts after such a change has committed resolves on
// the new state, in every process. The repository counters the issue,
// watch, star and fork writes move do not move the generation; a cached
// row's counters are reloaded on every use. Missing repositories are not
// cached.
type resolved struct {
	mu     sync.RWMutex
	gen    store.Generation
	byName map[string]*resolvedEntry
	byID   map[int64]*resolvedEntry
}

// resolvedEntry is never changed once cached; users get copies.
type resolvedEntry struct {
	owner store.User
	repo  store.Repository
}

// resolvedMax bounds the entries: past it the cache starts over.
const resolvedMax = 10000

func nameKey(owner, name string) string {
	return strings.ToLower(owner) + "/" + strings.ToLower(name)
}

// byNameGet and byIDGet return copies of the owner and repository rows
// valid at generation gen, or nils.
func (c *resolved) byNameGet(gen store.Generation, owner, name string) (*store.User, *store.Repository) {
	c.mu.RLock()
	e := c.byName[nameKey(owner, name)]
	cur := c.gen
	c.mu.RUnlock()
	return e.copies(cur == gen)
}

func (c *resolved) byIDGet(gen store.Generation, id int64) (*store.User, *store.Repository) {
	c.mu.RLock()
	e := c.byID[id]
	cur := c.gen
	c.mu.RUnlock()
	return e.copies(cur == gen)
}

func (e *resolvedEntry) copies(valid bool) (*store.User, *store.Repository) {
	if e == nil || !valid {
		return nil, nil
	}
	o, r := e.owner, e.repo
	return &o, &r
}

// put caches rows loaded after generation gen was read. An older
// generation's entries are dropped first; a load older than the cache's
// generation is not kept.
func (c *resolved) put(gen store.Generation, o *store.User, r *store.Repository) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		if gen.Auth < c.gen.Auth || gen.Resource < c.gen.Resource {
			return
		}
		c.byName, c.byID = nil, nil
		c.gen = gen
	}
	if c.byName == nil || len(c.byID) >= resolvedMax {
		c.byName, c.byID = map[string]*resolvedEntry{}, map[int64]*resolvedEntry{}
	}
	e := &resolvedEntry{owner: *o, repo: *r}
	c.byName[nameKey(o.Name, r.Name)] = e
	c.byID[r.ID] = e
}

// lookupByName is the owner and the repository named owner/name, from
// the cache while the generation holds, with fresh counters. A missing
// owner or repository is store.ErrNotFound, with notFoundOwner true for
// the owner.
func (c *Checker) lookupByName(ctx context.Context, owner, name string) (o *store.User, r *store.Repository, notFoundOwner bool, err error) {
	gen, err := auth.CurrentGeneration(ctx, c.store)
	if err != nil {
		return nil, nil, false, errs.Wrap(err, "read generation")
	}
	if o, r := c.cache.byNameGet(gen, owner, name); o != nil {
		if err := c.store.RepositoryCounters(ctx, r); err != nil {
			return nil, nil, false, err
		}
		return o, r, false, nil
	}
	if o, err = c.store.UserByName(ctx, owner); err != nil {
		return nil, nil, true, err
	}
	if r, err = c.store.RepositoryByName(ctx, o.ID, name); err != nil {
		return nil, nil, false, err
	}
	c.cache.put(gen, o, r)
	return o, r, false, nil
}

// lookupByID is lookupByName for a repository id.
func (c *Checker) lookupByID(ctx context.Context, id int64) (*store.User, *store.Repository, error) {
	gen, err := auth.CurrentGeneration(ctx, c.store)
	if err != nil {
		return nil, nil, errs.Wrap(err, "read generation")
	}
	if o, r := c.cache.byIDGet(gen, id); o != nil {
		if err := c.store.RepositoryCounters(ctx, r); err != nil {
			return nil, nil, err
		}
		return o, r, nil
	}
	r, err := c.store.RepositoryByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	o, err := c.store.UserByID(ctx, r.OwnerID)
	if err != nil {
		return nil, nil, err
	}
	c.cache.put(gen, o, r)
	return o, r, nil
}
