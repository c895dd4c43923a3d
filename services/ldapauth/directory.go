// Package ldapauth is forge's LDAP authentication source (Gitea's "LDAP
// (via BindDN)"): the sources' configuration, sealed at rest with
// secretbox, and the sign-in of their users. A sign-in searches the user
// with the source's bind DN (the user filter with %s replaced by the
// escaped login name) and then binds as the entry found with the given
// password; the password is never stored. The authenticator
// (services/auth) calls it for users whose login_source names a source,
// and for unknown names, which an active source may create on their first
// sign-in.
package ldapauth

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-ldap/ldap/v3"

	"forge/services/errs"
)

// Security protocols, Gitea's names.
const (
	Unencrypted = "unencrypted"
	LDAPS       = "ldaps"
	StartTLS    = "starttls"
)

// Config is one source's configuration, stored as sealed JSON.
type Config struct {
	Host              string `json:"host"`
	Port              int    `json:"port"`
	SecurityProtocol  string `json:"security_protocol"`
	SkipVerify        bool   `json:"skip_verify,omitempty"`
	BindDN            string `json:"bind_dn,omitempty"`
	BindPassword      string `json:"bind_password,omitempty"`
	UserBase          string `json:"user_base"`
	Filter            string `json:"filter"`
	AdminFilter       string `json:"admin_filter,omitempty"`
	RestrictedFilter  string `json:"restricted_filter,omitempty"`
	AttributeUsername string `json:"attribute_username,omitempty"`
	AttributeName     string `json:"attribute_name,omitempty"`
	AttributeSurname  string `json:"attribute_surname,omitempty"`
	AttributeMail     string `json:"attribute_mail"`
}

// Bounds of the configuration's fields.
const (
	maxHost   = 255
	maxField  = 1024
	maxLogin  = 255
	maxSecret = 1024
)

// Validate checks what a source needs to work: Gitea's required flags of
// add-ldap (host, port, user search base, user filter, e-mail attribute)
// and sizes.
func (c *Config) Validate() error {
	if c.SecurityProtocol == "" {
		c.SecurityProtocol = Unencrypted
	}
	switch {
	case c.Host == "":
		return errors.New("host is required")
	case len(c.Host) > maxHost || strings.ContainsAny(c.Host, "/ \t\r\n"):
		return fmt.Errorf("invalid host %q", c.Host)
	case c.Port < 1 || c.Port > 65535:
		return fmt.Errorf("invalid port %d (1-65535)", c.Port)
	case c.SecurityProtocol != Unencrypted && c.SecurityProtocol != LDAPS && c.SecurityProtocol != StartTLS:
		return fmt.Errorf("invalid security protocol %q (unencrypted, ldaps, starttls)", c.SecurityProtocol)
	case c.UserBase == "":
		return errors.New("user search base is required")
	case c.Filter == "":
		return errors.New("user filter is required")
	case c.AttributeMail == "":
		return errors.New("email attribute is required")
	case len(c.BindPassword) > maxSecret:
		return errors.New("bind password is too long")
	}
	for _, f := range []string{c.BindDN, c.UserBase, c.Filter, c.AdminFilter, c.RestrictedFilter,
		c.AttributeUsername, c.AttributeName, c.AttributeSurname, c.AttributeMail} {
		if len(f) > maxField {
			return fmt.Errorf("a setting is longer than %d bytes", maxField)
		}
	}
	for _, f := range []string{c.Filter, c.AdminFilter, c.RestrictedFilter} {
		if f == "" {
			continue
		}
		if _, err := ldap.CompileFilter(strings.ReplaceAll(f, "%s", "x")); err != nil {
			return fmt.Errorf("invalid filter %q: %v", f, err)
		}
	}
	return nil
}

// Entry is a directory user who signed in.
type Entry struct {
	DN         string
	Username   string // the username attribute, or the login name
	FirstName  string
	Surname    string
	Mail       string
	IsAdmin    bool // meaningful only when the source has an admin filter
	Restricted bool // meaningful only when the source has a restricted filter
}

// Outcomes of Authenticate.
var (
	// ErrBadCredentials: no single entry matches the login name, or the
	// password is wrong.
	ErrBadCredentials = errs.New(errs.Unauthenticated, "invalid credentials")
	// ErrUnavailable: the directory could not be reached or refused the
	// bind DN; nothing was learnt about the user's password.
	ErrUnavailable = errs.New(errs.Unavailable, "authentication source unavailable")
)

// Timeouts of one sign-in's connection.
var (
	dialTimeout    = 5 * time.Second
	requestTimeout = 10 * time.Second
)

