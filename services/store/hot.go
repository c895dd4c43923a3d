package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
)

// The authentication lookup runs on every token-authenticated request. It
// bypasses gorm's per-call statement building: one join prepared once per
// pool (a server-side prepared statement on PostgreSQL) that reads the
// token and only the owner's id and row version. The full owner row comes
// from userCache while that version is current, so any change to the user,
// by any process, is seen on the next request.
const authQuery = `SELECT t.id, t.uid, t.name, t.token_hash, t.token_last_eight, t.scope,
 t.created_unix, t.updated_unix, t.last_used_unix, u.version
 FROM access_tokens t JOIN users u ON u.id = t.uid WHERE t.token_hash = ?`

// generationQuery reads the authentication generation (migration 0092):
// a short statement, as the pure-Go SQLite driver parses it on every run.
const generationQuery = `SELECT value FROM auth_generation WHERE id = 1`

func (s *Store) prepareHot(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	q := authQuery
	if s.postgres {
		q = strings.Replace(q, "?", "$1", 1)
	}
	stmt, err := sqlDB.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	gen, err := sqlDB.PrepareContext(ctx, generationQuery)
	if err != nil {
		stmt.Close()
		return err
	}
	s.hotMu.Lock()
	s.authStmt, s.genStmt = stmt, gen
	s.hotMu.Unlock()
	return nil
}

func (s *Store) hotStatements(ctx context.Context) (auth, gen *sql.Stmt, err error) {
	s.hotMu.Lock()
	auth, gen = s.authStmt, s.genStmt
	s.hotMu.Unlock()
	if auth != nil {
		return auth, gen, nil
	}
	if err := s.prepareHot(ctx); err != nil {
		return nil, nil, err
	}
	s.hotMu.Lock()
	defer s.hotMu.Unlock()
	return s.authStmt, s.genStmt, nil
}

// AuthGeneration is the authentication generation: a number the database
// bumps in the same transaction as any change to a user row or the
// deletion of a token (migration 0092's triggers), whichever process
// makes it. A cache of what tokens authenticate as is valid while this
// number is unchanged: read it before each use, and before loading what
// is cached under it.
func (s *Store) AuthGeneration(ctx context.Context) (int64, error) {
	_, stmt, err := s.hotStatements(ctx)
	if err != nil {
		return 0, err
	}
	var v int64
	if err := stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

// AccessTokenByHash finds a token by the SHA-256 of its value, with its
// owner. Returns ErrNotFound for unknown tokens.
func (s *Store) AccessTokenByHash(ctx context.Context, hash string) (*AccessToken, *User, error) {
	stmt, _, err := s.hotStatements(ctx)
	if err != nil {
		return nil, nil, err
	}
	var t AccessToken
	var version int64
	err = stmt.QueryRowContext(ctx, hash).Scan(&t.ID, &t.UID, &t.Name, &t.TokenHash, &t.TokenLastEight,
		&t.Scope, &t.CreatedUnix, &t.UpdatedUnix, &t.LastUsedUnix, &version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	if u, ok := s.users.get(t.UID, version); ok {
		return &t, u, nil
	}
	u, err := s.UserByID(ctx, t.UID)
	if err != nil {
		return nil, nil, err
	}
	s.users.put(u)
	return &t, u, nil
}

// userCache holds user rows by id, each valid only for its Version.
type userCache struct {
	mu sync.RWMutex
	m  map[int64]User
}

const userCacheMax = 10000

func (c *userCache) get(id, version int64) (*User, bool) {
	c.mu.RLock()
	u, ok := c.m[id]
	c.mu.RUnlock()
	if !ok || u.Version != version {
		return nil, false
	}
	return &u, true // a copy: callers may not change the cached row
}

func (c *userCache) put(u *User) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= userCacheMax {
		c.m = make(map[int64]User) // crude bound: start over rather than track age
	}
	c.m[u.ID] = *u
}
