package repos

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Collaborators is a page of r's collaborators that viewer may see
// (users.Filter), and their total.
func (s *Service) Collaborators(ctx context.Context, r *access.Repo, viewer *auth.Principal, offset, limit int) ([]store.Collaborator, int64, error) {
	list, total, err := s.store.ListCollaborators(ctx, r.ID, access.UserFilter(viewer), offset, limit)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list collaborators")
	}
	return list, total, nil
}

// collaborator is the named user as viewer sees them: an account hidden
// from viewer, like an organization, is as unknown as a missing one.
func (s *Service) collaborator(ctx context.Context, name string, viewer *auth.Principal) (*store.User, error) {
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if err != nil {
		return nil, err
	}
	if u.Type != store.UserTypeIndividual {
		return nil, access.UserNotFound(name)
	}
	return u, nil
}

// CheckCollaborator is nil when name is a collaborator of r, NotFound
// otherwise.
func (s *Service) CheckCollaborator(ctx context.Context, r *access.Repo, name string, viewer *auth.Principal) error {
	u, err := s.collaborator(ctx, name, viewer)
	if err != nil {
		return err
	}
	mode, err := s.store.CollaboratorMode(ctx, r.ID, u.ID)
	if err != nil {
		return errs.Wrap(err, "read collaborator")
	}
	if mode == store.AccessNone {
		return errs.Newf(errs.NotFound, "%s is not a collaborator", u.Name)
	}
	return nil
}

// AddCollaborator makes name a collaborator of r with permission (read,
// write, admin; "" is write), or changes their permission. An unknown
// user is an invalid argument here, as in Gitea; the owner cannot be one.
func (s *Service) AddCollaborator(ctx context.Context, r *access.Repo, name, permission string, viewer *auth.Principal) error {
	mode := store.AccessWrite
	// A value set with its own message: not a declared field rule.
	if p := permission; p != "" {
		m, ok := store.ParseAccessMode(p)
		if !ok {
			return errs.Newf(errs.Invalid, "[Permission]: invalid permission %q (read, write, admin)", p)
		}
		mode = m
	}
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if errs.KindOf(err) == errs.NotFound || (err == nil && u.Type != store.UserTypeIndividual) {
		return errs.Newf(errs.Invalid, "user does not exist [name: %s]", name)
	}
	if err != nil {
		return err
	}
	if u.ID == r.OwnerID {
		return errs.New(errs.Invalid, "the owner cannot be a collaborator of their own repository")
	}
	if err := s.store.SetCollaborator(ctx, r.ID, u.ID, mode); err != nil {
		return errs.Wrap(err, "set collaborator")
	}
	return nil
}

// DeleteCollaborator removes name from r's collaborators; NotFound when
// they are not one.
func (s *Service) DeleteCollaborator(ctx context.Context, r *access.Repo, name string, viewer *auth.Principal) error {
	u, err := s.collaborator(ctx, name, viewer)
	if err != nil {
		return err
	}
	if err := s.store.DeleteCollaborator(ctx, r.ID, u.ID); err != nil {
		return errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, u.Name+" is not a collaborator"))
	}
	return nil
}

// CollaboratorPermission is u's access to r (the policy's rule
// collaborator-self-or-repo-admin loaded u and allowed the question).
func (s *Service) CollaboratorPermission(ctx context.Context, r *access.Repo, u *store.User) (store.AccessMode, error) {
	return s.access.Mode(ctx, r.Repository, &auth.Principal{User: u})
}
