package users

import (
	"context"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// SettingsStore is what /user/settings writes.
type SettingsStore interface {
	// UpdateUser loads the user named name, applies change and saves it in
	// one transaction (ErrNotFound when the account is gone).
	UpdateUser(ctx context.Context, name string, change func(u *store.User) error) (*store.User, error)
}

// GetUserSettings answers the caller's own settings; the policy
// guarantees a signed-in caller.
func (s *Server) GetUserSettings(ctx context.Context, _ *usersv1.GetUserSettingsRequest) (*usersv1.GetUserSettingsResponse, error) {
	p := auth.FromContext(ctx)
	return &usersv1.GetUserSettingsResponse{Settings: renderSettings(p.User)}, nil
}

// UpdateUserSettings changes only the settings the request carries, on
// the row as it is in the transaction (a concurrent admin edit of other
// columns is not undone).
func (s *Server) UpdateUserSettings(ctx context.Context, req *usersv1.UpdateUserSettingsRequest) (*usersv1.UpdateUserSettingsResponse, error) {
	p := auth.FromContext(ctx)
	u, err := s.store.UpdateUser(ctx, p.User.Name, func(u *store.User) error {
		applySettings(u, req)
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, "user does not exist"))
	}
	return &usersv1.UpdateUserSettingsResponse{Settings: renderSettings(u)}, nil
}

// applySettings copies the fields present in req onto u.
func applySettings(u *store.User, req *usersv1.UpdateUserSettingsRequest) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&u.FullName, req.FullName)
	set(&u.Website, req.Website)
	set(&u.Description, req.Description)
	set(&u.Location, req.Location)
	set(&u.Language, req.Language)
	set(&u.Theme, req.Theme)
	set(&u.DiffViewStyle, req.DiffViewStyle)
	if req.HideEmail != nil {
		u.KeepEmailPrivate = *req.HideEmail
	}
	if req.HideActivity != nil {
		u.KeepActivityPrivate = *req.HideActivity
	}
}

func renderSettings(u *store.User) *usersv1.UserSettings {
	return &usersv1.UserSettings{
		FullName:      u.FullName,
		Website:       u.Website,
		Description:   u.Description,
		Location:      u.Location,
		Language:      u.Language,
		Theme:         u.Theme,
		DiffViewStyle: u.DiffViewStyle,
		HideEmail:     u.KeepEmailPrivate,
		HideActivity:  u.KeepActivityPrivate,
	}
}
