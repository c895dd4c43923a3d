package code

import (
	"context"
	"errors"
	"strings"

	"forge/services/git"
	"forge/services/store"
)

// Accounts are the users commits are attributed to, by lower-cased e-mail.
type Accounts map[string]*store.User

func (a Accounts) lookup(email string) *store.User { return a[strings.ToLower(email)] }

// FindAccounts looks up the authors and committers of commits with one
// query: an address matches the user with that e-mail, or, for Gitea's
// placeholder <name>@noreply.<domain>, the user with that name.
func FindAccounts(ctx context.Context, s Store, domain string, commits ...*git.Commit) (Accounts, error) {
	noreply := "@noreply." + strings.ToLower(domain)
	seen := map[string]bool{}
	var emails, names []string
	for _, c := range commits {
		for _, e := range []string{c.Author.Email, c.Committer.Email} {
			e = strings.ToLower(e)
			if e == "" || seen[e] {
				continue
			}
			seen[e] = true
			if name, ok := strings.CutSuffix(e, noreply); ok && name != "" {
				names = append(names, e)
			} else {
				emails = append(emails, e)
			}
		}
	}
	found := Accounts{}
	if len(emails) > 0 {
		m, err := s.UsersByEmails(ctx, emails)
		if err != nil {
			return nil, err
		}
		for e, u := range m {
			found[e] = u
		}
	}
	for _, e := range names { // placeholders are rare: one lookup each
		u, err := s.UserByName(ctx, strings.TrimSuffix(e, noreply))
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if u.Type == store.UserTypeIndividual {
			found[e] = u
		}
	}
	return found, nil
}
