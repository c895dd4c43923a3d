package pulls

import (
	"context"
	"errors"
	"maps"
	"slices"

	"forge/services/git"
	"forge/services/store"
)

// SweepStore is what the sweep of stray pull request refs reads.
type SweepStore interface {
	RepositoriesAfter(ctx context.Context, afterID int64, limit int) ([]store.Repository, error)
	SweepPullHeads(ctx context.Context, repoID int64, indexes []int64, drop func(stray []int64) error) error
}

// SweepGit reads and drops pull request refs.
type SweepGit interface {
	RepoPath(owner, name string) (string, error)
	PullHeads(ctx context.Context, path string) (map[int64]string, error)
	DropPullHeads(ctx context.Context, path string, heads map[int64]string) error
}

// sweepPage is how many repositories the sweep reads at a time.
const sweepPage = 200

// SweepPullHeads removes, in every repository, the refs/pull/<index>/head
// refs that belong to no pull request (store.SweepPullHeads decides which,
// safely beside pull requests being created), and returns how many it
// removed. A ref that moved meanwhile is kept. One repository's failure
// does not stop the others.
func SweepPullHeads(ctx context.Context, s SweepStore, g SweepGit) (int, error) {
	removed := 0
	var failed []error
	for after := int64(0); ; {
		repos, err := s.RepositoriesAfter(ctx, after, sweepPage)
		if err != nil {
			return removed, err
		}
		for i := range repos {
			r := &repos[i]
			n, err := sweepRepo(ctx, s, g, r)
			removed += n
			if err != nil && !errors.Is(err, git.ErrNotFound) {
				failed = append(failed, err)
			}
		}
		if len(repos) < sweepPage || ctx.Err() != nil {
			return removed, errors.Join(append(failed, ctx.Err())...)
		}
		after = repos[len(repos)-1].ID
	}
}

func sweepRepo(ctx context.Context, s SweepStore, g SweepGit, r *store.Repository) (int, error) {
	path, err := g.RepoPath(r.OwnerName, r.Name)
	if err != nil {
		return 0, err
	}
	heads, err := g.PullHeads(ctx, path)
	if err != nil || len(heads) == 0 {
		return 0, err
	}
	indexes := slices.Sorted(maps.Keys(heads))
	removed := 0
	err = s.SweepPullHeads(ctx, r.ID, indexes, func(stray []int64) error {
		drop := make(map[int64]string, len(stray))
		for _, index := range stray {
			drop[index] = heads[index]
		}
		if err := g.DropPullHeads(ctx, path, drop); err != nil {
			return err
		}
		removed = len(drop)
		return nil
	})
	return removed, err
}