func (c *Config) dial() (*ldap.Conn, error) {
	tlsCfg := &tls.Config{ServerName: c.Host, InsecureSkipVerify: c.SkipVerify, MinVersion: tls.VersionTLS12} //nolint:gosec // the operator's choice (--skip-tls-verify)
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	dialer := &net.Dialer{Timeout: dialTimeout}
	var (
		conn *ldap.Conn
		err  error
	)
	if c.SecurityProtocol == LDAPS {
		conn, err = ldap.DialURL("ldaps://"+addr, ldap.DialWithDialer(dialer), ldap.DialWithTLSConfig(tlsCfg))
	} else {
		conn, err = ldap.DialURL("ldap://"+addr, ldap.DialWithDialer(dialer))
	}
	if err != nil {
		return nil, err
	}
	conn.SetTimeout(requestTimeout)
	if c.SecurityProtocol == StartTLS {
		if err := conn.StartTLS(tlsCfg); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// Authenticate finds login in the directory with the bind DN and binds as
// the entry found with password. An empty password is refused before any
// bind (an LDAP bind with an empty password is an anonymous bind, which
// succeeds).
func (c *Config) Authenticate(login, password string) (*Entry, error) {
	if login == "" || password == "" || len(login) > maxLogin || len(password) > maxSecret {
		return nil, ErrBadCredentials
	}
	conn, err := c.dial()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer conn.Close()
	if c.BindDN != "" {
		if err := conn.Bind(c.BindDN, c.BindPassword); err != nil {
			return nil, fmt.Errorf("%w: bind DN: %v", ErrUnavailable, err)
		}
	}
	filter := strings.ReplaceAll(c.Filter, "%s", ldap.EscapeFilter(login))
	res, err := conn.Search(ldap.NewSearchRequest(c.UserBase, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases,
		2, int(requestTimeout/time.Second), false, filter, c.attributes(), nil))
	if err != nil && !ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) {
		if ldap.IsErrorWithCode(err, ldap.LDAPResultNoSuchObject) {
			return nil, ErrBadCredentials
		}
		return nil, fmt.Errorf("%w: search: %v", ErrUnavailable, err)
	}
	if res == nil || len(res.Entries) != 1 {
		return nil, ErrBadCredentials // none, or ambiguous
	}
	e := res.Entries[0]
	out := c.entry(e, login)
	// The admin and restricted filters are read with the bind DN's rights,
	// before the connection binds as the user.
	if out.IsAdmin, err = matches(conn, e.DN, c.AdminFilter); err != nil {
		return nil, err
	}
	if out.Restricted, err = matches(conn, e.DN, c.RestrictedFilter); err != nil {
		return nil, err
	}
	if err := conn.Bind(e.DN, password); err != nil {
		if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
			return nil, ErrBadCredentials
		}
		return nil, fmt.Errorf("%w: bind: %v", ErrUnavailable, err)
	}
	return out, nil
}

// attributes are the attributes an entry is read with.
func (c *Config) attributes() []string {
	attrs := []string{}
	for _, a := range []string{c.AttributeUsername, c.AttributeName, c.AttributeSurname, c.AttributeMail} {
		if a != "" {
			attrs = append(attrs, a)
		}
	}
	return attrs
}

// entry reads a directory entry's attributes; its user name is the
// username attribute's value, or login when that is empty.
func (c *Config) entry(e *ldap.Entry, login string) *Entry {
	out := &Entry{DN: e.DN, Username: login}
	if c.AttributeUsername != "" {
		if v := e.GetAttributeValue(c.AttributeUsername); v != "" {
			out.Username = v
		}
	}
	if c.AttributeName != "" {
		out.FirstName = e.GetAttributeValue(c.AttributeName)
	}
	if c.AttributeSurname != "" {
		out.Surname = e.GetAttributeValue(c.AttributeSurname)
	}
	out.Mail = e.GetAttributeValue(c.AttributeMail)
	return out
}

// matches reports whether the entry dn matches filter (false for no
// filter).
func matches(conn *ldap.Conn, dn, filter string) (bool, error) {
	if filter == "" {
		return false, nil
	}
	res, err := conn.Search(ldap.NewSearchRequest(dn, ldap.ScopeBaseObject, ldap.NeverDerefAliases,
		1, int(requestTimeout/time.Second), false, filter, []string{"dn"}, nil))
	if err != nil {
		if ldap.IsErrorWithCode(err, ldap.LDAPResultNoSuchObject) {
			return false, nil
		}
		return false, fmt.Errorf("%w: filter: %v", ErrUnavailable, err)
	}
	return len(res.Entries) > 0, nil
}
