package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"forge/services/ldapauth"
)

// adminAuth is `forge admin auth`: the LDAP login sources, with Gitea's
// commands and flag names.
func (e *cliEnv) adminAuth(sub string, args []string) int {
	ctx := context.Background()
	switch sub {
	case "add-ldap":
		return e.authAddLDAP(ctx, args, false)
	case "update-ldap":
		return e.authAddLDAP(ctx, args, true)
	case "list":
		return e.authList(ctx, args)
	case "delete":
		return e.authDelete(ctx, args)
	}
	fmt.Fprintf(e.stderr, "forge admin auth: unknown command %q\n", sub)
	return 2
}

// ldapFlags are add-ldap's and update-ldap's flags.
type ldapFlags struct {
	fs                                          *flag.FlagSet
	id                                          *int64
	name, protocol, host                        *string
	port                                        *int
	bindDN, bindPassword, bindPasswordFile      *string
	userBase, filter, adminFilter, restrFilt    *string
	attrUser, attrFirst, attrSurname, attrMail  *string
	skipVerify, sync, noSync, active, notActive *bool
}

func (e *cliEnv) ldapFlagSet(name string, update bool) *ldapFlags {
	fs := e.flags(name)
	f := &ldapFlags{fs: fs}
	if update {
		f.id = fs.Int64("id", 0, "ID of the source to update (required)")
	}
	f.active = fs.Bool("active", false, "activate the source")
	f.noSync = fs.Bool("disable-synchronize-users", false, "disable user synchronization")
	f.name = fs.String("name", "", "source name")
	f.notActive = fs.Bool("not-active", false, "deactivate the source")
	f.protocol = fs.String("security-protocol", "", "unencrypted, ldaps or starttls")
	f.skipVerify = fs.Bool("skip-tls-verify", false, "do not verify the directory's TLS certificate")
	f.host = fs.String("host", "", "directory host")
	f.port = fs.Int("port", 0, "directory port")
	f.bindDN = fs.String("bind-dn", "", "DN to search users with")
	f.bindPassword = fs.String("bind-password", "", "password of the bind DN (prefer --bind-password-file)")
	f.bindPasswordFile = fs.String("bind-password-file", "", "file holding the bind DN's password (first line)")
	f.userBase = fs.String("user-search-base", "", "where user accounts are searched")
	f.filter = fs.String("user-filter", "", "LDAP filter of the user signing in; %s is the login name")
	f.adminFilter = fs.String("admin-filter", "", "LDAP filter of the users who are site administrators")
	f.restrFilt = fs.String("restricted-filter", "", "LDAP filter of the users who are restricted")
	f.attrUser = fs.String("username-attribute", "", "attribute of the user name")
	f.attrFirst = fs.String("firstname-attribute", "", "attribute of the first name")
	f.attrSurname = fs.String("surname-attribute", "", "attribute of the surname")
	f.attrMail = fs.String("email-attribute", "", "attribute of the e-mail address")
	f.sync = fs.Bool("synchronize-users", false, "enable user synchronization")
	return f
}

// apply copies the flags given on the command line onto src.
func (f *ldapFlags) apply(src *ldapauth.Source) error {
	var err error
	f.fs.Visit(func(fl *flag.Flag) {
		c := &src.Config
		switch fl.Name {
		case "name":
			src.Name = *f.name
		case "active":
			src.Active = *f.active
		case "not-active":
			src.Active = !*f.notActive
		case "synchronize-users":
			src.Sync = *f.sync
		case "disable-synchronize-users":
			src.Sync = !*f.noSync
		case "security-protocol":
			c.SecurityProtocol = strings.ToLower(*f.protocol)
		case "skip-tls-verify":
			c.SkipVerify = *f.skipVerify
		case "host":
			c.Host = *f.host
		case "port":
			c.Port = *f.port
		case "bind-dn":
			c.BindDN = *f.bindDN
		case "bind-password":
			c.BindPassword = *f.bindPassword
		case "bind-password-file":
			b, rerr := os.ReadFile(*f.bindPasswordFile)
			if rerr != nil {
				err = rerr
				return
			}
			c.BindPassword, _, _ = strings.Cut(strings.TrimRight(string(b), "\r\n"), "\n")
		case "user-search-base":
			c.UserBase = *f.userBase
		case "user-filter":
			c.Filter = *f.filter
		case "admin-filter":
			c.AdminFilter = *f.adminFilter
		case "restricted-filter":
			c.RestrictedFilter = *f.restrFilt
		case "username-attribute":
			c.AttributeUsername = *f.attrUser
		case "firstname-attribute":
			c.AttributeName = *f.attrFirst
		case "surname-attribute":
			c.AttributeSurname = *f.attrSurname
		case "email-attribute":
			c.AttributeMail = *f.attrMail
		}
	})
	return err
}

// authAddLDAP adds a source (the directory is not contacted) or, with
// update, changes the flags given of source --id.
func (e *cliEnv) authAddLDAP(ctx context.Context, args []string, update bool) int {
	name := "admin auth add-ldap"
	if update {
		name = "admin auth update-ldap"
	}
	f := e.ldapFlagSet(name, update)
	if code, ok := parseFlags(f.fs, args); !ok {
		return code
	}
	if f.fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "forge %s: unexpected argument %q\n", name, f.fs.Arg(0))
		return 2
	}
	if update && *f.id <= 0 {
		return e.fail(errors.New("--id is required"))
	}
	if !update && *f.name == "" {
		return e.fail(errors.New("--name is required"))
	}
	return e.withTools(ctx, func(t *adminTools) error {
		if update {
			_, err := t.sources.Update(ctx, *f.id, f.apply)
			return err
		}
		src := ldapauth.Source{Active: true}
		if err := f.apply(&src); err != nil {
			return err
		}
		_, err := t.sources.Add(ctx, src)
		return err
	})
}

// authList prints one source per line, tab separated as Gitea's table:
// ID, Name, Type, Enabled. Configurations (bind passwords) stay sealed.
func (e *cliEnv) authList(ctx context.Context, args []string) int {
	fs := e.flags("admin auth list")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	return e.withTools(ctx, func(t *adminTools) error {
		rows, err := t.sources.List(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "ID\tName\tType\tEnabled")
		for _, r := range rows {
			fmt.Fprintf(e.stdout, "%d\t%s\t%s\t%t\n", r.ID, r.Name, ldapauth.TypeName(r.Type), r.IsActive)
		}
		return nil
	})
}

// authDelete deletes source --id; refused while users belong to it.
func (e *cliEnv) authDelete(ctx context.Context, args []string) int {
	fs := e.flags("admin auth delete")
	id := fs.Int64("id", 0, "ID of the source to delete (required)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *id <= 0 {
		return e.fail(errors.New("--id is required"))
	}
	return e.withTools(ctx, func(t *adminTools) error {
		return t.sources.Delete(ctx, *id)
	})
}
