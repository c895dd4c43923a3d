package issuedeps

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/store"
)

// List returns a page of the issues issue index of from depends on
// (DependsOn) or blocks (Blocks), leaving out the issues viewer may not
// read: repositories they cannot see (access.Filter), and issues whose
// unit (issues, or pull requests) they may not read there, in the same
// query (the store's unit rule, access.Checker.IssueUnitMode's).
func (s *Service) List(ctx context.Context, rel Relation, from *access.Repo, index int64, page paging.Page, viewer *auth.Principal) ([]store.Issue, error) {
	issue, err := s.issue(ctx, from, index)
	if err != nil {
		return nil, err
	}
	return s.store.ListIssueDependencies(ctx, store.DependencyListOptions{
		IssueID: issue.ID,
		Blocks:  rel == Blocks,
		Visible: access.Filter(viewer),
		Offset:  page.Offset(),
		Limit:   page.Size,
	})
}
