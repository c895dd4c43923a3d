// Package admin serves forge.admin.v1.AdminService: site administrators
// manage user accounts and list the site's organizations, e-mail
// addresses and scheduled tasks.
package admin

import (
	"context"
	"errors"
	"net/http"
	"unicode/utf8"

	adminv1 "forge/gen/forge/admin/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/orgs"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// Store is what the admin service needs.
type Store interface {
	CreateUser(ctx context.Context, u *store.User) error
	UpdateUser(ctx context.Context, name string, change func(u *store.User) error) (*store.User, error)
	DeleteUser(ctx context.Context, name string, check func(u *store.User) error) error
	RepositoriesOwnedBy(ctx context.Context, ownerID int64) ([]store.Repository, error)
	UserByName(ctx context.Context, name string) (*store.User, error)
	ListUsers(ctx context.Context, opts store.ListUsersOptions) ([]store.User, int64, error)
	LoginSourceByID(ctx context.Context, id int64) (*store.LoginSource, error)
	ListOrganizations(ctx context.Context, o store.OrgListOptions) ([]store.User, int64, error)
	ListEmails(ctx context.Context, opts store.EmailListOptions) ([]store.User, int64, error)
}

// Server implements adminv1.AdminServiceServer.
type Server struct {
	adminv1.UnimplementedAdminServiceServer
	store       Store
	render      users.Renderer
	limits      paging.Limits
	minPassword int
	totp        *auth.TOTP
	purger      RepoPurger
	orgs        orgs.Renderer
	tasks       Tasks
}

var _ adminv1.AdminServiceServer = (*Server)(nil)

// NewServer builds the service; purger may be nil (purge then only deletes
// users without repositories).
func NewServer(s Store, r users.Renderer, limits paging.Limits, minPasswordLength int, totp *auth.TOTP, purger RepoPurger) *Server {
	return &Server{store: s, render: r, limits: limits, minPassword: minPasswordLength, totp: totp, purger: purger}
}

func (s *Server) ListUsers(ctx context.Context, req *adminv1.ListUsersRequest) (*adminv1.ListUsersResponse, error) {
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	viewer := auth.FromContext(ctx)
	// Every account to a site administrator, but the public ones to a
	// public-only token (access.UserFilter).
	f := access.UserFilter(viewer)
	found, total, err := s.store.ListUsers(ctx, store.ListUsersOptions{
		SourceID: req.GetSourceId(), LoginName: req.GetLoginName(), Visible: &f, Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, errs.Wrap(err, "list users")
	}
	out := &adminv1.ListUsersResponse{Users: make([]*usersv1.User, len(found)), TotalCount: total}
	for i := range found {
		out.Users[i] = s.render.User(&found[i], viewer)
	}
	if err := s.render.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) CreateUser(ctx context.Context, req *adminv1.CreateUserRequest) (*adminv1.CreateUserResponse, error) {
	return s.Create(ctx, req, false)
}

// Create creates a user, a site administrator when isAdmin (the command
// line's --admin; the API option has no such field), in one write.
func (s *Server) Create(ctx context.Context, req *adminv1.CreateUserRequest, isAdmin bool) (*adminv1.CreateUserResponse, error) {
	if err := users.CheckReserved(req.GetUsername()); err != nil {
		return nil, errs.New(errs.Invalid, err.Error())
	}
	if err := users.ValidateEmail(req.GetEmail()); err != nil {
		return nil, errs.New(errs.Invalid, err.Error())
	}
	if err := s.checkSource(ctx, req.GetSourceId()); err != nil {
		return nil, err
	}
	vis, err := parseVisibility(req.GetVisibility(), store.VisibilityPublic)
	if err != nil {
		return nil, err
	}
	u := &store.User{
		Name:                    req.GetUsername(),
		Email:                   req.GetEmail(),
		FullName:                req.GetFullName(),
		LoginSource:             req.GetSourceId(),
		LoginName:               req.GetLoginName(),
		MustChangePassword:      req.MustChangePassword == nil || req.GetMustChangePassword(),
		Restricted:              req.GetRestricted(),
		Visibility:              vis,
		IsActive:                true,
		IsAdmin:                 isAdmin,
		MaxRepoCreation:         -1,
		AllowCreateOrganization: true,
	}
	if u.LoginSource == 0 {
		if req.GetPassword() == "" {
			return nil, errs.New(errs.FailedPrecondition, "PasswordIsRequired") // Gitea's words
		}
		if err := s.checkPassword(req.GetPassword()); err != nil {
			return nil, err
		}
		u.PasswdHash = auth.HashPassword(req.GetPassword())
	} else {
		// The source checks the password; forge keeps none, and there is
		// none here to change.
		u.MustChangePassword = req.GetMustChangePassword()
	}
	if ts := req.GetCreatedAt(); ts != nil {
		u.CreatedUnix = ts.AsTime().Unix()
	}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return nil, err // store.ErrUserExists, ErrEmailUsed
	}
	return &adminv1.CreateUserResponse{User: s.render.User(u, auth.FromContext(ctx))}, nil
}

func (s *Server) checkPassword(pw string) error {
	if utf8.RuneCountInString(pw) < s.minPassword {
		return errs.Newf(errs.FailedPrecondition, "password must be at least %d characters", s.minPassword)
	}
	return nil
}

// checkSource refuses an unknown login source (Gitea's 422). 0 is the
// local source.
func (s *Server) checkSource(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	if _, err := s.store.LoginSourceByID(ctx, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errs.Newf(errs.Invalid, "login source does not exist [id: %d]", id)
		}
		return errs.Wrap(err, "load login source")
	}
	return nil
}

