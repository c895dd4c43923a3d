package access

import (
	"context"
	"errors"
	"strings"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// pullHead decides who may open a pull request (the rule pull-head): the
// policy admitted a reader of the base repository's pulls unit, the
// rule's Reads a reader of its code too (403, Gitea's group rule for
// /pulls); the caller must read the repository holding the head branch. head is "branch" (the base
// repository) or "owner:branch": the owner's fork of the base repository,
// or the base repository when owner is its owner. A fork that does not
// exist, is hidden from the caller or whose code the caller may not read
// is 404, as a missing head is. The loaded Object carries the head
// repository (Repo) with the caller's access.
func (c *Checker) pullHead(ctx context.Context, s *subject) (*Object, error) {
	owner, _, forked := strings.Cut(stringField(s.req, "head"), ":")
	if !forked || strings.EqualFold(owner, s.repo.Owner.Name) {
		return &Object{Repo: s.repo}, nil
	}
	u, err := VisibleUser(ctx, c.store, owner, s.caller)
	if err != nil {
		return nil, err
	}
	fork, err := c.store.ForkOwnedBy(ctx, s.repo.ID, u.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errHeadRepoNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load the head repository")
	}
	head, err := c.Resolve(ctx, u.Name, fork.Name, s.caller)
	if errs.KindOf(err) == errs.NotFound {
		return nil, errHeadRepoNotFound
	}
	if err != nil {
		return nil, err
	}
	if head.UnitMode(auth.UnitCode) < store.AccessRead {
		return nil, errHeadRepoNotFound
	}
	return &Object{Repo: head}, nil
}

// errHeadRepoNotFound answers for a head fork the caller cannot use.
var errHeadRepoNotFound = errs.New(errs.NotFound, "head repository does not exist")

// pullPosterOrWriter decides who may edit a pull request (the rule
// pull-poster-or-writer): its poster or a writer of the pulls unit (the
// policy's unit, s.repo.Mode); a number that is a plain issue is 404, as
// an unused one. The loaded Object carries the pull request's issue.
func (c *Checker) pullPosterOrWriter(ctx context.Context, s *subject) (*Object, error) {
	is, err := c.issue(ctx, s, errTargetNotFound)
	if err != nil {
		return nil, err
	}
	if !is.IsPull {
		return nil, errTargetNotFound
	}
	return &Object{Issue: is}, posterOrWriter(s.repo, s.caller, is.PosterID, NotPosterMessage)
}
