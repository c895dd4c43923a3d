package access

import (
	"context"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Refusals of the lock rules.
const (
	LockIssueMessage   = "no permission to lock this issue"
	UnlockIssueMessage = "no permission to unlock this issue"
)

func init() {
	// issue-locker: the issue (index) exists (404) and the caller writes its unit, issues or pull requests (403).
	Rules["issue-locker"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.issueWriter(ctx, s, LockIssueMessage)
		},
	}
	// issue-unlocker: as issue-locker.
	Rules["issue-unlocker"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.issueWriter(ctx, s, UnlockIssueMessage)
		},
	}
}

// issueWriter loads the request's issue and allows writers of its unit.
func (c *Checker) issueWriter(ctx context.Context, s *subject, refusal string) (*Object, error) {
	is, err := c.issue(ctx, s, errTargetNotFound)
	if err != nil {
		return nil, err
	}
	if s.repo.issueUnitMode(issueUnitOf(is)) < store.AccessWrite {
		return nil, errs.New(errs.PermissionDenied, refusal)
	}
	return &Object{Issue: is}, nil
}
