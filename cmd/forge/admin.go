package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"forge/cmd/forge/app"
	adminv1 "forge/gen/forge/admin/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	"forge/services/admin"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/ldapauth"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/tokens"
	"forge/services/users"
	"forge/services/validate"
)

// adminTools calls the services' own use cases directly (no network, no
// interceptor: the CLI runs with the operator's access to the database), so
// the CLI and the API share every rule.
type adminTools struct {
	store   *store.Store
	admin   *admin.Server
	tokens  *tokens.Server
	sources *ldapauth.Sources
}

func (e *cliEnv) openAdmin(ctx context.Context) (*adminTools, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return nil, err
	}
	if err := cfg.EnsureSecretKey(); err != nil {
		return nil, err
	}
	st, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	totp, err := app.NewTOTP(cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	gitStore, err := git.New(cfg.Repository.Root)
	if err != nil {
		st.Close()
		return nil, err
	}
	limits := paging.Limits{Default: cfg.API.DefaultPagingNum, Max: cfg.API.MaxResponseItems}
	render := users.Renderer{RootURL: cfg.Server.RootURL, Domain: cfg.Server.Domain()}
	// delete --purge deletes the user's repositories with the same use
	// case as the API (repos.Purger), no server involved.
	purger := repos.Purger{Store: st, Git: gitStore}
	sources, err := ldapauth.New(st, cfg.Security.SecretKey)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &adminTools{
		sources: sources,
		store:   st,
		admin:   admin.NewServer(st, render, limits, cfg.Security.MinPasswordLength, totp, purger),
		tokens:  tokens.NewServer(st, limits),
	}, nil
}

func (e *cliEnv) admin(args []string) int {
	if len(args) > 0 && isHelp(args[len(args)-1]) && (len(args) == 1 || len(args) == 2) {
		fmt.Fprint(e.stdout, usage) // admin --help, admin user --help, admin auth --help
		return 0
	}
	if len(args) >= 2 && args[0] == "auth" {
		return e.adminAuth(args[1], args[2:])
	}
	if len(args) < 2 || args[0] != "user" {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	sub, args := args[1], args[2:]
	ctx := context.Background()
	switch sub {
	case "create":
		return e.adminCreate(ctx, args)
	case "list":
		return e.adminList(ctx, args)
	case "delete":
		return e.adminDelete(ctx, args)
	case "change-password":
		return e.adminChangePassword(ctx, args)
	case "totp":
		return e.adminTOTP(ctx, args)
	case "generate-access-token":
		return e.adminGenerateToken(ctx, args)
	case "must-change-password":
		return e.adminMustChangePassword(ctx, args)
	}
	fmt.Fprintf(e.stderr, "forge admin user: unknown command %q\n", sub)
	return 2
}

func isHelp(arg string) bool { return arg == "--help" || arg == "-h" || arg == "help" }

func (e *cliEnv) withTools(ctx context.Context, fn func(*adminTools) error) int {
	t, err := e.openAdmin(ctx)
	if err != nil {
		return e.fail(err)
	}
	defer t.store.Close()
	if err := fn(t); err != nil {
		return e.fail(err)
	}
	return 0
}

func (e *cliEnv) adminCreate(ctx context.Context, args []string) int {
	fs := e.flags("admin user create")
	username := fs.String("username", "", "user name (required)")
	password := fs.String("password", "", "password (required)")
	email := fs.String("email", "", "e-mail address (required)")
	isAdmin := fs.Bool("admin", false, "make the user a site administrator")
	mustChange := fs.Bool("must-change-password", true, "require a password change before the API can be used")
	withToken := fs.Bool("access-token", false, "also create an access token and print it last")
	tokenName := fs.String("access-token-name", "gitea-admin", "name of the access token")
	tokenScopes := fs.String("access-token-scopes", "all", "comma-separated scopes of the access token")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	return e.withTools(ctx, func(t *adminTools) error {
		req := &adminv1.CreateUserRequest{
			Username: *username, Password: *password, Email: *email, MustChangePassword: mustChange,
		}
		if err := validate.Check(req); err != nil {
			return err
		}
		resp, err := t.admin.Create(ctx, req, *isAdmin)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "New user '%s' has been successfully created!\n", resp.GetUser().GetLogin())
		if *withToken {
			tok, err := t.createToken(ctx, *username, *tokenName, *tokenScopes)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Access token was successfully created... %s\n", tok)
		}
		return nil
	})
}

// createToken makes an access token for username through the token
// service, as the user: the operator at the command line acts for the
// user with full rights. It returns the token.
func (t *adminTools) createToken(ctx context.Context, username, name, scopes string) (string, error) {
	u, err := t.store.UserByName(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("user does not exist [name: %s]: create it first (forge admin user create)", username)
	}
	if err != nil {
		return "", err
	}
	ctx = auth.NewContext(ctx, &auth.Principal{User: u, Method: auth.MethodLocal})
	req := &tokensv1.CreateAccessTokenRequest{Username: u.Name, Name: name, Scopes: strings.Split(scopes, ",")}
	// The service is called directly, without the interceptor chain, so
	// the declared field rules are checked here.
	if err := validate.Check(req); err != nil {
		return "", err
	}
	tok, err := t.tokens.CreateAccessToken(ctx, req)
	if err != nil {
		return "", err
	}
	return tok.GetToken().GetSha1(), nil
}