func parseVisibility(name string, unset store.Visibility) (store.Visibility, error) {
	if name == "" {
		return unset, nil
	}
	v, ok := store.ParseVisibility(name)
	if !ok {
		return 0, errs.Newf(errs.Invalid, "[Visibility]: invalid visibility %q (public, limited, private)", name)
	}
	return v, nil
}

func (s *Server) EditUser(ctx context.Context, req *adminv1.EditUserRequest) (*adminv1.EditUserResponse, error) {
	if req.Email != nil {
		if err := users.ValidateEmail(req.GetEmail()); err != nil {
			return nil, errs.New(errs.FailedPrecondition, err.Error())
		}
	}
	if req.GetPassword() != "" {
		if err := s.checkPassword(req.GetPassword()); err != nil {
			return nil, err
		}
	}
	if err := s.checkSource(ctx, req.GetSourceId()); err != nil {
		return nil, err
	}
	vis, err := parseVisibility(req.GetVisibility(), -1)
	if err != nil {
		return nil, err
	}
	passwordHash := ""
	if req.GetPassword() != "" { // hash outside the transaction: it is slow on purpose
		passwordHash = auth.HashPassword(req.GetPassword())
	}
	u, err := s.store.UpdateUser(ctx, req.GetUsername(), func(u *store.User) error {
		if u.Type != store.UserTypeIndividual {
			return access.UserNotFound(req.GetUsername())
		}
		if req.GetLoginName() != "" {
			u.LoginName = req.GetLoginName()
		}
		if req.GetSourceId() != 0 {
			u.LoginSource = req.GetSourceId()
		}
		setString(&u.Email, req.Email)
		setString(&u.FullName, req.FullName)
		setString(&u.Website, req.Website)
		setString(&u.Location, req.Location)
		setString(&u.Description, req.Description)
		setBool(&u.MustChangePassword, req.MustChangePassword)
		setBool(&u.IsActive, req.Active)
		setBool(&u.IsAdmin, req.Admin)
		setBool(&u.AllowGitHook, req.AllowGitHook)
		setBool(&u.AllowImportLocal, req.AllowImportLocal)
		setBool(&u.ProhibitLogin, req.ProhibitLogin)
		setBool(&u.AllowCreateOrganization, req.AllowCreateOrganization)
		setBool(&u.Restricted, req.Restricted)
		if req.MaxRepoCreation != nil {
			u.MaxRepoCreation = int(req.GetMaxRepoCreation())
		}
		if vis >= 0 {
			u.Visibility = vis
		}
		if passwordHash != "" {
			u.PasswdHash = passwordHash
		}
		return nil
	})
	if e, ok := errs.As(err); ok && e.Kind == errs.AlreadyExists {
		return nil, e.WithHTTPStatus(http.StatusBadRequest) // a used e-mail in an edit is 400 in Gitea
	}
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, access.UserNotFound(req.GetUsername()))
	}
	return &adminv1.EditUserResponse{User: s.render.User(u, auth.FromContext(ctx))}, nil
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// RepoPurger deletes a repository's records and git data (repos.Purger,
// the use case the repository delete and the command line share);
// DeleteUser uses it for ?purge=true.
type RepoPurger interface {
	Purge(ctx context.Context, r *store.Repository) error
}

