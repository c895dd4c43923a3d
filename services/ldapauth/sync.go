package ldapauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-ldap/ldap/v3"

	"forge/services/store"
	"forge/services/users"
)

// Bounds of one source's directory search in a synchronization.
var (
	// syncMaxEntries is the most entries read of one source in a round;
	// a directory with more is synchronized partly (creations and
	// updates) and nobody is deactivated.
	syncMaxEntries = 10000
	// syncPageSize is the size of a page of the paged search.
	syncPageSize uint32 = 500
	// syncTimeout bounds one source's whole directory search.
	syncTimeout = 5 * time.Minute
)

// errTruncated: the directory holds more users than syncMaxEntries.
var errTruncated = errors.New("more directory users than a synchronization reads")

// SearchAll returns every user of the directory: the entries the user
// filter matches with %s as * (Gitea's), read by a paged search of at most
// syncMaxEntries entries within syncTimeout, with IsAdmin and Restricted
// from the source's filters. A search that fails at any point returns an
// error and no entries; one that stops at the bound returns the entries
// read with an error wrapping errTruncated.
func (c *Config) SearchAll(ctx context.Context) ([]*Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	conn, err := c.dial()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	// The connection closes when the search is done or its time is up;
	// a request in progress then fails.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	if c.BindDN != "" {
		if err := conn.Bind(c.BindDN, c.BindPassword); err != nil {
			return nil, fmt.Errorf("%w: bind DN: %v", ErrUnavailable, err)
		}
	}
	all := strings.ReplaceAll(c.Filter, "%s", "*")
	found, truncated, err := pagedSearch(ctx, conn, c.UserBase, all, c.attributes())
	if err != nil {
		return nil, err
	}
	out := make([]*Entry, 0, len(found))
	for _, e := range found {
		// The username attribute names the account; without one, an
		// entry can only be matched to an account by e-mail.
		login := ""
		if c.AttributeUsername != "" {
			login = e.GetAttributeValue(c.AttributeUsername)
		}
		out = append(out, c.entry(e, login))
	}
	// The admin and restricted filters: the users both the user filter
	// and the filter match (Authenticate's test of one entry, for all).
	for _, f := range []struct {
		filter string
		set    func(*Entry)
	}{
		{c.AdminFilter, func(e *Entry) { e.IsAdmin = true }},
		{c.RestrictedFilter, func(e *Entry) { e.Restricted = true }},
	} {
		if f.filter == "" {
			continue
		}
		marked, _, err := pagedSearch(ctx, conn, c.UserBase, "(&"+all+f.filter+")", []string{"dn"})
		if err != nil {
			return nil, err
		}
		dns := make(map[string]bool, len(marked))
		for _, e := range marked {
			dns[strings.ToLower(e.DN)] = true
		}
		for _, e := range out {
			if dns[strings.ToLower(e.DN)] {
				f.set(e)
			}
		}
	}
	if truncated {
		return out, fmt.Errorf("%w (%d)", errTruncated, syncMaxEntries)
	}
	return out, nil
}

// pagedSearch reads the entries filter matches under base, a page at a
// time, up to syncMaxEntries (truncated reports more).
func pagedSearch(ctx context.Context, conn *ldap.Conn, base, filter string, attrs []string) (entries []*ldap.Entry, truncated bool, err error) {
	paging := ldap.NewControlPaging(syncPageSize)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, fmt.Errorf("%w: search: %v", ErrUnavailable, err)
		}
		res, err := conn.Search(ldap.NewSearchRequest(base, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases,
			0, int(requestTimeout/time.Second), false, filter, attrs, []ldap.Control{paging}))
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, false, fmt.Errorf("%w: search: %v", ErrUnavailable, err)
		}
		entries = append(entries, res.Entries...)
		if len(entries) > syncMaxEntries {
			return entries[:syncMaxEntries], true, nil
		}
		next, _ := ldap.FindControl(res.Controls, ldap.ControlTypePaging).(*ldap.ControlPaging)
		if next == nil || len(next.Cookie) == 0 {
			return entries, false, nil // the last page, or a server without paging
		}
		paging.SetCookie(next.Cookie)
	}
}

// SyncResult counts what a synchronization of one source changed.
type SyncResult struct {
	Created, Updated, Deactivated int
}

// SyncUsers is Gitea's sync_external_users: every active LDAP source with
// synchronize-users on is brought in line with its directory (SyncSource).
// One source failing does not stop the others; their errors are joined.
func (s *Sources) SyncUsers(ctx context.Context) error {
	rows, err := s.store.LoginSources(ctx)
	if err != nil {
		return err
	}
	var failed []error
	for i := range rows {
		row := &rows[i]
		if row.Type != store.LoginSourceLDAP || !row.IsActive || !row.IsSyncEnabled {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := s.open(row)
		if err == nil {
			var res SyncResult
			res, err = s.SyncSource(ctx, src)
			slog.InfoContext(ctx, "ldap users synchronized", "source", src.ID,
				"created", res.Created, "updated", res.Updated, "deactivated", res.Deactivated)
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("login source %d: %w", row.ID, err))
		}
	}
	return errors.Join(failed...)
}