// adminGenerateToken is Gitea's admin user generate-access-token.
func (e *cliEnv) adminGenerateToken(ctx context.Context, args []string) int {
	fs := e.flags("admin user generate-access-token")
	username := fs.String("username", "", "user name (required)")
	fs.StringVar(username, "u", "", "user name, short form")
	name := fs.String("token-name", "gitea-admin", "name of the token")
	fs.StringVar(name, "t", "gitea-admin", "name of the token, short form")
	scopes := fs.String("scopes", "all", "comma-separated scopes of the token (all, read:repository, write:user, ...)")
	raw := fs.Bool("raw", false, "print the token alone")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *username == "" {
		return e.fail(fmt.Errorf("--username is required: name the user the token is for"))
	}
	return e.withTools(ctx, func(t *adminTools) error {
		tok, err := t.createToken(ctx, *username, *name, *scopes)
		if err != nil {
			return err
		}
		if *raw {
			fmt.Fprintln(e.stdout, tok)
		} else {
			fmt.Fprintf(e.stdout, "Access token was successfully created: %s\n", tok)
		}
		return nil
	})
}

// adminMustChangePassword is Gitea's admin user must-change-password:
// the named users (or --all, less --exclude) must change their password
// before using the API (--unset lifts it).
func (e *cliEnv) adminMustChangePassword(ctx context.Context, args []string) int {
	fs := e.flags("admin user must-change-password")
	all := fs.Bool("all", false, "every user")
	fs.BoolVar(all, "A", false, "every user, short form")
	var exclude multiFlag
	fs.Var(&exclude, "exclude", "a user --all leaves alone (repeatable)")
	fs.Var(&exclude, "e", "a user --all leaves alone, short form")
	unset := fs.Bool("unset", false, "lift the requirement instead")
	// Flags may follow the names (bob --unset): parse what is left after
	// each name.
	var names []string
	for {
		if code, ok := parseFlags(fs, args); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		names, args = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	if !*all && len(names) == 0 {
		return e.fail(fmt.Errorf("name the users, or give --all"))
	}
	if *all && len(names) > 0 {
		return e.fail(fmt.Errorf("give either user names or --all, not both"))
	}
	return e.withTools(ctx, func(t *adminTools) error {
		n, err := t.store.SetMustChangePassword(ctx, *all, names, exclude, !*unset)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Updated %d users setting MustChangePassword to %t\n", n, !*unset)
		return nil
	})
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*m = append(*m, s)
		}
	}
	return nil
}

func (e *cliEnv) adminList(ctx context.Context, args []string) int {
	fs := e.flags("admin user list")
	onlyAdmins := fs.Bool("admin", false, "list only administrators")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	return e.withTools(ctx, func(t *adminTools) error {
		w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tUsername\tEmail\tIsActive\tIsAdmin\t2FA")
		for offset := 0; ; {
			page, _, err := t.store.ListUsers(ctx, store.ListUsersOptions{Offset: offset, Limit: 500})
			if err != nil {
				return err
			}
			for _, u := range page {
				if *onlyAdmins && !u.IsAdmin {
					continue
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%t\t%t\t%t\n", u.ID, u.Name, u.Email, u.IsActive, u.IsAdmin, u.TOTPSecret != nil)
			}
			if len(page) < 500 {
				break
			}
			offset += len(page)
		}
		return w.Flush()
	})
}

func (e *cliEnv) adminDelete(ctx context.Context, args []string) int {
	fs := e.flags("admin user delete")
	username := fs.String("username", "", "user name (required)")
	purge := fs.Bool("purge", false, "also delete the user's repositories")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	return e.withTools(ctx, func(t *adminTools) error {
		if _, err := t.admin.DeleteUser(ctx, &adminv1.DeleteUserRequest{Username: *username, Purge: *purge}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "User '%s' has been deleted.\n", *username)
		return nil
	})
}

func (e *cliEnv) adminChangePassword(ctx context.Context, args []string) int {
	fs := e.flags("admin user change-password")
	username := fs.String("username", "", "user name (required)")
	password := fs.String("password", "", "new password (required)")
	mustChange := fs.Bool("must-change-password", false, "require another change before the API can be used")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *password == "" {
		return e.fail(fmt.Errorf("--password is required"))
	}
	return e.withTools(ctx, func(t *adminTools) error {
		_, err := t.admin.EditUser(ctx, &adminv1.EditUserRequest{Username: *username, Password: *password, MustChangePassword: mustChange})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s's password has been successfully updated!\n", *username)
		return nil
	})
}

func (e *cliEnv) adminTOTP(ctx context.Context, args []string) int {
	if len(args) == 0 || (args[0] != "enable" && args[0] != "disable") {
		fmt.Fprintln(e.stderr, "usage: forge admin user totp enable|disable --username U")
		return 2
	}
	action := args[0]
	fs := e.flags("admin user totp " + action)
	username := fs.String("username", "", "user name (required)")
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	return e.withTools(ctx, func(t *adminTools) error {
		if action == "disable" {
			if _, err := t.admin.DisableUserTOTP(ctx, &adminv1.DisableUserTOTPRequest{Username: *username}); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Two-factor authentication disabled for '%s'.\n", *username)
			return nil
		}
		resp, err := t.admin.EnableUserTOTP(ctx, &adminv1.EnableUserTOTPRequest{Username: *username})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Two-factor authentication enabled for '%s'. Load this URI into an authenticator:\n%s\n", *username, resp.GetOtpauthUri())
		return nil
	})
}
