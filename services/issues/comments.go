package issues

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Comment posts a comment on is, an issue of r (any reader; on a locked
// issue writers only: the policy's rule issue-unlocked-or-writer, which
// loaded is and answers 404 for an unknown one where Gitea answers 500).
func (s *Service) Comment(ctx context.Context, r *access.Repo, caller *auth.Principal, is *store.Issue, body string) (*store.Comment, *store.Issue, error) {
	c := &store.Comment{RepoID: r.ID, IssueID: is.ID, PosterID: caller.ID(), Content: body}
	if err := s.store.CreateComment(ctx, c); err != nil {
		return nil, nil, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	return c, is, nil
}

// GetComment returns comment id of r.
func (s *Service) GetComment(ctx context.Context, r *access.Repo, id int64) (*store.Comment, error) {
	c, err := s.store.CommentByID(ctx, r.ID, id)
	return c, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
}

// EditComment changes a comment's body (its poster or a writer: the
// policy's rule comment-poster-or-writer); the creation time stays.
func (s *Service) EditComment(ctx context.Context, r *access.Repo, id int64, body string) (*store.Comment, error) {
	c, err := s.store.UpdateComment(ctx, r.ID, id, func(c *store.Comment) error {
		c.Content = body
		return nil
	})
	return c, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
}

// DeleteComment deletes a comment (its poster or a writer: the policy's
// rule comment-poster-or-writer).
func (s *Service) DeleteComment(ctx context.Context, r *access.Repo, id int64) error {
	return errs.Replace(s.store.DeleteComment(ctx, r.ID, id), store.ErrNotFound, errIssueNotFound)
}

// CommentQuery selects comments: of one issue (Index > 0, not paged, as
// Gitea) or of the whole repository (paged).
type CommentQuery struct {
	Index         int64
	Since, Before string
	Page, Limit   int
}

// ListComments lists comments oldest first.
func (s *Service) ListComments(ctx context.Context, r *access.Repo, q CommentQuery) ([]store.Comment, int64, error) {
	o := store.CommentListOptions{RepoID: r.ID}
	var err error
	if o.Since, err = unixArg(q.Since); err != nil {
		return nil, 0, err
	}
	if o.Before, err = unixArg(q.Before); err != nil {
		return nil, 0, err
	}
	if q.Index > 0 {
		is, err := s.store.IssueByIndex(ctx, r.ID, q.Index)
		if err != nil {
			return nil, 0, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
		}
		o.IssueID, o.Limit = is.ID, maxIssueComments
	} else {
		page := s.limits.Normalize(q.Page, q.Limit)
		o.Offset, o.Limit = page.Offset(), page.Size
	}
	list, total, err := s.store.ListComments(ctx, o)
	return list, total, err
}
