package users

import (
	"context"
	"errors"
	"strings"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// EmailStore is what the e-mail endpoints write and read (store.Store).
type EmailStore interface {
	// AddEmailAddresses returns store.ErrEmailUsed and the address when
	// one is taken (or named twice); nothing is added then.
	AddEmailAddresses(ctx context.Context, uid int64, emails []string) (string, error)
	// SecondaryEmails lists a user's secondary addresses, oldest first.
	SecondaryEmails(ctx context.Context, uid int64) ([]store.EmailAddress, error)
	// DeleteEmailAddresses returns store.ErrNotFound and the address when
	// one is not the user's; nothing is removed then.
	DeleteEmailAddresses(ctx context.Context, uid int64, emails []string) (string, error)
}

// ListMyEmails answers GET /user/emails: the account's own address
// (primary, verified when the account is active, Gitea's rule for it),
// then its secondary addresses.
func (s *Server) ListMyEmails(ctx context.Context, _ *usersv1.ListMyEmailsRequest) (*usersv1.ListMyEmailsResponse, error) {
	u := auth.FromContext(ctx).User // the policy guarantees a caller
	out := &usersv1.ListMyEmailsResponse{Emails: []*usersv1.Email{}}
	if u.Email != "" {
		out.Emails = append(out.Emails, &usersv1.Email{Email: u.Email, Verified: u.IsActive, Primary: true})
	}
	more, err := s.store.SecondaryEmails(ctx, u.ID)
	if err != nil {
		return nil, errs.Wrap(err, "list e-mail addresses")
	}
	for _, e := range more {
		if strings.EqualFold(e.Email, u.Email) {
			continue
		}
		out.Emails = append(out.Emails, secondary(u, e.Email))
	}
	return out, nil
}

// secondary is a secondary address as Gitea shows it to its owner:
// verified (forge sends no confirmation mail, as Gitea without
// REGISTER_EMAIL_CONFIRM), without user_id and username (Gitea fills
// those only in the administrator's e-mail search).
func secondary(u *store.User, email string) *usersv1.Email {
	return &usersv1.Email{Email: email, Verified: true}
}

// AddMyEmails answers POST /user/emails with Gitea's refusals.
func (s *Server) AddMyEmails(ctx context.Context, req *usersv1.AddMyEmailsRequest) (*usersv1.AddMyEmailsResponse, error) {
	u := auth.FromContext(ctx).User
	emails := req.GetEmails()
	if len(emails) == 0 {
		return nil, errs.New(errs.Invalid, "Email list empty")
	}
	for _, e := range emails {
		if ValidateEmail(e) != nil {
			return nil, errs.Newf(errs.Invalid, "Email address %q invalid", e)
		}
	}
	used, err := s.store.AddEmailAddresses(ctx, u.ID, emails)
	if errors.Is(err, store.ErrEmailUsed) {
		return nil, errs.Newf(errs.Invalid, "Email address has been used: %s", used)
	}
	if err != nil {
		return nil, errs.Wrap(err, "add e-mail addresses")
	}
	out := &usersv1.AddMyEmailsResponse{Emails: make([]*usersv1.Email, len(emails))}
	for i, e := range emails {
		out.Emails[i] = secondary(u, e)
	}
	return out, nil
}

// DeleteMyEmails answers DELETE /user/emails; the primary address stays.
func (s *Server) DeleteMyEmails(ctx context.Context, req *usersv1.DeleteMyEmailsRequest) (*usersv1.DeleteMyEmailsResponse, error) {
	u := auth.FromContext(ctx).User
	for _, e := range req.GetEmails() {
		if strings.EqualFold(e, u.Email) {
			return nil, errs.Newf(errs.Invalid, "Primary email address cannot be deleted [email: %s]", e)
		}
	}
	missing, err := s.store.DeleteEmailAddresses(ctx, u.ID, req.GetEmails())
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Newf(errs.NotFound, "Email address does not exist [email: %s]", missing)
	}
	if err != nil {
		return nil, errs.Wrap(err, "delete e-mail addresses")
	}
	return &usersv1.DeleteMyEmailsResponse{}, nil
}
