package access

import (
	"context"
	"errors"

	"forge/services/errs"
	"forge/services/store"
)

// Gitea's refusals of the review rules.
const (
	// DeleteReviewMessage refuses deleting another's review.
	DeleteReviewMessage = "only admin and user itself can delete a review"
)

// pullReview loads the pull request the request's index names (the rule
// pull-review): a number that is a plain issue or unused is 404. The
// policy admitted a reader of the pulls unit, the rule's Reads a reader of
// the code. The loaded Object carries the pull request's issue.
func (c *Checker) pullReview(ctx context.Context, s *subject) (*Object, error) {
	is, err := c.issue(ctx, s, errTargetNotFound)
	if err != nil {
		return nil, err
	}
	if !is.IsPull {
		return nil, errTargetNotFound
	}
	return &Object{Issue: is}, nil
}

// reviewVisible loads the pull request and the review the request's id
// names (the rule pull-review-visible): a review of another pull request,
// or a pending review of someone else (unless the caller is a site
// administrator), is 404, as Gitea.
func (c *Checker) reviewVisible(ctx context.Context, s *subject) (*Object, error) {
	o, err := c.pullReview(ctx, s)
	if err != nil {
		return nil, err
	}
	r, err := c.store.ReviewByID(ctx, intField(s.req, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load review")
	}
	if r.IssueID != o.Issue.ID {
		return nil, errTargetNotFound
	}
	if r.Type == store.ReviewPending && (s.caller == nil || (!s.caller.IsAdmin() && s.caller.ID() != r.ReviewerID)) {
		return nil, errTargetNotFound
	}
	o.Review = r
	return o, nil
}

// reviewOwnerOrAdmin is reviewVisible for the review's reviewer or a site
// administrator (the rule pull-review-owner-or-admin).
func (c *Checker) reviewOwnerOrAdmin(ctx context.Context, s *subject) (*Object, error) {
	o, err := c.reviewVisible(ctx, s)
	if err != nil {
		return nil, err
	}
	if s.caller == nil || (!s.caller.IsAdmin() && s.caller.ID() != o.Review.ReviewerID) {
		return nil, errs.New(errs.PermissionDenied, DeleteReviewMessage)
	}
	return o, nil
}