// SyncSource brings the accounts of src in line with its directory, as
// Gitea's synchronization does:
//   - a directory user without an account gets one, as on a first sign-in
//     (createUser), its login name being its user name;
//   - an account of src the directory lists (by name, else by e-mail) takes
//     its full name, e-mail, is_admin (with an admin filter) and restricted
//     (with a restricted filter) from it, and is active again;
//   - an active account of src the directory no longer lists is
//     deactivated.
//
// Local accounts and other sources' accounts are never changed. Nothing
// changes when the directory search fails; nobody is deactivated when it
// finds nobody or stops at its bound. The last active administrator keeps
// the flag and stays active (ErrLastAdmin). Writes go through
// Store.UpdateUser, as the administrator's edits do, so a deactivated
// user's tokens are refused at once (the authentication generation).
func (s *Sources) SyncSource(ctx context.Context, src *Source) (SyncResult, error) {
	var res SyncResult
	entries, searchErr := src.Config.SearchAll(ctx)
	if searchErr != nil && !errors.Is(searchErr, errTruncated) {
		return res, searchErr
	}
	accounts, err := s.sourceUsers(ctx, src.ID)
	if err != nil {
		return res, err
	}
	byName := make(map[string]*store.User, len(accounts))
	byMail := make(map[string]*store.User, len(accounts))
	for i := range accounts {
		u := &accounts[i]
		byName[strings.ToLower(u.Name)] = u
		byMail[strings.ToLower(u.Email)] = u
	}
	seen := make(map[int64]bool, len(entries))
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		u := byName[strings.ToLower(e.Username)]
		if u == nil && e.Mail != "" {
			u = byMail[strings.ToLower(e.Mail)]
		}
		if u == nil && e.Username != "" {
			created, err := s.createUser(ctx, src, e, e.Username)
			if errors.Is(err, errCannotCreate) {
				slog.WarnContext(ctx, "ldap sync cannot create the account", "source", src.ID, "name", e.Username, "err", err)
				continue
			}
			if err != nil {
				return res, err
			}
			byName[strings.ToLower(created.Name)] = created
			seen[created.ID] = true
			res.Created++
			continue
		}
		if u == nil || seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		changed, err := s.updateUser(ctx, src, e, u)
		if err != nil {
			return res, err
		}
		if changed {
			res.Updated++
		}
	}
	if searchErr != nil || len(entries) == 0 {
		// Part of the directory, or an empty answer (Gitea refuses to
		// deactivate every user on one): deactivate nobody.
		if searchErr == nil {
			slog.WarnContext(ctx, "ldap sync found no users; nobody deactivated", "source", src.ID)
		}
		return res, searchErr
	}
	for i := range accounts {
		u := &accounts[i]
		if seen[u.ID] || !u.IsActive {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		changed, err := s.deactivate(ctx, src, u)
		if err != nil {
			return res, err
		}
		if changed {
			res.Deactivated++
		}
	}
	return res, nil
}

// sourceUsers returns every account of the source id.
func (s *Sources) sourceUsers(ctx context.Context, id int64) ([]store.User, error) {
	const page = 1000
	var out []store.User
	for {
		got, _, err := s.store.ListUsers(ctx, store.ListUsersOptions{SourceID: id, Offset: len(out), Limit: page})
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
		if len(got) < page {
			return out, nil
		}
	}
}

// errSkip: the account changed hands (source) since it was listed; the
// synchronization leaves it alone.
var errSkip = errors.New("account no longer of the source")

// updateUser gives u, an account of src, what the directory says of it in
// e. An e-mail that is invalid or another account's is kept as it was, as
// is the flag of the last administrator.
func (s *Sources) updateUser(ctx context.Context, src *Source, e *Entry, u *store.User) (bool, error) {
	mail, fullName := mailOf(e), fullNameOf(e)
	keepMail := strings.EqualFold(u.Email, mail)
	if !keepMail {
		if err := users.ValidateEmail(mail); err != nil {
			slog.WarnContext(ctx, "ldap sync keeps the e-mail", "source", src.ID, "name", u.Name, "err", err)
			keepMail = true
		}
	}
	keepAdmin := src.Config.AdminFilter == "" || u.IsAdmin == e.IsAdmin
	keepRestricted := src.Config.RestrictedFilter == "" || u.Restricted == e.Restricted
	if keepMail && keepAdmin && keepRestricted && u.FullName == fullName && u.IsActive {
		return false, nil
	}
	for {
		_, err := s.store.UpdateUser(ctx, u.Name, func(v *store.User) error {
			if v.LoginSource != src.ID || v.Type != store.UserTypeIndividual {
				return errSkip
			}
			v.FullName, v.IsActive = fullName, true
			if !keepMail {
				v.Email = mail
			}
			if !keepAdmin {
				v.IsAdmin = e.IsAdmin
			}
			if !keepRestricted {
				v.Restricted = e.Restricted
			}
			return nil
		})
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, errSkip), errors.Is(err, store.ErrNotFound):
			return false, nil
		case errors.Is(err, store.ErrLastAdmin) && !keepAdmin:
			slog.WarnContext(ctx, "ldap sync keeps the last administrator", "source", src.ID, "name", u.Name)
			keepAdmin = true
		case (errors.Is(err, store.ErrEmailUsed) || errors.Is(err, store.ErrUserExists)) && !keepMail:
			slog.WarnContext(ctx, "ldap sync keeps the e-mail", "source", src.ID, "name", u.Name, "err", err)
			keepMail = true
		default:
			return false, err
		}
	}
}

// deactivate marks u, an account of src the directory no longer lists,
// inactive, unless it is the last active administrator.
func (s *Sources) deactivate(ctx context.Context, src *Source, u *store.User) (bool, error) {
	_, err := s.store.UpdateUser(ctx, u.Name, func(v *store.User) error {
		if v.LoginSource != src.ID || v.Type != store.UserTypeIndividual || !v.IsActive {
			return errSkip
		}
		v.IsActive = false
		return nil
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errSkip), errors.Is(err, store.ErrNotFound):
		return false, nil
	case errors.Is(err, store.ErrLastAdmin):
		slog.WarnContext(ctx, "ldap sync keeps the last administrator active", "source", src.ID, "name", u.Name)
		return false, nil
	}
	return false, err
}
