package users

import (
	"context"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
)

// ListMyEmails answers GET /user/emails. Gitea lists the caller's rows of
// its e-mail table and adds the account's own address when missing; forge
// stores only that address, so the list is that one entry: primary, and
// verified when the account is active (Gitea's rule for the added entry).
func (s *Server) ListMyEmails(ctx context.Context, _ *usersv1.ListMyEmailsRequest) (*usersv1.ListMyEmailsResponse, error) {
	u := auth.FromContext(ctx).User // the policy guarantees a caller
	out := &usersv1.ListMyEmailsResponse{Emails: []*usersv1.Email{}}
	if u.Email != "" {
		out.Emails = append(out.Emails, &usersv1.Email{Email: u.Email, Verified: u.IsActive, Primary: true})
	}
	return out, nil
}
