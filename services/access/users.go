package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Account visibility: who sees which user or organization. It was the
// users package's; it lives here beside the repository rules so that every
// visibility decision is made in one package.

// VisibilityStore is what the visibility rule reads for a single account.
type VisibilityStore interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}

// VisibleUser loads the account named name if viewer may see it (SeesUser).
// Otherwise, and when missing, it returns the same NotFound, so a hidden
// account cannot be told from an unknown one.
func VisibleUser(ctx context.Context, st VisibilityStore, name string, viewer *auth.Principal) (*store.User, error) {
	u, err := st.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, UserNotFound(name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "access")
	}
	ok, err := SeesUser(ctx, st, u, viewer)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, UserNotFound(name)
	}
	return u, nil
}

// UserNotFound is the answer for an unknown or hidden account.
func UserNotFound(name string) error {
	return errs.Newf(errs.NotFound, "user does not exist [name: %s]", name)
}

// SeesUser applies account visibility (UserFilter) to u, asking the store only
// when a relation could still make u visible.
func SeesUser(ctx context.Context, st userVisible, u *store.User, viewer *auth.Principal) (bool, error) {
	return seesUser(ctx, st, u, UserFilter(viewer))
}

type userVisible interface {
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
}

func seesUser(ctx context.Context, st userVisible, u *store.User, f store.UserFilter) (bool, error) {
	if visible, settled := f.Settled(u); settled {
		return visible, nil
	}
	ok, err := st.UserVisible(ctx, f, u.ID)
	if err != nil {
		return false, errs.Wrap(err, "access")
	}
	return ok, nil
}

// UserFilter is the one definition of who sees which account; SeesUser and
// every store list that returns or embeds users apply it.
//
//   - Site administrators see every account; everyone signed in sees
//     themself, the owners of repositories shared with them as a
//     collaborator, and the organizations they are a member of.
//   - Anonymous viewers see public accounts.
//   - Signed-in viewers also see public and limited accounts; private
//     accounts are hidden from them.
//   - Restricted viewers (Gitea's restricted users) see nobody by
//     visibility alone: besides themself and the owners above, only the
//     public and limited accounts collaborating on a repository they own
//     or collaborate on, or members of one of their organizations.
//   - A public-only token sees, of what its user sees, the public
//     accounts only (site administrators and the token's own user
//     included): what an anonymous viewer sees, less for a restricted
//     user. Nothing of a limited or private account (its repositories,
//     teams, issues) is within the token's reach.
func UserFilter(viewer *auth.Principal) store.UserFilter {
	f := accountFilter(viewer)
	f.OnlyPublic = viewer.PublicOnly()
	return f
}

// accountFilter is UserFilter without the token's public-only limit:
// what the token's user sees.
func accountFilter(viewer *auth.Principal) store.UserFilter {
	switch {
	case viewer.IsAdmin():
		return store.UserFilter{All: true}
	case viewer == nil:
		return store.UserFilter{Visibilities: []store.Visibility{store.VisibilityPublic}}
	case viewer.User.Restricted:
		return store.UserFilter{ViewerID: viewer.ID(), Related: []store.Visibility{store.VisibilityPublic, store.VisibilityLimited}}
	}
	return store.UserFilter{ViewerID: viewer.ID(), Visibilities: []store.Visibility{store.VisibilityPublic, store.VisibilityLimited}}
}

// DropHidden removes from m the accounts viewer may not see, for services
// that embed accounts found by other means (release publishers, commit
// authors, issue posters), so they show no account the viewer could not
// look up. The accounts the rule cannot settle alone are checked in one
// query, however many there are (lists stay at a constant number of
// queries per page).
func DropHidden[K comparable](ctx context.Context, st VisibleAmong, viewer *auth.Principal, m map[K]*store.User) error {
	f := UserFilter(viewer)
	var ask []int64
	for k, u := range m {
		visible, settled := f.Settled(u)
		switch {
		case !settled:
			ask = append(ask, u.ID)
		case !visible:
			delete(m, k)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	visible, err := st.VisibleUserIDs(ctx, f, ask)
	if err != nil {
		return errs.Wrap(err, "access")
	}
	for k, u := range m {
		if _, settled := f.Settled(u); !settled && !visible[u.ID] {
			delete(m, k)
		}
	}
	return nil
}

// VisibleAmong is what DropHidden reads: the visibility rule (UserFilter)
// applied by the store to many accounts at once.
type VisibleAmong interface {
	VisibleUserIDs(ctx context.Context, f store.UserFilter, ids []int64) (map[int64]bool, error)
}

// notFoundOr is notFound for store.ErrNotFound, and err as an internal
// error otherwise.
func notFoundOr(err, notFound error) error {
	if errors.Is(err, store.ErrNotFound) {
		return notFound
	}
	return errs.Wrap(err, "access")
}
