package repos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"forge/services/failpoint"
	"forge/services/git"
	"forge/services/store"
)

// Syncer keeps the database in step with a repository's git refs after
// anything moved them: a push, a branch or file change through the API, a
// mirror sync.
//
// Two paths write the branch and tag records (and, with them, the
// webhook events of each ref change). Apply, called by whoever moved the
// refs, records them at once so the API shows the change immediately. The
// reconciler (reconcile.go) makes that reliable: git journals every ref
// transaction before and after it moves the refs (git.Store.RefJournal),
// and the reconciler re-reads just the journaled refs and fixes their
// records at start-up, every few seconds, and after Apply failed, leaving
// refs moved less than WriterGrace ago to their writer's Apply (whose
// records name the pusher). A crash between the ref move and the record,
// or a busy database, delays the record; it never loses it.
type Syncer struct {
	Store SyncStore
	Git   *git.Store
	// OnChange hooks run after refs changed and were recorded (push mirrors
	// with sync_on_commit). They must return quickly.
	OnChange []func(ctx context.Context, repoID int64)

	kickOnce sync.Once
	kick     chan struct{}
	wakeMu   sync.Mutex
	wake     *time.Timer // Kicks when an entry left to its writer comes of age
	wakeAt   time.Time   // when wake fires
}

// FailpointAfterRefUpdate is the test-only failpoint (see package
// failpoint) between a ref move and its record.
const FailpointAfterRefUpdate = "after-ref-update"

// Apply records the branch and tag updates among updates. The records
// follow git's current value of each named ref, read while the
// repository's record is locked, so concurrent writers converge; the
// webhook events of each change are written with its record, once. The
// first branch pushed into an empty repository whose default branch does
// not exist becomes the default. When recording fails the reconciler is
// woken to retry.
func (s *Syncer) Apply(ctx context.Context, repo *store.Repository, pusherID int64, updates []git.RefUpdate) error {
	failpoint.Hit(FailpointAfterRefUpdate)
	var names, tags []string
	prior := map[string]string{}
	for _, u := range updates {
		switch {
		case u.IsBranch():
			names = append(names, u.ShortName())
		case u.IsTag():
			tags = append(tags, u.ShortName())
			prior[u.ShortName()] = u.OldSHA
		}
	}
	err := s.record(ctx, repo, pusherID, names, len(updates) > 0)
	if terr := s.recordTags(ctx, repo, pusherID, tags, prior); terr != nil {
		err = errors.Join(err, terr)
	}
	if err != nil {
		s.Kick()
	}
	return err
}

// recordTags brings the records of the named tags in step with git, with
// the webhook events of each change as Gitea 1.22 sends them (a new tag
// is a push and a create, a moved tag a push, a deleted tag a push to
// zeros and a delete). prior holds the tags' values before the change
// where the caller knows them (used only for a repository whose tags were
// never recorded).
func (s *Syncer) recordTags(ctx context.Context, repo *store.Repository, actorID int64, names []string, prior map[string]string) error {
	if len(names) == 0 {
		return nil
	}
	path, err := s.Git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	read := func(_ context.Context, names []string) (map[string]string, error) {
		refs, err := s.Git.TagRefs(path, names)
		if err != nil {
			return nil, fmt.Errorf("read tags: %w", err)
		}
		return refs, nil
	}
	all := func(context.Context) (map[string]string, error) { return s.Git.AllTagRefs(path) }
	_, err = s.Store.SyncTagRefs(ctx, repo.ID, actorID, names, read, all, prior)
	return err
}

// record brings the records of the named branches in step with git and,
// when notify is set or a record changed, runs the change hooks and fixes
// the default branch.
func (s *Syncer) record(ctx context.Context, repo *store.Repository, pusherID int64, names []string, notify bool) error {
	path, err := s.Git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	read := func(ctx context.Context, names []string) ([]store.BranchUpdate, error) {
		heads, err := s.Git.BranchesByName(ctx, path, names)
		if err != nil {
			return nil, fmt.Errorf("read branches: %w", err)
		}
		out := make([]store.BranchUpdate, len(heads))
		for i, b := range heads {
			out[i] = branchUpdate(b)
		}
		return out, nil
	}
	all := func(ctx context.Context) ([]store.BranchUpdate, error) {
		branches, err := s.Git.ListBranches(ctx, path)
		if err != nil {
			return nil, err
		}
		out := make([]store.BranchUpdate, len(branches))
		for i, b := range branches {
			out[i] = branchUpdate(b)
		}
		return out, nil
	}
	changed, err := s.Store.SyncBranchHeads(ctx, repo.ID, pusherID, names, read, all)
	if err != nil {
		return err
	}
	if !notify && !changed {
		return nil
	}
	for _, hook := range s.OnChange {
		hook(ctx, repo.ID)
	}
	if len(names) == 0 {
		return nil
	}
	return s.fixDefaultBranch(ctx, repo, path, names)
}

// fixDefaultBranch points HEAD (and the record) at the first existing
// branch among candidates when the configured default branch does not
// exist in git.
func (s *Syncer) fixDefaultBranch(ctx context.Context, repo *store.Repository, path string, candidates []string) error {
	if _, err := s.Git.GetBranch(ctx, path, repo.DefaultBranch); err == nil {
		return nil
	}
	heads, err := s.Git.BranchesByName(ctx, path, candidates)
	if err != nil || len(heads) == 0 {
		return err
	}
	candidate := heads[0].Name
	if err := s.Git.SetDefaultBranch(ctx, path, candidate); err != nil {
		return err
	}
	_, err = s.Store.UpdateRepository(ctx, repo.ID, func(r *store.Repository) error {
		r.DefaultBranch = candidate
		return nil
	})
	return err
}

func branchUpdate(b git.Branch) store.BranchUpdate {
	return store.BranchUpdate{
		Name:          b.Name,
		CommitID:      b.Commit.SHA,
		CommitMessage: b.Commit.Message,
		CommitUnix:    b.Commit.Committer.When.Unix(),
	}
}
