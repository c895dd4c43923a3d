package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's refusals of the reaction rules.
const (
	ReadReactionsMessage  = "no permission to get reactions"
	ChangeReactionMessage = "no permission to change reaction"
)

func init() {
	// issue-reactions-reader: the issue (index) exists (404) and the caller reads its unit, issues or pull requests (403).
	Rules["issue-reactions-reader"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			if s.repo.issueUnitMode(issueUnitOf(is)) < store.AccessRead {
				return nil, errs.New(errs.PermissionDenied, ReadReactionsMessage)
			}
			return &Object{Issue: is}, nil
		},
	}
	// issue-reactor: the issue (index) exists (404), the caller reads its unit and, when it is locked, writes it (403).
	Rules["issue-reactor"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			return &Object{Issue: is}, reactor(s.repo, is)
		},
	}
	// comment-reactions-reader: the comment (id) exists in the repository (404) and the caller reads its issue's unit (403).
	Rules["comment-reactions-reader"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			cm, is, err := c.commentAndIssue(ctx, s)
			if err != nil {
				return nil, err
			}
			if s.repo.issueUnitMode(issueUnitOf(is)) < store.AccessRead {
				return nil, errs.New(errs.PermissionDenied, ReadReactionsMessage)
			}
			return &Object{Issue: is, Comment: cm}, nil
		},
	}
	// comment-reactor: the comment (id) exists and the caller reads its issue's unit (404), and writes it when the issue is locked (403).
	Rules["comment-reactor"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			cm, is, err := c.commentAndIssue(ctx, s)
			if err != nil {
				return nil, err
			}
			if s.repo.issueUnitMode(issueUnitOf(is)) < store.AccessRead {
				return nil, errTargetNotFound
			}
			return &Object{Issue: is, Comment: cm}, reactor(s.repo, is)
		},
	}
}

// issueUnitOf is the unit an issue belongs to.
func issueUnitOf(is *store.Issue) auth.Unit {
	if is.IsPull {
		return auth.UnitPulls
	}
	return auth.UnitIssues
}

// reactor allows readers of the issue's unit, and on a locked issue its
// writers only.
func reactor(r *Repo, is *store.Issue) error {
	mode := r.issueUnitMode(issueUnitOf(is))
	if mode < store.AccessRead || (is.IsLocked && mode < store.AccessWrite) {
		return errs.New(errs.PermissionDenied, ChangeReactionMessage)
	}
	return nil
}

// commentAndIssue loads the comment the request's id names in the
// resolved repository, and its issue.
func (c *Checker) commentAndIssue(ctx context.Context, s *subject) (*store.Comment, *store.Issue, error) {
	cm, err := c.comment(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	is, err := c.store.IssueByID(ctx, cm.IssueID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errTargetNotFound
	}
	if err != nil {
		return nil, nil, errs.Wrap(err, "load issue")
	}
	return cm, is, nil
}
