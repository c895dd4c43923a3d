package access

import (
	"context"
	"strings"
	"sync"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// resolved caches what resolving a repository reads: the owner's row and
// the repository's, by owner and name and by id, and what a caller's
// access to it is computed from (their collaborator mode and their teams'
// grants), so that the check of a call naming a repository costs no
// lookup.
//
// Like the principal cache (auth/cache.go) it is invalidated, never timed
// out: every entry belongs to the generation (store.Generation) read
// before it was loaded, and the whole cache is dropped as soon as a call
// reads another one. The database moves the generation, by triggers, in
// the transaction of any change to a user row (renames, visibility,
// deletion: the owner), to a repository row (renames, transfers,
// visibility, units, settings, deletion), to a collaboration or to the
// teams (their access, units, members and repositories), whichever
// process commits it, so a call that starts after such a change has
// committed resolves on the new state, in every process. The repository
// counters the issue, watch, star and fork writes move do not move the
// generation; a cached row's counters are reloaded on every use. Missing
// repositories are not cached. Resolve called by a handler (outside the
// interceptor's check) reads the generation afresh.
type resolved struct {
	mu     sync.RWMutex
	gen    store.Generation
	byName map[string]*resolvedEntry
	byID   map[int64]*resolvedEntry
	modes  map[modesKey]modesEntry
}

// modesKey is a caller's access to a repository of an owner.
type modesKey struct{ repo, owner, user int64 }

// modesEntry is what modes reads from the store; grants is never changed.
type modesEntry struct {
	collab store.AccessMode
	grants []store.TeamGrant
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

// idByName is the id of the repository cached as owner/name under any
// generation (0 when none): a guess, for a prefetch only.
func (c *resolved) idByName(owner, name string) int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.byName[nameKey(owner, name)]; e != nil {
		return e.repo.ID
	}
	return 0
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
	if !c.at(gen) {
		return
	}
	e := &resolvedEntry{owner: *o, repo: *r}
	c.byName[nameKey(o.Name, r.Name)] = e
	c.byID[r.ID] = e
}

// at moves the cache to generation gen, dropping older entries, and
// reports whether entries loaded at gen may be kept. c.mu is held.
func (c *resolved) at(gen store.Generation) bool {
	if gen != c.gen {
		if gen.Auth < c.gen.Auth || gen.Resource < c.gen.Resource {
			return false
		}
		c.byName = nil
		c.gen = gen
	}
	if c.byName == nil || len(c.byID) >= resolvedMax || len(c.modes) >= resolvedMax {
		c.byName, c.byID, c.modes = map[string]*resolvedEntry{}, map[int64]*resolvedEntry{}, map[modesKey]modesEntry{}
	}
	return true
}

func (c *resolved) modesGet(gen store.Generation, k modesKey) (modesEntry, bool) {
	c.mu.RLock()
	e, ok := c.modes[k]
	cur := c.gen
	c.mu.RUnlock()
	return e, ok && cur == gen
}

func (c *resolved) modesPut(gen store.Generation, k modesKey, e modesEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at(gen) {
		c.modes[k] = e
	}
}

// lookupByName is the owner and the repository named owner/name, from
// the cache while the generation holds, with fresh counters. A missing
// owner or repository is store.ErrNotFound, with notFoundOwner true for
// the owner.
func (c *Checker) lookupByName(ctx context.Context, owner, name string) (gen store.Generation, o *store.User, r *store.Repository, notFoundOwner bool, err error) {
	gen, err = auth.CurrentGeneration(ctx, c.store)
	if err != nil {
		return gen, nil, nil, false, errs.Wrap(err, "read generation")
	}
	if o, r := c.cache.byNameGet(gen, owner, name); o != nil {
		if err := c.store.RepositoryCounters(ctx, r); err != nil {
			return gen, nil, nil, false, err
		}
		return gen, o, r, false, nil
	}
	if o, err = c.store.UserByName(ctx, owner); err != nil {
		return gen, nil, nil, true, err
	}
	if r, err = c.store.RepositoryByName(ctx, o.ID, name); err != nil {
		return gen, nil, nil, false, err
	}
	c.cache.put(gen, o, r)
	return gen, o, r, false, nil
}

// lookupByID is lookupByName for a repository id.
func (c *Checker) lookupByID(ctx context.Context, id int64) (store.Generation, *store.User, *store.Repository, error) {
	gen, err := auth.CurrentGeneration(ctx, c.store)
	if err != nil {
		return gen, nil, nil, errs.Wrap(err, "read generation")
	}
	if o, r := c.cache.byIDGet(gen, id); o != nil {
		if err := c.store.RepositoryCounters(ctx, r); err != nil {
			return gen, nil, nil, err
		}
		return gen, o, r, nil
	}
	r, err := c.store.RepositoryByID(ctx, id)
	if err != nil {
		return gen, nil, nil, err
	}
	o, err := c.store.UserByID(ctx, r.OwnerID)
	if err != nil {
		return gen, nil, nil, err
	}
	c.cache.put(gen, o, r)
	return gen, o, r, nil
}

// grantsOf is what modes reads for uid on r: their collaborator mode and,
// when teams may apply (teams true), their teams' grants. With gen (the
// generation the call's check read) it comes from the cache while that
// generation holds; without, from the store.
func (c *Checker) grantsOf(ctx context.Context, gen *store.Generation, r *store.Repository, uid int64, teams bool) (modesEntry, error) {
	k := modesKey{repo: r.ID, owner: r.OwnerID, user: uid}
	if gen != nil {
		if e, ok := c.cache.modesGet(*gen, k); ok {
			return e, nil
		}
	}
	var e modesEntry
	var err error
	if e.collab, err = c.store.CollaboratorMode(ctx, r.ID, uid); err != nil {
		return e, errs.Wrap(err, "access")
	}
	if teams {
		if e.grants, err = c.store.TeamGrants(ctx, r.ID, r.OwnerID, uid); err != nil {
			return e, err
		}
	}
	if gen != nil {
		c.cache.modesPut(*gen, k, e)
	}
	return e, nil
}
