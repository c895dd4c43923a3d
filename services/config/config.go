// Package config loads forge's settings from a Gitea-style app.ini file and
// FORGE__SECTION__KEY environment variables. Defaults live in Default; every
// key forge reads is listed in docs/config.md.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/ini.v1"
)

// Config is the typed configuration. Zero values are never used: Load starts
// from Default.
type Config struct {
	Server       Server
	Database     Database
	Security     Security
	Service      Service
	Repository   Repository
	API          API
	Migrations   Migrations
	Limits       Limits
	Attachment   Attachment
	Admin        Admin
	Webhook      Webhook
	UI           UI
	TimeTracking TimeTracking
	Log          Log
	Metrics      Metrics
	Picture      Picture

	// Unread lists the keys of the file and the environment forge does
	// not read ("[sevrer] ROOT_URL"): a typo, or a Gitea setting forge
	// does not have. serve warns about them once at start-up.
	Unread []string
}

// Log says where forge's log lines go ([log], as Gitea names the keys).
type Log struct {
	// Level is the least level written ([log] LEVEL): Trace, Debug,
	// Info, Warn, Error, Critical, Fatal or None, as in Gitea (Trace is
	// Debug, Critical and Fatal are Error).
	Level string
	// Modes are the writers ([log] MODE, comma-separated): console
	// (standard error) and file (ROOT_PATH/forge.log, rotated).
	Modes []string
	// RootPath is the directory of the log files ([log] ROOT_PATH,
	// default "log" under the work path).
	RootPath string
	// EnableAccessLog writes one line per request ([log]
	// ENABLE_ACCESS_LOG); in file mode to ROOT_PATH/access.log.
	EnableAccessLog bool
	// Rotate rotates the files by size ([log] LOG_ROTATE); MaxSizeShift
	// is the size as a power of two ([log] MAX_SIZE_SHIFT, 28: 256 MiB),
	// MaxDays how long rotated files are kept ([log] MAX_DAYS).
	Rotate       bool
	MaxSizeShift int
	MaxDays      int
}

// Metrics configures GET /metrics ([metrics], as Gitea).
type Metrics struct {
	Enabled bool   // [metrics] ENABLED
	Token   string // [metrics] TOKEN: when set, scrapes send "Authorization: Bearer TOKEN"
}

// Picture configures avatars.
type Picture struct {
	// DisableGravatar: avatar URLs point at forge ([server] ROOT_URL
	// avatars/...) instead of Gravatar's hash of the e-mail address
	// ([picture] DISABLE_GRAVATAR).
	DisableGravatar bool
}

// Webhook configures the delivery of webhooks.
type Webhook struct {
	DeliverTimeout  int    // [webhook] DELIVER_TIMEOUT, seconds per delivery
	AllowedHostList string // [webhook] ALLOWED_HOST_LIST, Gitea's values
	SkipTLSVerify   bool   // [webhook] SKIP_TLS_VERIFY
	Workers         int    // [webhook] DELIVERY_WORKERS (forge's own): deliveries at once per process
	Disabled        bool   // [security] DISABLE_WEBHOOKS
}

// UI holds the [ui] settings the API applies.
type UI struct {
	// Reactions are the reactions users may give ([ui] REACTIONS,
	// comma-separated; Gitea's default list when unset).
	Reactions []string
}

// DefaultReactions is Gitea's default [ui] REACTIONS.
var DefaultReactions = []string{"+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"}

// TimeTracking holds Gitea's time tracking settings of [service].
type TimeTracking struct {
	Enabled bool // [service] ENABLE_TIMETRACKING
	// DefaultEnabled: new repositories track time ([service]
	// DEFAULT_ENABLE_TIMETRACKING).
	DefaultEnabled bool
	// DefaultContributorsOnly: only contributors (writers of the issues
	// unit) track time ([service] DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME).
	DefaultContributorsOnly bool
}

type Admin struct {
	// DisableRegularOrgCreation: only site administrators create
	// organizations ([admin] DISABLE_REGULAR_ORG_CREATION).
	DisableRegularOrgCreation bool
}

type Server struct {
	AppDataPath string // [server] APP_DATA_PATH
	HTTPAddr    string // [server] HTTP_ADDR
	HTTPPort    int    // [server] HTTP_PORT
	RootURL     string // [server] ROOT_URL, always ends with "/"
	GRPCAddr    string // [server] GRPC_ADDR (forge's own)
	SSH         SSH
}

