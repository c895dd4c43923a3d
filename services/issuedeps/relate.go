package issuedeps

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// errIssueNotFound is Gitea's answer for an unknown issue number here.
var errIssueNotFound = errs.New(errs.NotFound, "IsErrIssueNotExist")

// errCrossRepo is Gitea's refusal of a link to another repository when
// [service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES is off (400).
var errCrossRepo = errs.New(errs.FailedPrecondition, "CrossRepositoryDependencies not enabled")

// Other names the other issue of a relation (Gitea's IssueMeta): an
// empty Owner and Repo mean the URL's repository.
type Other struct {
	Owner, Repo string
	Index       int64
}

// Link adds (add) or removes the relation rel between issue index of
// from, the repository the policy resolved with write on its issues, and
// other, and returns the URL's issue.
//
// Every issue touched is checked: the URL's one by the policy; the other
// by access.MayRelateIssue on its own repository, with read where it is
// the blocker (…/dependencies) and write where it is the issue whose
// dependencies change (…/blocks). A repository the caller cannot read is
// 403, whether or not the issue exists.
func (s *Service) Link(ctx context.Context, rel Relation, add bool, from *access.Repo, index int64, other Other, viewer *auth.Principal) (*store.Issue, error) {
	issue, err := s.issue(ctx, from, index)
	if err != nil {
		return nil, err
	}
	if !access.SameRepo(from, other.Owner, other.Repo) && !s.allowCross {
		return nil, errCrossRepo
	}
	need, w := store.AccessRead, auth.WritesUndeclared
	if rel == Blocks {
		need, w = store.AccessWrite, auth.WritesIssues
	}
	_, related, err := s.checker.MayRelateIssue(ctx, s.store, from, other.Owner, other.Repo, other.Index, need, w, viewer)
	if err != nil {
		return nil, err
	}
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
		return nil, errIssueNotFound
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
		return nil, errIssueNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load issue")
	}
	return is, nil
}
