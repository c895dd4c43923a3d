package repos

import (
	"context"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// MinMirrorInterval is the shortest pull-mirror interval (Gitea's [mirror]
// MIN_INTERVAL default); 0 disables periodic syncing.
const MinMirrorInterval = 10 * time.Minute

// Edit is a change of a repository's settings (Gitea's EditRepoOption):
// nil fields stay as they are.
type Edit struct {
	Name, Description, Website, DefaultBranch, DefaultMergeStyle *string
	// MirrorInterval is a Go duration ("8h"), applied to pull mirrors only.
	MirrorInterval *string
	Archived       *bool

	Private, Template, HasIssues, HasWiki, HasPullRequests, HasProjects,
	HasReleases, HasPackages, HasActions, IgnoreWhitespaceConflicts,
	AllowMergeCommits, AllowRebase, AllowRebaseExplicit, AllowSquashMerge,
	AllowFastForwardOnlyMerge, AllowRebaseUpdate, DefaultDeleteBranchAfterMerge,
	DefaultAllowMaintainerEdit, AllowManualMerge *bool
}

// Edit applies e to r: it checks the change, saves the record (which owns
// name uniqueness), then moves the files of a rename (putting the record
// back if they cannot move) and points HEAD at a new default branch. It
// returns the updated repository with r's owner and mode.
func (s *Service) Edit(ctx context.Context, r *access.Repo, e Edit) (*access.Repo, error) {
	mirrorInterval, err := s.checkEdit(ctx, r, e)
	if err != nil {
		return nil, err
	}
	oldName := r.Name
	updated, err := s.store.UpdateRepository(ctx, r.ID, func(rec *store.Repository) error {
		e.apply(rec)
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	if e.MirrorInterval != nil && r.IsMirror {
		if err := s.store.SetMirrorInterval(ctx, r.ID, mirrorInterval); err != nil {
			return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
		}
	}
	if !strings.EqualFold(oldName, updated.Name) {
		// The record is renamed first (it owns name uniqueness); the files
		// follow, and the record is put back if they cannot.
		oldPath, _ := s.git.RepoPath(updated.OwnerName, oldName)
		newPath, _ := s.git.RepoPath(updated.OwnerName, updated.Name)
		if err := s.git.Rename(oldPath, newPath); err != nil {
			s.store.UpdateRepository(context.WithoutCancel(ctx), r.ID, func(rec *store.Repository) error { rec.Name = oldName; return nil })
			return nil, errs.Wrap(err, "rename repository")
		}
	}
	if e.DefaultBranch != nil && !updated.IsEmpty {
		path, _ := s.git.RepoPath(updated.OwnerName, updated.Name)
		if err := s.git.SetDefaultBranch(ctx, path, updated.DefaultBranch); err != nil {
			return nil, errs.Wrap(err, "set default branch")
		}
	}
	return &access.Repo{Repository: updated, Owner: r.Owner, Mode: r.Mode}, nil
}

// checkEdit refuses an invalid change before anything is written, and
// returns the parsed mirror interval (pull mirrors only).
func (s *Service) checkEdit(ctx context.Context, r *access.Repo, e Edit) (time.Duration, error) {
	// The name's form and the description's size are declared on the
	// request and checked before the call (services/validate).
	if e.DefaultBranch != nil {
		// Checked even while the repository is empty: the name is stored
		// and later handed to git as HEAD's target.
		if err := validateDefaultBranch(*e.DefaultBranch); err != nil {
			return 0, err
		}
	}
	if e.DefaultBranch != nil && !r.IsEmpty {
		path, _ := s.git.RepoPath(r.Owner.Name, r.Name)
		if _, err := s.git.GetBranch(ctx, path, *e.DefaultBranch); err != nil {
			return 0, errs.Newf(errs.NotFound, "branch does not exist [name: %s]", *e.DefaultBranch)
		}
	}
	if e.DefaultMergeStyle != nil && !validMergeStyle(*e.DefaultMergeStyle) {
		return 0, errs.Newf(errs.Invalid, "[DefaultMergeStyle]: invalid merge style %q", *e.DefaultMergeStyle)
	}
	var mirrorInterval time.Duration
	if e.MirrorInterval != nil && r.IsMirror {
		d, err := time.ParseDuration(*e.MirrorInterval)
		if err != nil || (d != 0 && d < MinMirrorInterval) {
			return 0, errs.Newf(errs.Invalid, "[MirrorInterval]: invalid mirror interval %q (a duration of at least %s, or 0 to disable)", *e.MirrorInterval, MinMirrorInterval)
		}
		mirrorInterval = d
	}
	return mirrorInterval, nil
}

// apply writes the set fields of e into rec. Archiving stamps the time;
// unarchiving clears it.
func (e Edit) apply(rec *store.Repository) {
	setString(&rec.Name, e.Name)
	setString(&rec.Description, e.Description)
	setString(&rec.Website, e.Website)
	setString(&rec.DefaultBranch, e.DefaultBranch)
	setString(&rec.DefaultMergeStyle, e.DefaultMergeStyle)
	for _, f := range []struct {
		dst *bool
		v   *bool
	}{
		{&rec.IsPrivate, e.Private}, {&rec.IsTemplate, e.Template}, {&rec.HasIssues, e.HasIssues},
		{&rec.HasWiki, e.HasWiki}, {&rec.HasPullRequests, e.HasPullRequests}, {&rec.HasProjects, e.HasProjects},
		{&rec.HasReleases, e.HasReleases}, {&rec.HasPackages, e.HasPackages}, {&rec.HasActions, e.HasActions},
		{&rec.IgnoreWhitespaceConflicts, e.IgnoreWhitespaceConflicts}, {&rec.AllowMergeCommits, e.AllowMergeCommits},
		{&rec.AllowRebase, e.AllowRebase}, {&rec.AllowRebaseExplicit, e.AllowRebaseExplicit},
		{&rec.AllowSquashMerge, e.AllowSquashMerge}, {&rec.AllowFastForwardOnlyMerge, e.AllowFastForwardOnlyMerge},
		{&rec.AllowRebaseUpdate, e.AllowRebaseUpdate}, {&rec.DefaultDeleteBranchAfterMerge, e.DefaultDeleteBranchAfterMerge},
		{&rec.DefaultAllowMaintainerEdit, e.DefaultAllowMaintainerEdit}, {&rec.AllowManualMerge, e.AllowManualMerge},
	} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	if e.Archived != nil && *e.Archived != rec.IsArchived {
		rec.IsArchived = *e.Archived
		rec.ArchivedUnix = 0
		if rec.IsArchived {
			rec.ArchivedUnix = time.Now().Unix()
		}
	}
}

func validMergeStyle(s string) bool {
	switch s {
	case "merge", "rebase", "rebase-merge", "squash", "fast-forward-only":
		return true
	}
	return false
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}
