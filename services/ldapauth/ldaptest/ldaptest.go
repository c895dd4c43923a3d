// Package ldaptest runs a throwaway OpenLDAP server (slapd) for tests: a
// generated slapd.conf, an mdb database in the test's temporary directory,
// listening on 127.0.0.1 at a free port, killed at cleanup.
//
// slapd comes from Debian's packages slapd and ldap-utils (.ci/run
// installs them). Without them a test fails under CI=true and is skipped
// otherwise.
package ldaptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"forge/services/ldapauth"
)

// The directory's fixed names.
const (
	BaseDN       = "dc=example,dc=org"
	PeopleDN     = "ou=people," + BaseDN
	BindDN       = "cn=admin," + BaseDN
	BindPassword = "bind-secret"
	// UserFilter finds a person by uid.
	UserFilter = "(&(objectClass=inetOrgPerson)(uid=%s))"
	// AdminFilter matches the people added with admin set.
	AdminFilter = "(employeeType=admin)"
)

// Server is a running slapd: plain LDAP (and StartTLS) on Port, LDAPS on
// TLSPort, with a self-signed certificate for 127.0.0.1.
type Server struct {
	Host    string
	Port    int
	TLSPort int
	dir     string

	mu  sync.Mutex
	cmd *exec.Cmd
	log *bytes.Buffer
}

// slapdPath finds slapd, or fails (CI) or skips the test.
func slapdPath(t testing.TB) string {
	for _, p := range []string{"/usr/sbin/slapd", "/usr/local/sbin/slapd"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("slapd"); err == nil {
		return p
	}
	const msg = "slapd is not installed (apt-get install slapd ldap-utils)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + ": required under CI")
	}
	t.Skip(msg + "; skipped because CI is not set")
	return ""
}

// schemaDir holds the schema files Debian installs.
const schemaDir = "/etc/ldap/schema"

// Start runs slapd with an empty directory holding the base and people
// entries, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := slapdPath(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "db"), 0o700); err != nil {
		t.Fatal(err)
	}
	modules := ""
	for _, p := range []string{"/usr/lib/ldap", "/usr/lib/openldap", "/usr/local/libexec/openldap"} {
		if _, err := os.Stat(filepath.Join(p, "back_mdb.so")); err == nil {
			modules = fmt.Sprintf("modulepath %s\nmoduleload back_mdb\n", p)
			break
		}
	}
	// Ubuntu confines /usr/sbin/slapd with AppArmor to its own
	// directories; a copy elsewhere runs unconfined and may use the
	// test's temporary directory.
	if _, err := os.Stat("/etc/apparmor.d/usr.sbin.slapd"); err == nil {
		bin = copyBinary(t, bin, filepath.Join(dir, "slapd"))
	}
	cert, key := writeCertificate(t, dir)
	conf := fmt.Sprintf(`include %[1]s/core.schema
include %[1]s/cosine.schema
include %[1]s/inetorgperson.schema
include %[1]s/nis.schema
%[2]s
pidfile %[3]s/slapd.pid
argsfile %[3]s/slapd.args
TLSCertificateFile %[7]s
TLSCertificateKeyFile %[8]s

database mdb
maxsize 16777216
suffix "%[4]s"
rootdn "%[5]s"
rootpw %[6]s
directory %[3]s/db
access to attrs=userPassword
  by self write
  by anonymous auth
  by dn.exact="%[5]s" read
  by * none
access to * by * read
`, schemaDir, modules, dir, BaseDN, BindDN, BindPassword, cert, key)
	confPath := filepath.Join(dir, "slapd.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Server{Host: "127.0.0.1", dir: dir}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s.Port, s.TLSPort = freePort(t), freePort(t)
		if lastErr = s.start(bin, confPath); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("slapd did not start: %v", lastErr)
	}
	t.Cleanup(s.Stop)
	s.seed(t)
	return s
}

func up(host string, port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// writeCertificate writes a self-signed certificate for 127.0.0.1 and its
// key (PEM) into dir.
func writeCertificate(t testing.TB, dir string) (certPath, keyPath string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath
}

func copyBinary(t testing.TB, from, to string) string {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o700); err != nil {
		t.Fatal(err)
	}
	return to
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs slapd in the foreground (-d 0) and waits until it answers.
func (s *Server) start(bin, conf string) error {
	url := fmt.Sprintf("ldap://%s:%d/ ldaps://%s:%d/", s.Host, s.Port, s.Host, s.TLSPort)
	cmd := exec.Command(bin, "-f", conf, "-h", url, "-d", "0")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("slapd exited (%v): %s", err, log.String())
		default:
		}
		if up(s.Host, s.Port) && up(s.Host, s.TLSPort) {
			s.mu.Lock()
			s.cmd, s.log = cmd, &log
			s.mu.Unlock()
			go func() { <-exited }()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("slapd did not listen on %s: %s", url, log.String())
}

// Stop kills slapd (the directory is then unreachable). Safe to call twice.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	s.cmd = nil
}

