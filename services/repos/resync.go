package repos

import (
	"context"

	"forge/services/store"
)

// Resync brings every branch record of repo in step with git, as the
// reconciler does for journaled refs: a branch in git without a record is
// recorded, a record whose branch is gone is removed, a moved one is
// updated. recorded names the branches that have records. forge restore
// runs it on every restored repository (git copied after the database
// snapshot may be ahead of its records) and forge doctor --fix on the
// repositories whose records drifted.
func (s *Syncer) Resync(ctx context.Context, repo *store.Repository, recorded []string) error {
	path, err := s.Git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return err
	}
	branches, err := s.Git.ListBranches(ctx, path)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var names []string
	for _, b := range branches {
		if !seen[b.Name] {
			seen[b.Name] = true
			names = append(names, b.Name)
		}
	}
	for _, n := range recorded {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return s.record(ctx, repo, 0, names, false)
}
