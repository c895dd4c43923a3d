package access

import (
	"context"
	"errors"
	"net/http"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's refusals of a merge before anything is computed.
var (
	// ErrNotAllowedToMerge: the caller reads the pull request but does not
	// write the code (405, not 403, in Gitea).
	ErrNotAllowedToMerge = errs.New(errs.PermissionDenied, "User not allowed to merge PR").WithHTTPStatus(http.StatusMethodNotAllowed)
)

// CancelAutoMergeMessage refuses cancelling another's scheduled merge.
const CancelAutoMergeMessage = "user has no permission to cancel the scheduled auto merge"

// pullMerger decides who may merge a pull request (the rule
// pull-merger), in Gitea's order: a number that is no pull request, or a
// closed one, is 404; a merged one 405 with an empty message (whoever
// asks); then a caller who does not write the code is 405 "User not
// allowed to merge PR". The loaded Object carries the pull request's
// issue.
func (c *Checker) pullMerger(ctx context.Context, s *subject) (*Object, error) {
	pr, is, err := c.store.PullRequestByIndex(ctx, s.repo.ID, intField(s.req, "index"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load pull request")
	}
	switch {
	case pr.HasMerged:
		return nil, store.ErrPullRequestMerged
	case is.IsClosed:
		return nil, errTargetNotFound
	case s.repo.UnitMode(auth.UnitCode) < store.AccessWrite:
		return nil, ErrNotAllowedToMerge
	}
	return &Object{Issue: is}, nil
}

// autoMergeCanceller decides who may cancel a scheduled merge (the rule
// auto-merge-canceller), as Gitea: a number that is no pull request, or a
// pull request without a scheduled merge, is 404; then the caller must be
// the one who scheduled it or an administrator of the repository (403).
// The loaded Object carries the pull request's issue.
func (c *Checker) autoMergeCanceller(ctx context.Context, s *subject) (*Object, error) {
	pr, is, err := c.store.PullRequestByIndex(ctx, s.repo.ID, intField(s.req, "index"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load pull request")
	}
	a, err := c.store.AutoMergeOfPull(ctx, pr.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load scheduled merge")
	}
	if a.DoerID != s.caller.ID() && s.repo.Mode < store.AccessAdmin {
		return nil, errs.New(errs.PermissionDenied, CancelAutoMergeMessage)
	}
	return &Object{Issue: is}, nil
}
