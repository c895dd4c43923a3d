package orgs

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/repos"
	"forge/services/store"
)

// Members is a page of the organization's members viewer sees: all of
// them for members and site administrators, else the public ones (GET
// /orgs/{org}/members); publicOnly asks for the public ones (GET
// /orgs/{org}/public_members).
func (s *Service) Members(ctx context.Context, viewer *auth.Principal, publicOnly bool, offset, limit int) ([]store.User, int64, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.store.ListOrgMembers(ctx, store.OrgMemberListOptions{
		OrgID: o.ID, PublicOnly: publicOnly || !access.SeesAllMembers(o, viewer),
		Visible: access.UserFilter(viewer), Offset: offset, Limit: limit,
	})
}

// IsMember succeeds when the user named name is a member (GET
// /orgs/{org}/members/{username}) that viewer may learn of
// (access.SeesMembership: members and site administrators learn any
// membership; other callers their own and public ones; Gitea redirects
// them to public_members instead).
func (s *Service) IsMember(ctx context.Context, name string, viewer *auth.Principal) error {
	return s.checkMember(ctx, name, viewer, func(o *access.Org, u *store.User, m store.OrgMembership) bool {
		return access.SeesMembership(o, u, m, viewer)
	})
}

// IsPublicMember succeeds when the user named name is a public member.
func (s *Service) IsPublicMember(ctx context.Context, name string, viewer *auth.Principal) error {
	return s.checkMember(ctx, name, viewer, func(_ *access.Org, _ *store.User, m store.OrgMembership) bool {
		return m.Public
	})
}

// checkMember succeeds when the user named name, as viewer sees them, is
// a member of the resolved organization and shown says viewer may learn
// it; otherwise it is the not-found answer, as for a non-member.
func (s *Service) checkMember(ctx context.Context, name string, viewer *auth.Principal, shown func(*access.Org, *store.User, store.OrgMembership) bool) error {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return err
	}
	u, err := access.VisibleUser(ctx, s.store, name, viewer)
	if err != nil {
		return err
	}
	m, err := s.store.OrgMembership(ctx, o.ID, u.ID)
	if err != nil {
		return err
	}
	if m.Member && shown(o, u, m) {
		return nil
	}
	return notFound
}

// SetPublic publicizes or conceals the caller's own membership (the
// policy's rules member-self-publicize and member-self-conceal loaded the
// account and allow only one's own).
func (s *Service) SetPublic(ctx context.Context, public bool) error {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return err
	}
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return err
	}
	if err := s.store.SetOrgMemberPublic(ctx, o.ID, on.User.ID, public); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound
		}
		return err
	}
	return nil
}

// RemoveMember removes the user named name from every team of the
// organization (nothing when not a member); the last owner stays.
func (s *Service) RemoveMember(ctx context.Context, name string, caller *auth.Principal) error {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return err
	}
	u, err := access.VisibleUser(ctx, s.store, name, caller)
	if err != nil {
		return err
	}
	if err := s.store.RemoveOrgMember(ctx, o.ID, u.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// CreateRepo makes a repository owned by the organization the call
// resolved (POST /orgs/{org}/repos), with the repos area's rules, for a
// caller the policy's rule org-repo-creator allows.
func (s *Service) CreateRepo(ctx context.Context, in repos.CreateOptions, caller *auth.Principal) (*access.Repo, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	return s.repos.Create(ctx, o.User, in, caller)
}

// Repos is a page of the organization's repositories viewer sees.
func (s *Service) Repos(ctx context.Context, viewer *auth.Principal, offset, limit int) ([]repos.Details, int64, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.repos.List(ctx, store.RepoListOptions{OwnerID: o.ID, Offset: offset, Limit: limit}, viewer)
}
