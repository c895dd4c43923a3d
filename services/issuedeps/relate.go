package issuedeps

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// Link adds (add) or removes the relation rel between the URL's issue
// and the other one (the request's meta), and returns the URL's issue.
// The policy's rule loaded and checked both (on), each on its own unit
// (issues, or pull requests) in its own repository: write on the issue
// whose dependencies change, read on the blocker (the URL's issue changes
// on …/dependencies, rule relate-issue; the other on …/blocks,
// relate-issue-writable).
func (s *Service) Link(ctx context.Context, rel Relation, add bool, on *access.Object) (*store.Issue, error) {
	issue, related := on.Issue, on.Related
	var err error
	dependent, blocker := issue.ID, related.ID
	if rel == Blocks {
		dependent, blocker = blocker, dependent
	}
	if add {
		err = s.store.AddIssueDependency(ctx, dependent, blocker)
	} else {
		err = s.store.RemoveIssueDependency(ctx, dependent, blocker)
	}
	if errors.Is(err, store.ErrNotFound) {
		// An issue was deleted meanwhile.
		return nil, access.ErrRelatedIssueNotFound
	}
	if err != nil {
		return nil, err
	}
	return issue, nil
}

// issue loads the URL's issue of from.
func (s *Service) issue(ctx context.Context, from *access.Repo, index int64) (*store.Issue, error) {
	is, err := s.store.IssueByIndex(ctx, from.ID, index)
	if errors.Is(err, store.ErrNotFound) {
		return nil, access.ErrRelatedIssueNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load issue")
	}
	return is, nil
}
