package git

import (
	"context"
	"path/filepath"
	"sync"
)

// refLocks is a set of mutexes keyed by repository and ref, created on
// demand and dropped when nobody holds or waits for them.
type refLocks struct {
	mu sync.Mutex
	m  map[string]*refLock
}

type refLock struct {
	ch   chan struct{} // holds one token while the lock is held
	refs int           // holders and waiters
}

// LockRef serializes, within this process, the writers of one ref of the
// repository at path: read the head, build a commit, swap the ref, record
// it. Writers that do not overlap then all succeed instead of losing the
// compare-and-swap to each other; ChangeFiles still retries against
// writers in other processes. It waits until the lock is free or ctx is
// done, and returns the function that releases it.
func (s *Store) LockRef(ctx context.Context, path, ref string) (unlock func(), err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, invalidf("repository path")
	}
	key := abs + "\x00" + ref
	l := &s.refLocks
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*refLock)
	}
	e := l.m[key]
	if e == nil {
		e = &refLock{ch: make(chan struct{}, 1)}
		l.m[key] = e
	}
	e.refs++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-e.ch
			release()
		})
	}, nil
}
