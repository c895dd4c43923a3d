package mirrors

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	mirrorsv1 "forge/gen/forge/mirrors/v1"
	"forge/services/store"
)

// syncPull fetches a pull mirror from its source, records the branches that
// changed and the outcome (mirror_updated or last_error). Errors end up in
// the mirror's last_error (redacted) and the log; the caller gets them too.
func (s *Server) syncPull(ctx context.Context, repo *store.Repository, m *store.Mirror) error {
	unlock := s.locks.lock("pull", repo.ID)
	defer unlock()
	err := s.fetch(ctx, repo, m)
	msg := ""
	if err != nil {
		msg = err.Error()
		logError("mirror sync", repo.ID, err)
	}
	if ferr := s.store.FinishMirrorSync(context.WithoutCancel(ctx), repo.ID, time.Now().Unix(), msg); ferr != nil && !errors.Is(ferr, store.ErrNotFound) {
		logError("record mirror sync", repo.ID, ferr)
	}
	return err
}

// fetch runs the fetch and the branch records; its error text is redacted.
func (s *Server) fetch(ctx context.Context, repo *store.Repository, m *store.Mirror) error {
	remote, err := s.openRemote(m.RemoteSealed)
	if err != nil {
		return err
	}
	target, err := s.hosts.remote(ctx, remote)
	if err != nil {
		return errors.New("remote host refused: " + err.Error())
	}
	path, err := s.git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	updates, ferr := s.git.FetchMirror(ctx, path, target)
	if ferr != nil {
		ferr = errors.New(redact(strings.ReplaceAll(ferr.Error(), path, repo.OwnerName+"/"+repo.Name), remote))
	}
	// Even a failed fetch may have moved some refs: record them (the syncer
	// also passes them on to push mirrors that follow every change).
	if len(updates) > 0 {
		if err := s.syncer.Apply(context.WithoutCancel(ctx), repo, repo.OwnerID, updates); err != nil {
			return errors.Join(ferr, errors.New("record branches: "+redact(err.Error(), remote)))
		}
	}
	return ferr
}

// push pushes every ref of repo to a push mirror and records the outcome
// (last_update or last_error).
func (s *Server) push(ctx context.Context, repo *store.Repository, pm *store.PushMirror) error {
	unlock := s.locks.lock("push", pm.ID)
	defer unlock()
	err := s.pushOnce(ctx, repo, pm)
	msg := ""
	if err != nil {
		msg = err.Error()
		logError("push mirror "+pm.RemoteName, repo.ID, err)
	}
	if ferr := s.store.FinishPushMirrorSync(context.WithoutCancel(ctx), pm.ID, time.Now().Unix(), msg); ferr != nil && !errors.Is(ferr, store.ErrNotFound) {
		logError("record push mirror sync", repo.ID, ferr)
	}
	return err
}

func (s *Server) pushOnce(ctx context.Context, repo *store.Repository, pm *store.PushMirror) error {
	remote, err := s.openRemote(pm.RemoteSealed)
	if err != nil {
		return err
	}
	target, err := s.hosts.remote(ctx, remote)
	if err != nil {
		return errors.New("remote host refused: " + err.Error())
	}
	path, err := s.git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	empty, err := s.git.IsEmpty(ctx, path)
	if err == nil && !empty {
		err = s.git.PushMirror(ctx, path, target)
	}
	if err != nil {
		return errors.New(redact(strings.ReplaceAll(err.Error(), path, repo.OwnerName+"/"+repo.Name), remote))
	}
	return nil // an empty repository has nothing to push yet
}

// logError logs a mirror failure; err must already be redacted.
func logError(what string, repoID int64, err error) {
	slog.Error(what, "repo", repoID, "err", err)
}

func renderPushMirror(repoName string, pm *store.PushMirror) *mirrorsv1.PushMirror {
	return &mirrorsv1.PushMirror{
		RepoName:      repoName,
		RemoteName:    pm.RemoteName,
		RemoteAddress: pm.RemoteAddress,
		Created:       timestamppb.New(time.Unix(pm.CreatedUnix, 0)),
		LastUpdate:    timestamppb.New(time.Unix(pm.LastUpdateUnix, 0)), // the epoch when never pushed, as Gitea
		LastError:     pm.LastError,
		Interval:      (time.Duration(pm.IntervalSecs) * time.Second).String(),
		SyncOnCommit:  pm.SyncOnCommit,
	}
}

const remoteNameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// remoteName is Gitea's push mirror remote name: remote_mirror_ and ten
// random letters or digits.
func remoteName() (string, error) {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = remoteNameChars[int(b[i])%len(remoteNameChars)]
	}
	return "remote_mirror_" + string(b), nil
}

// keyedMutex serialises work per key.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[keyedKey]*keyedLock
}

type keyedKey struct {
	kind string
	id   int64
}

type keyedLock struct {
	mu   sync.Mutex
	refs int
}

func (k *keyedMutex) lock(kind string, id int64) (unlock func()) {
	key := keyedKey{kind, id}
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[keyedKey]*keyedLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyedLock{}
		k.locks[key] = l
	}
	l.refs++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

// coalescer runs fn for a key with at most one run in progress and one
// pending: calls while a run is in progress collapse into one more run.
type coalescer struct {
	mu      sync.Mutex
	running map[int64]bool
	again   map[int64]bool
}

func (c *coalescer) run(id int64, fn func()) {
	c.mu.Lock()
	if c.running == nil {
		c.running, c.again = map[int64]bool{}, map[int64]bool{}
	}
	if c.running[id] {
		c.again[id] = true
		c.mu.Unlock()
		return
	}
	c.running[id] = true
	c.mu.Unlock()
	for {
		fn()
		c.mu.Lock()
		if !c.again[id] {
			delete(c.running, id)
			c.mu.Unlock()
			return
		}
		delete(c.again, id)
		c.mu.Unlock()
	}
}
