package pulls

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"forge/services/errs"
	"forge/services/git"
)

// racingGit is a base branch that pushes keep moving: each of the first
// `pushes` swaps finds the branch moved to a new commit.
type racingGit struct {
	MergeGit
	tip    int
	pushes int
	built  []string // the bases merges were computed on
}

func (g *racingGit) sha() string { return fmt.Sprintf("%040d", g.tip) }

func (g *racingGit) GetBranch(ctx context.Context, path, name string) (git.Branch, error) {
	return git.Branch{Name: name, Commit: git.Commit{SHA: g.sha()}}, nil
}

func (g *racingGit) BuildMerge(ctx context.Context, path string, o git.MergeOptions) (string, error) {
	g.built = append(g.built, o.Base)
	return "merge-on-" + o.Base, nil
}

func (g *racingGit) MoveBranch(ctx context.Context, path, name, newSHA, oldSHA string) error {
	if g.pushes > 0 {
		g.pushes--
		g.tip++ // a push landed first
		return fmt.Errorf("ref moved: %w", git.ErrConflict)
	}
	if oldSHA != g.sha() {
		return git.ErrConflict
	}
	return nil
}

// A push that lands while a merge is computed makes the merge recompute
// on the pushed commit (never swap over it); a base that keeps moving is
// 409 "merge push out of date" after mergeAttempts.
func TestLandRecomputesOnAMovedBase(t *testing.T) {
	g := &racingGit{pushes: 1}
	m := &Merger{git: g}
	got, err := m.land(context.Background(), "repo", "main", g.sha(), git.MergeOptions{Style: git.MergeStyleMerge})
	if err != nil || got.old != fmt.Sprintf("%040d", 1) || got.sha != "merge-on-"+got.old || len(g.built) != 2 {
		t.Fatalf("land: %+v %v, built on %v", got, err, g.built)
	}

	g = &racingGit{pushes: mergeAttempts}
	m = &Merger{git: g}
	_, err = m.land(context.Background(), "repo", "main", g.sha(), git.MergeOptions{Style: git.MergeStyleMerge})
	if e, ok := errs.As(err); !ok || !errors.Is(err, errPushOutOfDate) || e.Kind != errs.Conflict || e.Message != "merge push out of date" {
		t.Fatalf("a base that keeps moving: %v", err)
	}
	if len(g.built) != mergeAttempts {
		t.Fatalf("computed %d times, want %d", len(g.built), mergeAttempts)
	}
}