// CloneUser is the user name SSH clone URLs show.
func (s SSH) CloneUser() string {
	if s.User != "" {
		return s.User
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "git"
}

// SSH is the built-in SSH server for git and the checks on SSH keys.
type SSH struct {
	Start      bool   // [server] START_SSH_SERVER
	ListenHost string // [server] SSH_LISTEN_HOST
	// ListenPort is where the server listens ([server] SSH_LISTEN_PORT,
	// default SSH_PORT; 0: a free port, see App.SSHAddr).
	ListenPort int
	Domain     string // [server] SSH_DOMAIN, default the host of ROOT_URL
	Port       int    // [server] SSH_PORT, shown in clone URLs
	// User is the user name in clone URLs ([server] SSH_USER, default
	// BUILTIN_SSH_SERVER_USER; empty: the user forge runs as, CloneUser).
	User string
	// MinimumKeySizeCheck turns the key size rules on ([ssh]
	// MINIMUM_KEY_SIZE_CHECK).
	MinimumKeySizeCheck bool
	// MinimumKeySizes is the least size in bits of each key type allowed
	// ([ssh.minimum_key_sizes]; -1 refuses the type). A type not listed
	// is refused.
	MinimumKeySizes map[string]int
}

// Domain is the host part of ROOT_URL, used for no-reply e-mail placeholders.
func (s Server) Domain() string {
	u, err := url.Parse(s.RootURL)
	if err != nil || u.Hostname() == "" {
		return "localhost"
	}
	return u.Hostname()
}

type Database struct {
	Type         string // [database] DB_TYPE: sqlite3 or postgres
	Host         string // [database] HOST, host:port
	Name         string // [database] NAME
	User         string // [database] USER
	Passwd       string // [database] PASSWD
	SSLMode      string // [database] SSL_MODE
	Path         string // [database] PATH, the SQLite file
	MaxOpenConns int    // [database] MAX_OPEN_CONNS
	MaxIdleConns int    // [database] MAX_IDLE_CONNS
}

type Security struct {
	SecretKey                  string       // [security] SECRET_KEY
	DisableQueryAuthToken      bool         // [security] DISABLE_QUERY_AUTH_TOKEN
	ReverseProxyAuthUser       string       // [security] REVERSE_PROXY_AUTHENTICATION_USER
	ReverseProxyTrustedProxies []*net.IPNet // [security] REVERSE_PROXY_TRUSTED_PROXIES
	MinPasswordLength          int          // [security] MIN_PASSWORD_LENGTH
	LoginThrottle
}

// LoginThrottle bounds what password sign-ins may cost: argon2id holds
// about 19 MiB per running check, so both the checks running at once and
// the failures an account or address may rack up are limited.
type LoginThrottle struct {
	PasswordHashConcurrency    int // [security] PASSWORD_HASH_CONCURRENCY; 0: one per CPU
	PasswordHashQueue          int // [security] PASSWORD_HASH_QUEUE
	LoginMaxFailuresPerAccount int // [security] LOGIN_MAX_FAILURES_PER_ACCOUNT; 0: no limit
	LoginMaxFailuresPerAddress int // [security] LOGIN_MAX_FAILURES_PER_ADDRESS; 0: no limit
	LoginFailureWindowSeconds  int // [security] LOGIN_FAILURE_WINDOW_SECONDS
	LoginFailureMaxTracked     int // [security] LOGIN_FAILURE_MAX_TRACKED
}

type Service struct {
	EnableReverseProxyAuthAPI bool // [service] ENABLE_REVERSE_PROXY_AUTHENTICATION_API
	// AllowCrossRepositoryDependencies: an issue may depend on an issue of
	// another repository ([service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES).
	AllowCrossRepositoryDependencies bool
}

type Repository struct {
	Root                    string // [repository] ROOT
	RetargetChildrenOnMerge bool   // [repository.pull-request] RETARGET_CHILDREN_ON_MERGE
	MaxCreationLimit        int    // [repository] MAX_CREATION_LIMIT
	MaxPinned               int    // [repository.issue] MAX_PINNED: pinned issues (and pull requests) per repository
}

// Attachment configures stored files: issue and comment attachments, and
// release assets (which have their own type list and size, as in Gitea's
// [repository.release]).
type Attachment struct {
	Path         string // [attachment] PATH, the blob directory
	MaxSize      int    // [attachment] MAX_SIZE, MiB per file
	AllowedTypes string // [attachment] ALLOWED_TYPES: extensions, MIME types, type/*; empty or */*: any
	// Release assets.
	ReleaseMaxSize      int    // [repository.release] FILE_MAX_SIZE, MiB per file
	ReleaseAllowedTypes string // [repository.release] ALLOWED_TYPES; empty: any
}

// DefaultAllowedTypes is Gitea's default [attachment] ALLOWED_TYPES.
const DefaultAllowedTypes = ".cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.xls,.xlsx,.zip"

type API struct {
	DefaultPagingNum int // [api] DEFAULT_PAGING_NUM
	MaxResponseItems int // [api] MAX_RESPONSE_ITEMS
	// AnswerCacheSize bounds the answer cache in bytes ([api]
	// ANSWER_CACHE_SIZE, forge's own; 0 turns it off): REST answers
	// replayed while the database is unchanged (gateway/answers.go).
	AnswerCacheSize int
}

type Migrations struct {
	AllowLocalNetworks bool // [migrations] ALLOW_LOCALNETWORKS
}

// Limits bound what one client can make the server hold: memory for
// request bodies, connections, and git processes. Durations are seconds,
// as in Gitea's [git.timeout].
type Limits struct {
	MaxRequestBodySize int // [api] MAX_REQUEST_BODY_SIZE, bytes, REST and gRPC
	APIReadTimeout     int // [api] READ_TIMEOUT, seconds to read one API request
	IdleTimeout        int // [server] IDLE_TIMEOUT, seconds a keep-alive connection may idle
	GitProgressTimeout int // [git.timeout] PROGRESS, seconds a git transfer may make no progress
	GitMaxProcesses    int // [git] MAX_PROCESSES, concurrent git processes
}

// Default returns the embedded default configuration: SQLite under ./data,
// REST on 127.0.0.1:3000, gRPC on 127.0.0.1:3001.
func Default() *Config {
	return &Config{
		Server: Server{
			AppDataPath: "data",
			HTTPAddr:    "127.0.0.1",
			HTTPPort:    3000,
			RootURL:     "http://localhost:3000/",
			GRPCAddr:    "127.0.0.1:3001",
			SSH: SSH{
				Port:                22,
				MinimumKeySizeCheck: true,
				// Gitea 1.22's defaults; DSA keys are refused.
				MinimumKeySizes: map[string]int{"ed25519": 256, "ed25519-sk": 256, "ecdsa": 256, "ecdsa-sk": 256,
					"rsa": 3071, "dsa": -1},
			},
		},
		Database: Database{
			Type:         "sqlite3",
			Host:         "127.0.0.1:5432",
			Name:         "forge",
			User:         "forge",
			SSLMode:      "disable",
			Path:         "", // derived: APP_DATA_PATH/forge.db
			MaxOpenConns: 0,  // derived per database type
			MaxIdleConns: 0,
		},
		Security: Security{
			ReverseProxyAuthUser:       "X-WEBAUTH-USER",
			ReverseProxyTrustedProxies: mustCIDRs("127.0.0.0/8,::1/128"),
			MinPasswordLength:          8,
			LoginThrottle: LoginThrottle{
				PasswordHashConcurrency:    0,
				PasswordHashQueue:          64,
				LoginMaxFailuresPerAccount: 10,
				LoginMaxFailuresPerAddress: 30,
				LoginFailureWindowSeconds:  300,
				LoginFailureMaxTracked:     10000,
			},
		},
		Repository: Repository{
			Root:                    "", // derived: APP_DATA_PATH/repositories
			RetargetChildrenOnMerge: true,
			MaxCreationLimit:        -1,
			MaxPinned:               3,
		},
		API:     API{DefaultPagingNum: 30, MaxResponseItems: 50, AnswerCacheSize: 8 << 20},
		Service: Service{AllowCrossRepositoryDependencies: true},
		Attachment: Attachment{
			Path:           "", // derived: APP_DATA_PATH/attachments
			MaxSize:        2048,
			AllowedTypes:   DefaultAllowedTypes,
			ReleaseMaxSize: 2048,
		},
		Webhook:      Webhook{DeliverTimeout: 5, AllowedHostList: "external", Workers: 4},
		UI:           UI{Reactions: DefaultReactions},
		TimeTracking: TimeTracking{Enabled: true, DefaultEnabled: true, DefaultContributorsOnly: true},
		Log:          Log{Level: "Info", Modes: []string{"console"}, RootPath: "log", Rotate: true, MaxSizeShift: 28, MaxDays: 7},
		Limits: Limits{
			// Large enough for the contents API's base64 files (a 24 MiB
			// file is 32 MiB encoded), small enough that a few concurrent
			// bodies cannot exhaust memory.
			MaxRequestBodySize: 32 << 20,
			APIReadTimeout:     120,
			IdleTimeout:        90,
			// git sends keep-alives every 5 s while it works, so a minute
			// of silence is a stalled or trickling client.
			GitProgressTimeout: 60,
			GitMaxProcesses:    64,
		},
	}
}

// EnvPrefix starts every environment override: FORGE__SECTION__KEY. A dot
// in a section name is written _0X2E_ (FORGE__REPOSITORY_0X2E_PULL-REQUEST__...)
// as Gitea's environment-to-ini does.
const EnvPrefix = "FORGE__"

// Load reads the INI file at path (none when path is empty), applies the
// environment overrides in environ, and validates the result.
func Load(path string, environ []string) (*Config, error) {
	file := ini.Empty(ini.LoadOptions{})
	if path != "" {
		f, err := ini.LoadSources(ini.LoadOptions{}, path)
		if err != nil {
			return nil, fmt.Errorf("read config %s: %w", path, err)
		}
		file = f
	}
	applyEnv(file, environ)

	cfg := Default()
	r := reader{file: file, read: map[string]bool{}}
	s := &cfg.Server
	r.str("server", "APP_DATA_PATH", &s.AppDataPath)
	r.str("server", "HTTP_ADDR", &s.HTTPAddr)
	r.int("server", "HTTP_PORT", &s.HTTPPort)
	rootURLSet := r.str("server", "ROOT_URL", &s.RootURL)
	grpcSet := r.str("server", "GRPC_ADDR", &s.GRPCAddr)
	r.sshConfig(&s.SSH)

	d := &cfg.Database
	r.str("database", "DB_TYPE", &d.Type)
	r.str("database", "HOST", &d.Host)
	r.str("database", "NAME", &d.Name)
	r.str("database", "USER", &d.User)
	r.str("database", "PASSWD", &d.Passwd)
	r.str("database", "SSL_MODE", &d.SSLMode)
	r.str("database", "PATH", &d.Path)
	r.int("database", "MAX_OPEN_CONNS", &d.MaxOpenConns)
	r.int("database", "MAX_IDLE_CONNS", &d.MaxIdleConns)

	sec := &cfg.Security
	r.str("security", "SECRET_KEY", &sec.SecretKey)
	r.bool("security", "DISABLE_QUERY_AUTH_TOKEN", &sec.DisableQueryAuthToken)
	r.str("security", "REVERSE_PROXY_AUTHENTICATION_USER", &sec.ReverseProxyAuthUser)
	r.cidrs("security", "REVERSE_PROXY_TRUSTED_PROXIES", &sec.ReverseProxyTrustedProxies)
	r.int("security", "MIN_PASSWORD_LENGTH", &sec.MinPasswordLength)
	lt := &sec.LoginThrottle
	r.int("security", "PASSWORD_HASH_CONCURRENCY", &lt.PasswordHashConcurrency)
	r.int("security", "PASSWORD_HASH_QUEUE", &lt.PasswordHashQueue)
	r.int("security", "LOGIN_MAX_FAILURES_PER_ACCOUNT", &lt.LoginMaxFailuresPerAccount)
	r.int("security", "LOGIN_MAX_FAILURES_PER_ADDRESS", &lt.LoginMaxFailuresPerAddress)
	r.int("security", "LOGIN_FAILURE_WINDOW_SECONDS", &lt.LoginFailureWindowSeconds)
	r.int("security", "LOGIN_FAILURE_MAX_TRACKED", &lt.LoginFailureMaxTracked)

	r.bool("service", "ENABLE_REVERSE_PROXY_AUTHENTICATION_API", &cfg.Service.EnableReverseProxyAuthAPI)
	r.bool("service", "ALLOW_CROSS_REPOSITORY_DEPENDENCIES", &cfg.Service.AllowCrossRepositoryDependencies)
	r.bool("admin", "DISABLE_REGULAR_ORG_CREATION", &cfg.Admin.DisableRegularOrgCreation)
	r.list("ui", "REACTIONS", &cfg.UI.Reactions)
	tt := &cfg.TimeTracking
	r.bool("service", "ENABLE_TIMETRACKING", &tt.Enabled)
	r.bool("service", "DEFAULT_ENABLE_TIMETRACKING", &tt.DefaultEnabled)
	r.bool("service", "DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME", &tt.DefaultContributorsOnly)
	r.bool("picture", "DISABLE_GRAVATAR", &cfg.Picture.DisableGravatar)
	r.str("repository", "ROOT", &cfg.Repository.Root)
	r.int("repository", "MAX_CREATION_LIMIT", &cfg.Repository.MaxCreationLimit)
	r.int("repository.issue", "MAX_PINNED", &cfg.Repository.MaxPinned)
	r.bool("repository.pull-request", "RETARGET_CHILDREN_ON_MERGE", &cfg.Repository.RetargetChildrenOnMerge)
	r.int("api", "DEFAULT_PAGING_NUM", &cfg.API.DefaultPagingNum)
	r.int("api", "MAX_RESPONSE_ITEMS", &cfg.API.MaxResponseItems)
	r.int("api", "ANSWER_CACHE_SIZE", &cfg.API.AnswerCacheSize)
	r.bool("migrations", "ALLOW_LOCALNETWORKS", &cfg.Migrations.AllowLocalNetworks)
	lim := &cfg.Limits
	r.int("api", "MAX_REQUEST_BODY_SIZE", &lim.MaxRequestBodySize)
	r.int("api", "READ_TIMEOUT", &lim.APIReadTimeout)
	r.int("server", "IDLE_TIMEOUT", &lim.IdleTimeout)
	r.int("git.timeout", "PROGRESS", &lim.GitProgressTimeout)
	r.int("git", "MAX_PROCESSES", &lim.GitMaxProcesses)
	at := &cfg.Attachment
	r.str("attachment", "PATH", &at.Path)
	r.int("attachment", "MAX_SIZE", &at.MaxSize)
	r.str("attachment", "ALLOWED_TYPES", &at.AllowedTypes)
	r.int("repository.release", "FILE_MAX_SIZE", &at.ReleaseMaxSize)
	r.str("repository.release", "ALLOWED_TYPES", &at.ReleaseAllowedTypes)
	wh := &cfg.Webhook
	r.int("webhook", "DELIVER_TIMEOUT", &wh.DeliverTimeout)
	r.str("webhook", "ALLOWED_HOST_LIST", &wh.AllowedHostList)
	r.bool("webhook", "SKIP_TLS_VERIFY", &wh.SkipTLSVerify)
	r.int("webhook", "DELIVERY_WORKERS", &wh.Workers)
	r.bool("security", "DISABLE_WEBHOOKS", &wh.Disabled)
	r.logConfig(&cfg.Log)
	r.bool("metrics", "ENABLED", &cfg.Metrics.Enabled)
	r.str("metrics", "TOKEN", &cfg.Metrics.Token)
	if err := errors.Join(r.errs...); err != nil {
		return nil, err
	}

	if !rootURLSet {
		host := s.HTTPAddr
		if host == "" || host == "0.0.0.0" || host == "127.0.0.1" {
			host = "localhost"
		}
		s.RootURL = fmt.Sprintf("http://%s/", net.JoinHostPort(host, strconv.Itoa(s.HTTPPort)))
	}
	if !grpcSet {
		// gRPC moves with HTTP_PORT (the next port), so a second server
		// started on another HTTP port does not collide on gRPC's.
		port := s.HTTPPort + 1
		if s.HTTPPort == 0 || port > 65535 {
			port = 0 // HTTP on a random port: gRPC on one too
		}
		s.GRPCAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	if !strings.HasSuffix(s.RootURL, "/") {
		s.RootURL += "/"
	}
	if s.SSH.Domain == "" {
		s.SSH.Domain = s.Domain()
	}
	if d.Path == "" {
		d.Path = filepath.Join(s.AppDataPath, "forge.db")
	}
	if cfg.Repository.Root == "" {
		cfg.Repository.Root = filepath.Join(s.AppDataPath, "repositories")
	}
	if cfg.Attachment.Path == "" {
		cfg.Attachment.Path = filepath.Join(s.AppDataPath, "attachments")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Unread = r.unread()
	return cfg, nil
}

// Validate reports settings that cannot work, naming the key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config %s: %s", key, fmt.Sprintf(format, args...)))
	}
	switch c.Database.Type {
	case "sqlite3", "postgres":
	default:
		bad("[database] DB_TYPE", "%q is not supported (sqlite3, postgres)", c.Database.Type)
	}
	if c.Server.HTTPPort < 0 || c.Server.HTTPPort > 65535 {
		bad("[server] HTTP_PORT", "%d is not a port", c.Server.HTTPPort)
	}
	if _, _, err := net.SplitHostPort(c.Server.GRPCAddr); err != nil {
		bad("[server] GRPC_ADDR", "%v", err)
	}
	if u, err := url.Parse(c.Server.RootURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		bad("[server] ROOT_URL", "%q is not an http(s) URL", c.Server.RootURL)
	}
	if c.API.DefaultPagingNum < 1 {
		bad("[api] DEFAULT_PAGING_NUM", "must be at least 1")
	}
	if c.API.MaxResponseItems < 1 {
		bad("[api] MAX_RESPONSE_ITEMS", "must be at least 1")
	}
	if c.API.AnswerCacheSize < 0 {
		bad("[api] ANSWER_CACHE_SIZE", "must not be negative")
	}
	if c.Security.MinPasswordLength < 1 {
		bad("[security] MIN_PASSWORD_LENGTH", "must be at least 1")
	}
	if c.Security.ReverseProxyAuthUser == "" {
		bad("[security] REVERSE_PROXY_AUTHENTICATION_USER", "must not be empty")
	}
	c.Security.LoginThrottle.validate(bad)
	c.Log.validate(bad)
	for _, k := range []struct {
		name string
		v    int
	}{
		{"[api] MAX_REQUEST_BODY_SIZE", c.Limits.MaxRequestBodySize},
		{"[api] READ_TIMEOUT", c.Limits.APIReadTimeout},
		{"[server] IDLE_TIMEOUT", c.Limits.IdleTimeout},
		{"[git.timeout] PROGRESS", c.Limits.GitProgressTimeout},
		{"[git] MAX_PROCESSES", c.Limits.GitMaxProcesses},
		{"[attachment] MAX_SIZE", c.Attachment.MaxSize},
		{"[repository.release] FILE_MAX_SIZE", c.Attachment.ReleaseMaxSize},
		{"[webhook] DELIVER_TIMEOUT", c.Webhook.DeliverTimeout},
		{"[webhook] DELIVERY_WORKERS", c.Webhook.Workers},
	} {
		if k.v < 1 {
			bad(k.name, "must be at least 1")
		}
	}
	return errors.Join(errs...)
}

func (lt LoginThrottle) validate(bad func(key, format string, args ...any)) {
	for key, v := range map[string]int{
		"PASSWORD_HASH_CONCURRENCY":      lt.PasswordHashConcurrency,
		"PASSWORD_HASH_QUEUE":            lt.PasswordHashQueue,
		"LOGIN_MAX_FAILURES_PER_ACCOUNT": lt.LoginMaxFailuresPerAccount,
		"LOGIN_MAX_FAILURES_PER_ADDRESS": lt.LoginMaxFailuresPerAddress,
	} {
		if v < 0 {
			bad("[security] "+key, "must not be negative")
		}
	}
	if lt.LoginFailureWindowSeconds < 1 {
		bad("[security] LOGIN_FAILURE_WINDOW_SECONDS", "must be at least 1")
	}
	if lt.LoginFailureMaxTracked < 1 {
		bad("[security] LOGIN_FAILURE_MAX_TRACKED", "must be at least 1")
	}
}

// EnsureSecretKey fills an empty SECRET_KEY from APP_DATA_PATH/secret_key,
// generating that file on first use. Several processes sharing one database
// must set the same SECRET_KEY explicitly instead.
func (c *Config) EnsureSecretKey() error {
	if c.Security.SecretKey != "" {
		return nil
	}
	path := filepath.Join(c.Server.AppDataPath, "secret_key")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		c.Security.SecretKey = strings.TrimSpace(string(b))
		return nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	key := hex.EncodeToString(buf)
	if err := os.MkdirAll(c.Server.AppDataPath, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process won the race: use its key
		return c.EnsureSecretKey()
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteString(key + "\n"); err != nil {
		return err
	}
	c.Security.SecretKey = key
	return nil
}

// HTTPListenAddr is HTTP_ADDR:HTTP_PORT.
func (c *Config) HTTPListenAddr() string {
	return net.JoinHostPort(c.Server.HTTPAddr, strconv.Itoa(c.Server.HTTPPort))
}

// Redacted returns a copy safe to log.
func (c *Config) Redacted() Config {
	cp := *c
	if cp.Security.SecretKey != "" {
		cp.Security.SecretKey = "REDACTED"
	}
	if cp.Database.Passwd != "" {
		cp.Database.Passwd = "REDACTED"
	}
	if cp.Metrics.Token != "" {
		cp.Metrics.Token = "REDACTED"
	}
	return cp
}

func applyEnv(file *ini.File, environ []string) {
	// Gitea's GITEA__ variables first, so forge's own win over them.
	applyEnvPrefix(file, environ, GiteaEnvPrefix)
	applyEnvPrefix(file, environ, EnvPrefix)
}

// GiteaEnvPrefix is Gitea's form of the environment overrides, accepted
// too so a Gitea deployment's variables carry over.
const GiteaEnvPrefix = "GITEA__"

func applyEnvPrefix(file *ini.File, environ []string, prefix string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		section, key, ok := strings.Cut(strings.TrimPrefix(name, prefix), "__")
		if !ok || key == "" {
			continue
		}
		section = strings.ToLower(strings.ReplaceAll(section, "_0X2E_", "."))
		if section == "default" {
			section = ini.DefaultSection
		}
		file.Section(section).Key(strings.ToUpper(key)).SetValue(value)
	}
}

// AccessLogTemplateKey is Gitea's key for the access log's line format,
// which forge refuses: its access log is structured (log/slog), one
// record with named fields per request.
const AccessLogTemplateKey = "ACCESS_LOG_TEMPLATE"

// logConfig reads [log].
func (r *reader) logConfig(l *Log) {
	r.str("log", "LEVEL", &l.Level)
	var modes string
	if r.str("log", "MODE", &modes) {
		l.Modes = nil
		for _, m := range strings.Split(modes, ",") {
			if m = strings.ToLower(strings.TrimSpace(m)); m != "" {
				l.Modes = append(l.Modes, m)
			}
		}
	}
	r.str("log", "ROOT_PATH", &l.RootPath)
	r.bool("log", "ENABLE_ACCESS_LOG", &l.EnableAccessLog)
	r.bool("log", "LOG_ROTATE", &l.Rotate)
	r.int("log", "MAX_SIZE_SHIFT", &l.MaxSizeShift)
	r.int("log", "MAX_DAYS", &l.MaxDays)
	var template string
	if r.str("log", AccessLogTemplateKey, &template) && strings.TrimSpace(template) != "" {
		r.fail("log", AccessLogTemplateKey, errors.New("forge writes the access log as structured records "+
			"(time, method, route, path, status, bytes, duration, user, remote address, request id) and does not support templates; remove the key"))
	}
}

// SlogLevel is LEVEL as a log/slog level; ok is false for an unknown
// name. None is a level above every record.
func (l Log) SlogLevel() (level slog.Level, ok bool) {
	switch strings.ToLower(strings.TrimSpace(l.Level)) {
	case "trace", "debug":
		return slog.LevelDebug, true
	case "info", "":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error", "critical", "fatal":
		return slog.LevelError, true
	case "none":
		return slog.LevelError + 100, true
	}
	return 0, false
}

func (l Log) validate(bad func(key, format string, args ...any)) {
	if _, ok := l.SlogLevel(); !ok {
		bad("[log] LEVEL", "%q is not a level (Trace, Debug, Info, Warn, Error, Critical, Fatal, None)", l.Level)
	}
	if len(l.Modes) == 0 {
		bad("[log] MODE", "must name at least one mode (console, file)")
	}
	for _, m := range l.Modes {
		if m != "console" && m != "file" {
			bad("[log] MODE", "%q is not supported: forge writes to console and file only", m)
		}
	}
	if l.MaxSizeShift < 20 || l.MaxSizeShift > 40 {
		bad("[log] MAX_SIZE_SHIFT", "must be between 20 (1 MiB) and 40")
	}
	if l.MaxDays < 0 {
		bad("[log] MAX_DAYS", "must not be negative")
	}
}

// sshConfig reads the SSH server's keys, as Gitea names them.
func (r *reader) sshConfig(ssh *SSH) {
	r.bool("server", "START_SSH_SERVER", &ssh.Start)
	r.str("server", "SSH_LISTEN_HOST", &ssh.ListenHost)
	r.str("server", "SSH_DOMAIN", &ssh.Domain)
	r.int("server", "SSH_PORT", &ssh.Port)
	ssh.ListenPort = ssh.Port
	r.int("server", "SSH_LISTEN_PORT", &ssh.ListenPort)
	r.str("server", "BUILTIN_SSH_SERVER_USER", &ssh.User)
	r.str("server", "SSH_USER", &ssh.User)
	r.bool("ssh", "MINIMUM_KEY_SIZE_CHECK", &ssh.MinimumKeySizeCheck)
	if sec, err := r.file.GetSection("ssh.minimum_key_sizes"); err == nil {
		sizes := map[string]int{}
		for t, n := range ssh.MinimumKeySizes {
			sizes[t] = n
		}
		for _, k := range sec.Keys() {
			r.read["ssh.minimum_key_sizes\x00"+k.Name()] = true
			n, err := strconv.Atoi(strings.TrimSpace(k.String()))
			if err != nil {
				r.fail("ssh.minimum_key_sizes", k.Name(), fmt.Errorf("%q is not an integer", k.String()))
				continue
			}
			sizes[strings.ToLower(k.Name())] = n
		}
		ssh.MinimumKeySizes = sizes
	}
}

// reader reads typed keys, collecting one error per bad key, and notes
// every key it is asked for (read), so what is left is what forge does
// not read.
type reader struct {
	file *ini.File
	errs []error
	read map[string]bool // "section\x00KEY"
}

func (r *reader) key(section, name string) (*ini.Key, bool) {
	r.read[section+"\x00"+name] = true
	s, err := r.file.GetSection(section)
	if err != nil {
		return nil, false
	}
	if !s.HasKey(name) {
		return nil, false
	}
	return s.Key(name), true
}

// unread lists the file's keys nobody asked for, as "[section] KEY"
// ("KEY" in the default section), in file order.
func (r *reader) unread() []string {
	var out []string
	for _, sec := range r.file.Sections() {
		for _, k := range sec.Keys() {
			if r.read[sec.Name()+"\x00"+k.Name()] {
				continue
			}
			if sec.Name() == ini.DefaultSection {
				out = append(out, k.Name())
			} else {
				out = append(out, "["+sec.Name()+"] "+k.Name())
			}
		}
	}
	return out
}

func (r *reader) fail(section, name string, err error) {
	r.errs = append(r.errs, fmt.Errorf("config [%s] %s: %w", section, name, err))
}

func (r *reader) str(section, name string, dst *string) bool {
	k, ok := r.key(section, name)
	if ok {
		*dst = k.String()
	}
	return ok
}

// list reads a comma-separated list, trimming each item and dropping
// empty ones.
func (r *reader) list(section, name string, dst *[]string) {
	if k, ok := r.key(section, name); ok {
		var out []string
		for _, v := range strings.Split(k.String(), ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		*dst = out
	}
}

func (r *reader) int(section, name string, dst *int) {
	if k, ok := r.key(section, name); ok {
		v, err := strconv.Atoi(strings.TrimSpace(k.String()))
		if err != nil {
			r.fail(section, name, fmt.Errorf("%q is not an integer", k.String()))
			return
		}
		*dst = v
	}
}

func (r *reader) bool(section, name string, dst *bool) {
	if k, ok := r.key(section, name); ok {
		v, err := k.Bool()
		if err != nil {
			r.fail(section, name, fmt.Errorf("%q is not a boolean", k.String()))
			return
		}
		*dst = v
	}
}

func (r *reader) cidrs(section, name string, dst *[]*net.IPNet) {
	if k, ok := r.key(section, name); ok {
		nets, err := parseCIDRs(k.String())
		if err != nil {
			r.fail(section, name, err)
			return
		}
		*dst = nets
	}
}

func parseCIDRs(list string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") { // a single address
			ip := net.ParseIP(part)
			if ip == nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR", part)
			}
			bits := 32
			if ip.To4() == nil {
				bits = 128
			}
			nets = append(nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR", part)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

func mustCIDRs(list string) []*net.IPNet {
	n, err := parseCIDRs(list)
	if err != nil {
		panic(err)
	}
	return n
}

// Trusted reports whether ip is inside one of the trusted proxy networks.
func (s Security) Trusted(ip net.IP) bool {
	for _, n := range s.ReverseProxyTrustedProxies {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// Describe names the database for logs, without credentials: the SQLite
// file, or the PostgreSQL server and database.
func (d Database) Describe() string {
	if d.Type == "sqlite3" {
		return "sqlite3 " + d.Path
	}
	return fmt.Sprintf("%s %s/%s", d.Type, d.Host, d.Name)
}
