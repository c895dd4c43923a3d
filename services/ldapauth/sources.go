package ldapauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	adminv1 "forge/gen/forge/admin/v1"
	"forge/services/errs"
	"forge/services/secretbox"
	"forge/services/store"
	"forge/services/users"
	"forge/services/validate"
)

// Store is what the sources read and write.
type Store interface {
	CreateLoginSource(ctx context.Context, src *store.LoginSource) error
	UpdateLoginSource(ctx context.Context, id int64, change func(*store.LoginSource) error) (*store.LoginSource, error)
	LoginSourceByID(ctx context.Context, id int64) (*store.LoginSource, error)
	LoginSources(ctx context.Context) ([]store.LoginSource, error)
	DeleteLoginSource(ctx context.Context, id int64) error
	CreateUser(ctx context.Context, u *store.User) error
	UpdateUser(ctx context.Context, name string, change func(u *store.User) error) (*store.User, error)
	ListUsers(ctx context.Context, opts store.ListUsersOptions) ([]store.User, int64, error)
}

// Source is a login source with its opened configuration.
type Source struct {
	ID       int64
	Name     string
	Active   bool
	Sync     bool
	Config   Config
	Created  int64
	Modified int64
}

// Sources manages the LDAP sources and signs their users in.
type Sources struct {
	store Store
	box   *secretbox.Box
}

// New builds the sources over st; configurations are sealed with a key
// derived from secretKey ([security] SECRET_KEY).
func New(st Store, secretKey string) (*Sources, error) {
	box, err := secretbox.New(secretKey, "login sources")
	if err != nil {
		return nil, err
	}
	return &Sources{store: st, box: box}, nil
}

const maxName = 255

func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.New(errs.Invalid, "name is required")
	}
	if utf8.RuneCountInString(name) > maxName || !utf8.ValidString(name) {
		return errs.Newf(errs.Invalid, "name is longer than %d characters", maxName)
	}
	return nil
}

func (s *Sources) seal(cfg *Config) ([]byte, error) {
	if err := cfg.Validate(); err != nil {
		return nil, errs.New(errs.Invalid, err.Error())
	}
	plain, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return s.box.Seal(plain), nil
}

func (s *Sources) open(row *store.LoginSource) (*Source, error) {
	plain, err := s.box.Open(row.Cfg)
	if err != nil {
		return nil, fmt.Errorf("login source %d: %w", row.ID, err)
	}
	src := &Source{ID: row.ID, Name: row.Name, Active: row.IsActive, Sync: row.IsSyncEnabled,
		Created: row.CreatedUnix, Modified: row.UpdatedUnix}
	if err := json.Unmarshal(plain, &src.Config); err != nil {
		return nil, fmt.Errorf("login source %d: %w", row.ID, err)
	}
	return src, nil
}

// Add creates an LDAP source. The directory is not contacted.
func (s *Sources) Add(ctx context.Context, src Source) (*Source, error) {
	if err := checkName(src.Name); err != nil {
		return nil, err
	}
	sealed, err := s.seal(&src.Config)
	if err != nil {
		return nil, err
	}
	row := &store.LoginSource{Type: store.LoginSourceLDAP, Name: src.Name, IsActive: src.Active,
		IsSyncEnabled: src.Sync, Cfg: sealed}
	if err := s.store.CreateLoginSource(ctx, row); err != nil {
		return nil, err
	}
	src.ID = row.ID
	return &src, nil
}

// Update changes the source id: change edits its opened form, which is
// validated and sealed again.
func (s *Sources) Update(ctx context.Context, id int64, change func(*Source) error) (*Source, error) {
	var out *Source
	_, err := s.store.UpdateLoginSource(ctx, id, func(row *store.LoginSource) error {
		if row.Type != store.LoginSourceLDAP {
			return store.ErrNotFound
		}
		src, err := s.open(row)
		if err != nil {
			return err
		}
		if err := change(src); err != nil {
			return err
		}
		if err := checkName(src.Name); err != nil {
			return err
		}
		sealed, err := s.seal(&src.Config)
		if err != nil {
			return err
		}
		row.Name, row.IsActive, row.IsSyncEnabled, row.Cfg = src.Name, src.Active, src.Sync, sealed
		out = src
		return nil
	})
	return out, unknownSource(err, id)
}

// unknownSource names the source a command line asked for.
func unknownSource(err error, id int64) error {
	if errors.Is(err, store.ErrNotFound) {
		return errs.Newf(errs.NotFound, "login source does not exist [id: %d]", id)
	}
	return err
}

// Get returns the source id opened.
func (s *Sources) Get(ctx context.Context, id int64) (*Source, error) {
	row, err := s.store.LoginSourceByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if row.Type != store.LoginSourceLDAP {
		return nil, store.ErrNotFound
	}
	return s.open(row)
}

// List returns every source (rows only: configurations stay sealed).
func (s *Sources) List(ctx context.Context) ([]store.LoginSource, error) {
	return s.store.LoginSources(ctx)
}

// Delete deletes the source id; refused while users belong to it.
func (s *Sources) Delete(ctx context.Context, id int64) error {
	return unknownSource(s.store.DeleteLoginSource(ctx, id), id)
}

// TypeName is Gitea's name of a source type.
func TypeName(t store.LoginSourceType) string {
	if t == store.LoginSourceLDAP {
		return "LDAP (via BindDN)"
	}
	return fmt.Sprintf("type %d", t)
}

