package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's refusals of a pull request update (POST .../pulls/{index}/update).
var (
	// ErrUpdateMerged and ErrUpdateClosed: Gitea refuses both with 422
	// before looking at the caller.
	ErrUpdateMerged = errs.New(errs.Invalid, "pull request is already merged")
	ErrUpdateClosed = errs.New(errs.Invalid, "pull request is closed")
	// ErrNotAllowedToUpdate: the caller may not push to the head branch.
	ErrNotAllowedToUpdate = errs.New(errs.PermissionDenied, "User not allowed to update PR")
)

// pullUpdater decides who may bring a pull request's head branch up to
// date with its base (the rule pull-updater), in Gitea's order: a number
// that is no pull request is 404, a merged or closed one 422; then the
// caller must write the code of the head repository (which may be a fork
// the caller sees only through it), or of the base repository when the
// poster allows maintainers to edit (403 otherwise), and a rebase needs
// the head repository to allow rebase updates (403). The head repository
// takes the read-only rule of a code write (archived 423, mirror 403);
// a head repository that is gone or hidden is 404. The loaded Object
// carries the pull request's issue and the head repository (Repo).
func (c *Checker) pullUpdater(ctx context.Context, s *subject) (*Object, error) {
	pr, is, err := c.store.PullRequestByIndex(ctx, s.repo.ID, intField(s.req, "index"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load pull request")
	}
	switch {
	case pr.HasMerged:
		return nil, ErrUpdateMerged
	case is.IsClosed:
		return nil, ErrUpdateClosed
	}
	head := s.repo
	if pr.HeadRepoID != s.repo.ID {
		head, err = c.ResolveByID(ctx, pr.HeadRepoID, s.caller)
		if errs.KindOf(err) == errs.NotFound {
			return nil, errHeadRepoNotFound
		}
		if err != nil {
			return nil, err
		}
	}
	allowed := head.UnitMode(auth.UnitCode) >= store.AccessWrite ||
		pr.AllowMaintainerEdit && s.repo.UnitMode(auth.UnitCode) >= store.AccessWrite
	if !allowed || stringField(s.req, "style") == "rebase" && !head.AllowRebaseUpdate {
		return nil, ErrNotAllowedToUpdate
	}
	if err := ReadOnly(head, auth.WritesCode); err != nil {
		return nil, err
	}
	return &Object{Issue: is, Repo: head}, nil
}
