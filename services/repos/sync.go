package repos

import (
	"context"
	"fmt"

	"forge/services/git"
	"forge/services/store"
)

// Syncer keeps the database in step with a repository's git refs after
// anything moved them: a push, a branch or file change through the API, a
// mirror sync.
type Syncer struct {
	Store *store.Store
	Git   *git.Store
	// OnChange hooks run after refs changed and were recorded (push mirrors
	// with sync_on_commit). They must return quickly.
	OnChange []func(ctx context.Context, repoID int64)
}

// Apply records the branch updates among updates (tags are read from git
// when listed and need no records). The first branch pushed into an empty
// repository whose default branch does not exist becomes the default.
func (s *Syncer) Apply(ctx context.Context, repo *store.Repository, pusherID int64, updates []git.RefUpdate) error {
	path, err := s.Git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	var changed []store.BranchUpdate
	var names []string
	for _, u := range updates {
		if !u.IsBranch() {
			continue
		}
		if u.IsDelete() {
			changed = append(changed, store.BranchUpdate{Name: u.ShortName(), Deleted: true})
		} else {
			names = append(names, u.ShortName())
		}
	}
	if len(names) > 0 {
		heads, err := s.Git.BranchesByName(ctx, path, names)
		if err != nil {
			return fmt.Errorf("read pushed branches: %w", err)
		}
		for _, b := range heads {
			changed = append(changed, branchUpdate(b))
		}
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
	if err := s.Store.SyncBranches(ctx, repo.ID, pusherID, changed, all); err != nil {
		return err
	}
	if len(updates) > 0 {
		for _, hook := range s.OnChange {
			hook(ctx, repo.ID)
		}
	}
	if len(names) > 0 {
		return s.fixDefaultBranch(ctx, repo, path, names[0])
	}
	return nil
}

// fixDefaultBranch points HEAD (and the record) at candidate when the
// configured default branch does not exist in git.
func (s *Syncer) fixDefaultBranch(ctx context.Context, repo *store.Repository, path, candidate string) error {
	if _, err := s.Git.GetBranch(ctx, path, repo.DefaultBranch); err == nil {
		return nil
	}
	if err := s.Git.SetDefaultBranch(ctx, path, candidate); err != nil {
		return err
	}
	_, err := s.Store.UpdateRepository(ctx, repo.ID, func(r *store.Repository) error {
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
