package auth

import (
	"sync"

	"forge/services/store"
)

// principalCache holds what each recently used token authenticates as,
// keyed by the token's SHA-256 (the raw token is never kept), so that a
// token-authenticated request costs one tiny query (the generation)
// instead of the token and user lookup.
//
// It is invalidated, never timed out: every entry belongs to the
// authentication generation (store.AuthGeneration) it was loaded under,
// and the whole cache is dropped as soon as a request reads a different
// generation. The database bumps the generation, by triggers, in the same
// transaction as any change to a user row (deactivation, admin or
// restricted flags, password, profile, deletion) or any token deletion,
// whichever process commits it. Every request reads the generation before
// it trusts the cache, so a request that starts after such a change has
// committed is judged on the new state, in every process sharing the
// database. Missing and refused tokens are not cached.
type principalCache struct {
	mu  sync.RWMutex
	gen int64
	m   map[string]cachedPrincipal
}

type cachedPrincipal struct {
	token  store.AccessToken
	user   store.User
	scopes Scopes
}

// principalCacheMax bounds the entries: past it the cache starts over
// (the cost is one lookup per token in use).
const principalCacheMax = 10000

// get returns a fresh principal for the token with this hash, valid at
// generation gen, or nil. Each call gets its own copies of the token and
// user rows: callers may change them.
func (c *principalCache) get(gen int64, hash string, method Method) *Principal {
	c.mu.RLock()
	e, ok := c.m[hash]
	cur := c.gen
	c.mu.RUnlock()
	if !ok || cur != gen {
		return nil
	}
	return &Principal{User: &e.user, Method: method, Token: &e.token, Scopes: e.scopes}
}

// put caches what was loaded after generation gen was read. Entries of an
// older generation are dropped first; a load older than the cache's
// generation is not kept.
func (c *principalCache) put(gen int64, hash string, tok *store.AccessToken, u *store.User, scopes Scopes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen < c.gen {
		return
	}
	if gen != c.gen || c.m == nil || len(c.m) >= principalCacheMax {
		c.m = make(map[string]cachedPrincipal)
		c.gen = gen
	}
	c.m[hash] = cachedPrincipal{token: *tok, user: *u, scopes: scopes}
}