func (s *Server) DeleteUser(ctx context.Context, req *adminv1.DeleteUserRequest) (*adminv1.DeleteUserResponse, error) {
	caller := auth.FromContext(ctx)
	if req.GetPurge() && s.purger != nil {
		if err := s.purgeRepos(ctx, req.GetUsername(), caller); err != nil {
			return nil, err
		}
	}
	err := s.store.DeleteUser(ctx, req.GetUsername(), func(u *store.User) error {
		if u.Type == store.UserTypeOrganization {
			return errs.Newf(errs.Invalid, "%s is an organization not a user", u.Name)
		}
		if u.ID == caller.ID() {
			return errs.New(errs.Invalid, "you cannot delete yourself")
		}
		owned, err := s.store.RepositoriesOwnedBy(ctx, u.ID)
		if err != nil {
			return err
		}
		if len(owned) > 0 {
			return errs.Newf(errs.Invalid, "user still has ownership of repositories [uid: %d]", u.ID)
		}
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, access.UserNotFound(req.GetUsername()))
	}
	return &adminv1.DeleteUserResponse{}, nil
}

// purgeRepos deletes the repositories of the user named name, after the
// same checks DeleteUser makes (never purge yourself or an organization).
func (s *Server) purgeRepos(ctx context.Context, name string, caller *auth.Principal) error {
	u, err := s.store.UserByName(ctx, name)
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, access.UserNotFound(name))
	}
	if u.ID == caller.ID() || u.Type != store.UserTypeIndividual {
		return nil // DeleteUser refuses these with the right message
	}
	owned, err := s.store.RepositoriesOwnedBy(ctx, u.ID)
	if err != nil {
		return errs.Wrap(err, "list owned repositories")
	}
	for i := range owned {
		if err := s.purger.Purge(ctx, &owned[i]); err != nil {
			return errs.Wrap(err, "purge repository")
		}
	}
	return nil
}

func (s *Server) EnableUserTOTP(ctx context.Context, req *adminv1.EnableUserTOTPRequest) (*adminv1.EnableUserTOTPResponse, error) {
	var uri string
	_, err := s.store.UpdateUser(ctx, req.GetUsername(), func(u *store.User) error {
		if u.Type != store.UserTypeIndividual {
			return access.UserNotFound(req.GetUsername())
		}
		var sealed []byte
		var err error
		uri, sealed, err = s.totp.Enroll(u.Name)
		if err != nil {
			return err
		}
		u.TOTPSecret = sealed
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, access.UserNotFound(req.GetUsername()))
	}
	return &adminv1.EnableUserTOTPResponse{OtpauthUri: uri}, nil
}

func (s *Server) DisableUserTOTP(ctx context.Context, req *adminv1.DisableUserTOTPRequest) (*adminv1.DisableUserTOTPResponse, error) {
	_, err := s.store.UpdateUser(ctx, req.GetUsername(), func(u *store.User) error {
		u.TOTPSecret = nil
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, access.UserNotFound(req.GetUsername()))
	}
	return &adminv1.DisableUserTOTPResponse{}, nil
}