func (s *Server) conn(t testing.TB) *ldap.Conn {
	t.Helper()
	c, err := ldap.DialURL(fmt.Sprintf("ldap://%s:%d", s.Host, s.Port))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(BindDN, BindPassword); err != nil {
		c.Close()
		t.Fatal(err)
	}
	return c
}

func (s *Server) seed(t testing.TB) {
	c := s.conn(t)
	defer c.Close()
	base := ldap.NewAddRequest(BaseDN, nil)
	base.Attribute("objectClass", []string{"dcObject", "organization"})
	base.Attribute("dc", []string{"example"})
	base.Attribute("o", []string{"Example"})
	people := ldap.NewAddRequest(PeopleDN, nil)
	people.Attribute("objectClass", []string{"organizationalUnit"})
	people.Attribute("ou", []string{"people"})
	for _, r := range []*ldap.AddRequest{base, people} {
		if err := c.Add(r); err != nil {
			t.Fatalf("seed %s: %v", r.DN, err)
		}
	}
}

// User is a person in the directory.
type User struct {
	UID, Password, GivenName, Surname, Mail string
	Admin                                   bool
}

// AddUser adds a person under PeopleDN.
func (s *Server) AddUser(t testing.TB, u User) {
	t.Helper()
	c := s.conn(t)
	defer c.Close()
	r := ldap.NewAddRequest("uid="+ldap.EscapeDN(u.UID)+","+PeopleDN, nil)
	r.Attribute("objectClass", []string{"inetOrgPerson"})
	r.Attribute("uid", []string{u.UID})
	r.Attribute("cn", []string{u.GivenName + " " + u.Surname})
	r.Attribute("sn", []string{u.Surname})
	if u.GivenName != "" {
		r.Attribute("givenName", []string{u.GivenName})
	}
	if u.Mail != "" {
		r.Attribute("mail", []string{u.Mail})
	}
	r.Attribute("userPassword", []string{u.Password})
	if u.Admin {
		r.Attribute("employeeType", []string{"admin"})
	}
	if err := c.Add(r); err != nil {
		t.Fatalf("add %s: %v", u.UID, err)
	}
}

// SetAdmin sets or clears the person's admin mark.
func (s *Server) SetAdmin(t testing.TB, uid string, admin bool) {
	t.Helper()
	c := s.conn(t)
	defer c.Close()
	m := ldap.NewModifyRequest("uid="+ldap.EscapeDN(uid)+","+PeopleDN, nil)
	if admin {
		m.Replace("employeeType", []string{"admin"})
	} else {
		m.Delete("employeeType", nil)
	}
	if err := c.Modify(m); err != nil {
		t.Fatalf("modify %s: %v", uid, err)
	}
}

// Config is a source configuration for this directory: bind DN search of
// people by uid, admin filter on employeeType, first name, surname and
// e-mail attributes.
func (s *Server) Config() ldapauth.Config {
	return ldapauth.Config{
		Host: s.Host, Port: s.Port, SecurityProtocol: ldapauth.Unencrypted,
		BindDN: BindDN, BindPassword: BindPassword,
		UserBase: PeopleDN, Filter: UserFilter, AdminFilter: AdminFilter,
		AttributeUsername: "uid", AttributeName: "givenName", AttributeSurname: "sn", AttributeMail: "mail",
	}
}

// SetAttribute replaces the values of the person's attribute attr.
func (s *Server) SetAttribute(t testing.TB, uid, attr string, values ...string) {
	t.Helper()
	c := s.conn(t)
	defer c.Close()
	m := ldap.NewModifyRequest("uid="+ldap.EscapeDN(uid)+","+PeopleDN, nil)
	m.Replace(attr, values)
	if err := c.Modify(m); err != nil {
		t.Fatalf("modify %s: %v", uid, err)
	}
}

// DeleteUser removes the person from the directory.
func (s *Server) DeleteUser(t testing.TB, uid string) {
	t.Helper()
	c := s.conn(t)
	defer c.Close()
	if err := c.Del(ldap.NewDelRequest("uid="+ldap.EscapeDN(uid)+","+PeopleDN, nil)); err != nil {
		t.Fatalf("delete %s: %v", uid, err)
	}
}
