package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's answers of a repository transfer.
const (
	NewOwnerNotFoundMessage = "The new owner does not exist or cannot be found"
	TeamsNeedOrgMessage     = "Teams can only be added to organization-owned repositories"
	// TransferDeniedMessage refuses accepting or rejecting a transfer to
	// someone else.
	TransferDeniedMessage = "permission denied"
)

// NoPendingTransfer is Gitea's answer for accepting or rejecting a
// repository that has no pending transfer.
func NoPendingTransfer(repoID int64) error {
	return errs.Newf(errs.NotFound, "repository doesn't have a pending transfer [repo_id: %d]", repoID)
}

// transferTarget is the rule transfer-new-owner: the account the request's
// new_owner names, visible to the caller (404 otherwise), and the teams of
// team_ids, of that organization. Object.User is the new owner,
// Object.Teams the teams, and Object.Direct whether the transfer needs no
// acceptance: the caller is a site administrator, the new owner, or may
// create repositories in the organization.
func (c *Checker) transferTarget(ctx context.Context, s *subject) (*Object, error) {
	notFound := errs.New(errs.NotFound, NewOwnerNotFoundMessage)
	u, err := c.store.UserByName(ctx, stringField(s.req, "new_owner"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load the new owner")
	}
	if visible, err := SeesUser(ctx, c.store, u, s.caller); err != nil {
		return nil, err
	} else if !visible {
		return nil, notFound
	}
	org := u.Type == store.UserTypeOrganization
	teams := intList(s.req, "team_ids")
	if len(teams) > 0 && !org {
		return nil, errs.New(errs.Invalid, TeamsNeedOrgMessage)
	}
	for _, id := range teams {
		t, err := c.store.TeamByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errs.Newf(errs.Invalid, "team %d not found", id)
		}
		if err != nil {
			return nil, errs.Wrap(err, "load team")
		}
		if t.OrgID != u.ID {
			return nil, errs.Newf(errs.PermissionDenied, "team %d belongs not to org %d", id, u.ID)
		}
	}
	direct := s.caller.IsAdmin() || s.caller.ID() == u.ID
	if !direct && org {
		if direct, err = c.store.CanCreateOrgRepo(ctx, u.ID, s.caller.ID()); err != nil {
			return nil, err
		}
	}
	return &Object{User: u, Teams: teams, Direct: direct}, nil
}

// transferRecipient is the rule transfer-recipient: the repository has a
// pending transfer (404) that the caller may accept or reject (403): the
// recipient, or for an organization a member who may create repositories
// there. Object.Repo is the repository and Object.Transfer the transfer.
func (c *Checker) transferRecipient(ctx context.Context, s *subject) (*Object, error) {
	t, err := c.store.PendingTransfer(ctx, s.repo.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NoPendingTransfer(s.repo.ID)
	}
	if err != nil {
		return nil, errs.Wrap(err, "load pending transfer")
	}
	ok, err := c.mayAccept(ctx, t, s.caller)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.PermissionDenied, TransferDeniedMessage)
	}
	return &Object{Repo: s.repo, Transfer: t}, nil
}

// mayAccept reports whether caller may accept or reject t.
func (c *Checker) mayAccept(ctx context.Context, t *store.RepoTransfer, caller *auth.Principal) (bool, error) {
	if caller.ID() == t.RecipientID {
		return true, nil
	}
	return c.store.CanCreateOrgRepo(ctx, t.RecipientID, caller.ID())
}