// Verify checks password for u, a user of the source u.LoginSource, against
// the directory, with u's login name there (its user name when it has
// none). It returns u as it is after the sign-in: with an admin or a
// restricted filter, the directory decides is_admin or restricted, and a
// change is saved. Errors: ErrBadCredentials (Unauthenticated) for a wrong
// password, an unknown or inactive source; ErrUnavailable when the
// directory cannot answer.
func (s *Sources) Verify(ctx context.Context, u *store.User, password string) (*store.User, error) {
	src, err := s.Get(ctx, u.LoginSource)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrBadCredentials
	}
	if err != nil {
		return nil, err
	}
	if !src.Active {
		return nil, ErrBadCredentials
	}
	login := u.LoginName
	if login == "" {
		login = u.Name
	}
	e, err := src.Config.Authenticate(login, password)
	if err != nil {
		return nil, err
	}
	return s.sync(ctx, src, e, u)
}

// sync saves what the directory decides of u: is_admin with an admin
// filter, restricted with a restricted filter.
func (s *Sources) sync(ctx context.Context, src *Source, e *Entry, u *store.User) (*store.User, error) {
	adminChanged := src.Config.AdminFilter != "" && e.IsAdmin != u.IsAdmin
	restrictedChanged := src.Config.RestrictedFilter != "" && e.Restricted != u.Restricted
	if !adminChanged && !restrictedChanged {
		return u, nil
	}
	updated, err := s.store.UpdateUser(ctx, u.Name, func(v *store.User) error {
		if adminChanged {
			v.IsAdmin = e.IsAdmin
		}
		if restrictedChanged {
			v.Restricted = e.Restricted
		}
		return nil
	})
	if errors.Is(err, store.ErrLastAdmin) {
		// The directory demotes the last administrator: keep the flag
		// rather than leave the site without one.
		return u, nil
	}
	if err != nil {
		return nil, err
	}
	return updated, nil
}

// SignInNew signs in login, who has no account yet, through the active
// LDAP sources in id order, and creates the account on the first that
// accepts the password (name, full name and e-mail from the directory's
// attributes). Errors: ErrBadCredentials when no source accepts it or the
// account cannot be created (its name or e-mail is taken).
func (s *Sources) SignInNew(ctx context.Context, login, password string) (*store.User, error) {
	rows, err := s.store.LoginSources(ctx)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		row := &rows[i]
		if row.Type != store.LoginSourceLDAP || !row.IsActive {
			continue
		}
		src, err := s.open(row)
		if err != nil {
			return nil, err
		}
		e, err := src.Config.Authenticate(login, password)
		if errors.Is(err, ErrBadCredentials) {
			continue
		}
		if err != nil {
			// One directory down must not keep a user of another out.
			slog.WarnContext(ctx, "ldap source unavailable", "source", src.ID, "err", err)
			continue
		}
		// An account of this source whose name is not the login name
		// (the username attribute named it otherwise).
		known, _, err := s.store.ListUsers(ctx, store.ListUsersOptions{SourceID: src.ID, LoginName: login, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(known) == 1 {
			return s.sync(ctx, src, e, &known[0])
		}
		u, err := s.createUser(ctx, src, e, login)
		if errors.Is(err, errCannotCreate) {
			slog.WarnContext(ctx, "ldap sign-in cannot create the account", "source", src.ID, "name", e.Username, "err", err)
			return nil, ErrBadCredentials
		}
		return u, err
	}
	return nil, ErrBadCredentials
}

// errCannotCreate: the directory's user cannot have an account (a name or
// an e-mail Gitea refuses, or taken).
var errCannotCreate = errors.New("cannot create the account")

// mailOf is the e-mail address of e's account: the directory's, or a
// placeholder when it has none (Gitea's).
func mailOf(e *Entry) string {
	if e.Mail == "" {
		return e.Username + "@localhost.local"
	}
	return e.Mail
}

// fullNameOf is the full name of e's account.
func fullNameOf(e *Entry) string {
	return strings.TrimSpace(e.FirstName + " " + e.Surname)
}

// createUser creates the account of the directory's user e, who signs in
// to src as login: name, full name and e-mail from the directory's
// attributes, is_admin and restricted from the source's filters. Errors
// wrapping errCannotCreate when the account cannot exist.
func (s *Sources) createUser(ctx context.Context, src *Source, e *Entry, login string) (*store.User, error) {
	mail := mailOf(e)
	if err := checkNewUser(e.Username, mail); err != nil {
		return nil, fmt.Errorf("%w: %v", errCannotCreate, err)
	}
	u := &store.User{
		Name:                    e.Username,
		Email:                   mail,
		FullName:                fullNameOf(e),
		LoginSource:             src.ID,
		LoginName:               login,
		IsActive:                true,
		IsAdmin:                 src.Config.AdminFilter != "" && e.IsAdmin,
		Restricted:              src.Config.RestrictedFilter != "" && e.Restricted,
		Visibility:              store.VisibilityPublic,
		MaxRepoCreation:         -1,
		AllowCreateOrganization: true,
	}
	if err := s.store.CreateUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrUserExists) || errors.Is(err, store.ErrEmailUsed) {
			return nil, fmt.Errorf("%w: %v", errCannotCreate, err)
		}
		return nil, err
	}
	return u, nil
}

// checkNewUser applies the rules of an account created by an
// administrator to one a directory names.
func checkNewUser(name, mail string) error {
	if err := validate.Check(&adminv1.CreateUserRequest{Username: name, Email: mail}); err != nil {
		return err
	}
	if err := users.CheckReserved(name); err != nil {
		return err
	}
	return users.ValidateEmail(mail)
}
