package app_test

import (
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestEmailsSDK: secondary e-mail addresses through the SDK's AddEmail,
// ListEmails and DeleteEmail, with Gitea's refusals: an empty list, an
// invalid address, one another account uses (primary or secondary) or one
// named twice (422, nothing added); deleting the primary address (422) or
// one the account lacks (404, nothing removed). A secondary address is
// taken for other accounts too.
func TestEmailsSDK(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		alice := s.sdk(gitea.SetToken(s.seedUser("alice", "alice-password", false)))
		bob := s.sdk(gitea.SetToken(s.seedUser("bob", "bob-password", false)))
		list := func(c *gitea.Client) string {
			t.Helper()
			es, _, err := c.ListEmails(gitea.ListEmailsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range es {
				s := e.Email
				if e.Primary {
					s += "*"
				}
				out = append(out, s)
			}
			return strings.Join(out, " ")
		}
		refused := func(what string, resp *gitea.Response, err error, code int, msg string) {
			t.Helper()
			if err == nil || resp == nil || resp.StatusCode != code || !strings.Contains(err.Error(), msg) {
				t.Fatalf("%s: %v %v, want %d %q", what, resp, err, code, msg)
			}
		}
		added, resp, err := alice.AddEmail(gitea.CreateEmailOption{Emails: []string{"a2@example.org", "A3@example.org"}})
		if err != nil || resp.StatusCode != 201 || len(added) != 2 || added[0].Email != "a2@example.org" || added[0].Primary {
			t.Fatalf("AddEmail: %+v %v", added, err)
		}
		if got := list(alice); got != "alice@example.org* a2@example.org A3@example.org" {
			t.Fatalf("ListEmails: %s", got)
		}
		_, resp, err = alice.AddEmail(gitea.CreateEmailOption{Emails: []string{}})
		refused("empty", resp, err, 422, "Email list empty")
		_, resp, err = alice.AddEmail(gitea.CreateEmailOption{Emails: []string{"a4@example.org", "not an address"}})
		refused("invalid", resp, err, 422, `Email address "not an address" invalid`)
		_, resp, err = alice.AddEmail(gitea.CreateEmailOption{Emails: []string{"a4@example.org", "bob@example.org"}})
		refused("bob's primary", resp, err, 422, "Email address has been used: bob@example.org")
		_, resp, err = alice.AddEmail(gitea.CreateEmailOption{Emails: []string{"a5@example.org", "A5@example.org"}})
		refused("named twice", resp, err, 422, "Email address has been used: A5@example.org")
		_, resp, err = bob.AddEmail(gitea.CreateEmailOption{Emails: []string{"a3@EXAMPLE.org"}})
		refused("alice's secondary", resp, err, 422, "Email address has been used: a3@EXAMPLE.org")
		if got := list(alice); got != "alice@example.org* a2@example.org A3@example.org" {
			t.Fatalf("a refused add changed the list: %s", got)
		}

		resp, err = alice.DeleteEmail(gitea.DeleteEmailOption{Emails: []string{"alice@example.org"}})
		refused("the primary", resp, err, 422, "Primary email address cannot be deleted")
		resp, err = alice.DeleteEmail(gitea.DeleteEmailOption{Emails: []string{"a2@example.org", "zz@example.org"}})
		refused("missing", resp, err, 404, "Email address does not exist [email: zz@example.org]")
		if resp, err := alice.DeleteEmail(gitea.DeleteEmailOption{Emails: []string{"a2@example.org", "a3@example.org"}}); err != nil || resp.StatusCode != 204 {
			t.Fatalf("DeleteEmail: %v %v", resp, err)
		}
		if got := list(alice); got != "alice@example.org*" {
			t.Fatalf("after the delete: %s", got)
		}
		if _, _, err := bob.AddEmail(gitea.CreateEmailOption{Emails: []string{"a3@example.org"}}); err != nil {
			t.Fatalf("a deleted address is free again: %v", err)
		}
	})
}
