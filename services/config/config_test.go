package config

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDefaultsWithoutFile(t *testing.T) {
	cfg, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPListenAddr() != "127.0.0.1:3000" || cfg.Server.GRPCAddr != "127.0.0.1:3001" ||
		cfg.Database.Type != "sqlite3" || cfg.Database.Path != filepath.Join("data", "forge.db") ||
		cfg.Repository.Root != filepath.Join("data", "repositories") || cfg.Server.RootURL != "http://localhost:3000/" {
		t.Fatalf("defaults: %+v", cfg)
	}
}

func TestFileAndEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.ini")
	ini := `
APP_NAME = ignored
[server]
HTTP_PORT = 8080
ROOT_URL = https://git.example.org
UNKNOWN_KEY = fine
[database]
DB_TYPE = postgres
HOST = db:5433
[security]
REVERSE_PROXY_TRUSTED_PROXIES = 10.0.0.0/8, 192.168.1.1
[repository.pull-request]
RETARGET_CHILDREN_ON_MERGE = false
[admin]
DISABLE_REGULAR_ORG_CREATION = true
[some.unknown.section]
X = 1
`
	if err := os.WriteFile(path, []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, []string{
		"FORGE__SERVER__HTTP_PORT=9090",
		"FORGE__API__MAX_RESPONSE_ITEMS=100",
		"FORGE__REPOSITORY_0X2E_PULL-REQUEST__RETARGET_CHILDREN_ON_MERGE=true",
		"OTHER=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.HTTPPort != 9090 {
		t.Errorf("env did not override the file: %d", cfg.Server.HTTPPort)
	}
	if cfg.Server.RootURL != "https://git.example.org/" || cfg.Server.Domain() != "git.example.org" {
		t.Errorf("root url %q", cfg.Server.RootURL)
	}
	if cfg.Database.Type != "postgres" || cfg.Database.Host != "db:5433" || cfg.API.MaxResponseItems != 100 {
		t.Errorf("database/api: %+v %+v", cfg.Database, cfg.API)
	}
	if !cfg.Repository.RetargetChildrenOnMerge {
		t.Error("dotted section override failed")
	}
	if !cfg.Admin.DisableRegularOrgCreation {
		t.Error("[admin] DISABLE_REGULAR_ORG_CREATION not read")
	}
	if len(cfg.Security.ReverseProxyTrustedProxies) != 2 || !cfg.Security.Trusted([]byte{192, 168, 1, 1}) || cfg.Security.Trusted([]byte{192, 168, 1, 2}) {
		t.Errorf("trusted proxies: %v", cfg.Security.ReverseProxyTrustedProxies)
	}
}

func TestBadValuesNameTheKey(t *testing.T) {
	cases := map[string]string{
		"FORGE__SERVER__HTTP_PORT=abc":                            "[server] HTTP_PORT",
		"FORGE__SECURITY__DISABLE_QUERY_AUTH_TOKEN=perhaps":       "[security] DISABLE_QUERY_AUTH_TOKEN",
		"FORGE__DATABASE__DB_TYPE=mysql":                          "[database] DB_TYPE",
		"FORGE__SECURITY__REVERSE_PROXY_TRUSTED_PROXIES=10.0.0.x": "[security] REVERSE_PROXY_TRUSTED_PROXIES",
		"FORGE__API__DEFAULT_PAGING_NUM=0":                        "[api] DEFAULT_PAGING_NUM",
		"FORGE__SERVER__ROOT_URL=ftp://x":                         "[server] ROOT_URL",
		"FORGE__SECURITY__PASSWORD_HASH_QUEUE=-1":                 "[security] PASSWORD_HASH_QUEUE",
		"FORGE__SECURITY__LOGIN_FAILURE_WINDOW_SECONDS=0":         "[security] LOGIN_FAILURE_WINDOW_SECONDS",
		"FORGE__LOG__MODE=conn":                                   "[log] MODE",
		"FORGE__LOG__MODE=console, smtp":                          "[log] MODE",
		"FORGE__LOG__LEVEL=loud":                                  "[log] LEVEL",
		"FORGE__LOG__ACCESS_LOG_TEMPLATE={{.Ctx.RemoteHost}}":     "[log] ACCESS_LOG_TEMPLATE",
		"FORGE__LOG__ENABLE_ACCESS_LOG=maybe":                     "[log] ENABLE_ACCESS_LOG",
		"FORGE__METRICS__ENABLED=sometimes":                       "[metrics] ENABLED",
	}
	for env, key := range cases {
		_, err := Load("", []string{env})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: error %v does not name %s", env, err, key)
		}
	}
}

// TestDocumentedDefaults reads docs/config.md and checks every documented
// default against the configuration loaded from nothing.
func TestDocumentedDefaults(t *testing.T) {
	f, err := os.Open("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	actual := map[string]string{
		"server.APP_DATA_PATH":                                  cfg.Server.AppDataPath,
		"server.HTTP_ADDR":                                      cfg.Server.HTTPAddr,
		"server.HTTP_PORT":                                      itoa(cfg.Server.HTTPPort),
		"server.ROOT_URL":                                       cfg.Server.RootURL,
		"server.GRPC_ADDR":                                      cfg.Server.GRPCAddr,
		"server.START_SSH_SERVER":                               btoa(cfg.Server.SSH.Start),
		"server.SSH_LISTEN_HOST":                                cfg.Server.SSH.ListenHost,
		"server.SSH_PORT":                                       itoa(cfg.Server.SSH.Port),
		"server.SSH_LISTEN_PORT":                                itoa(cfg.Server.SSH.ListenPort),
		"server.SSH_DOMAIN":                                     cfg.Server.SSH.Domain,
		"server.SSH_USER":                                       cfg.Server.SSH.User,
		"ssh.MINIMUM_KEY_SIZE_CHECK":                            btoa(cfg.Server.SSH.MinimumKeySizeCheck),
		"ssh.minimum_key_sizes.ED25519":                         itoa(cfg.Server.SSH.MinimumKeySizes["ed25519"]),
		"ssh.minimum_key_sizes.ED25519-SK":                      itoa(cfg.Server.SSH.MinimumKeySizes["ed25519-sk"]),
		"ssh.minimum_key_sizes.ECDSA":                           itoa(cfg.Server.SSH.MinimumKeySizes["ecdsa"]),
		"ssh.minimum_key_sizes.ECDSA-SK":                        itoa(cfg.Server.SSH.MinimumKeySizes["ecdsa-sk"]),
		"ssh.minimum_key_sizes.RSA":                             itoa(cfg.Server.SSH.MinimumKeySizes["rsa"]),
		"ssh.minimum_key_sizes.DSA":                             itoa(cfg.Server.SSH.MinimumKeySizes["dsa"]),
		"database.DB_TYPE":                                      cfg.Database.Type,
		"database.PATH":                                         cfg.Database.Path,
		"database.HOST":                                         cfg.Database.Host,
		"database.NAME":                                         cfg.Database.Name,
		"database.USER":                                         cfg.Database.User,
		"database.PASSWD":                                       cfg.Database.Passwd,
		"database.SSL_MODE":                                     cfg.Database.SSLMode,
		"database.MAX_OPEN_CONNS":                               itoa(cfg.Database.MaxOpenConns),
		"database.MAX_IDLE_CONNS":                               itoa(cfg.Database.MaxIdleConns),
		"security.SECRET_KEY":                                   cfg.Security.SecretKey,
		"security.DISABLE_QUERY_AUTH_TOKEN":                     btoa(cfg.Security.DisableQueryAuthToken),
		"security.REVERSE_PROXY_AUTHENTICATION_USER":            cfg.Security.ReverseProxyAuthUser,
		"security.REVERSE_PROXY_TRUSTED_PROXIES":                cidrs(cfg),
		"security.MIN_PASSWORD_LENGTH":                          itoa(cfg.Security.MinPasswordLength),
		"security.PASSWORD_HASH_CONCURRENCY":                    itoa(cfg.Security.PasswordHashConcurrency),
		"security.PASSWORD_HASH_QUEUE":                          itoa(cfg.Security.PasswordHashQueue),
		"security.LOGIN_MAX_FAILURES_PER_ACCOUNT":               itoa(cfg.Security.LoginMaxFailuresPerAccount),
		"security.LOGIN_MAX_FAILURES_PER_ADDRESS":               itoa(cfg.Security.LoginMaxFailuresPerAddress),
		"security.LOGIN_FAILURE_WINDOW_SECONDS":                 itoa(cfg.Security.LoginFailureWindowSeconds),
		"security.LOGIN_FAILURE_MAX_TRACKED":                    itoa(cfg.Security.LoginFailureMaxTracked),
		"service.ENABLE_REVERSE_PROXY_AUTHENTICATION_API":       btoa(cfg.Service.EnableReverseProxyAuthAPI),
		"service.ALLOW_CROSS_REPOSITORY_DEPENDENCIES":           btoa(cfg.Service.AllowCrossRepositoryDependencies),
		"admin.DISABLE_REGULAR_ORG_CREATION":                    btoa(cfg.Admin.DisableRegularOrgCreation),
		"repository.ROOT":                                       cfg.Repository.Root,
		"repository.MAX_CREATION_LIMIT":                         itoa(cfg.Repository.MaxCreationLimit),
		"repository.pull-request.RETARGET_CHILDREN_ON_MERGE":    btoa(cfg.Repository.RetargetChildrenOnMerge),
		"api.DEFAULT_PAGING_NUM":                                itoa(cfg.API.DefaultPagingNum),
		"api.MAX_RESPONSE_ITEMS":                                itoa(cfg.API.MaxResponseItems),
		"migrations.ALLOW_LOCALNETWORKS":                        btoa(cfg.Migrations.AllowLocalNetworks),
		"api.MAX_REQUEST_BODY_SIZE":                             itoa(cfg.Limits.MaxRequestBodySize),
		"api.READ_TIMEOUT":                                      itoa(cfg.Limits.APIReadTimeout),
		"server.IDLE_TIMEOUT":                                   itoa(cfg.Limits.IdleTimeout),
		"git.timeout.PROGRESS":                                  itoa(cfg.Limits.GitProgressTimeout),
		"git.MAX_PROCESSES":                                     itoa(cfg.Limits.GitMaxProcesses),
		"attachment.PATH":                                       cfg.Attachment.Path,
		"attachment.MAX_SIZE":                                   itoa(cfg.Attachment.MaxSize),
		"attachment.ALLOWED_TYPES":                              cfg.Attachment.AllowedTypes,
		"repository.release.FILE_MAX_SIZE":                      itoa(cfg.Attachment.ReleaseMaxSize),
		"repository.release.ALLOWED_TYPES":                      cfg.Attachment.ReleaseAllowedTypes,
		"webhook.DELIVER_TIMEOUT":                               itoa(cfg.Webhook.DeliverTimeout),
		"webhook.ALLOWED_HOST_LIST":                             cfg.Webhook.AllowedHostList,
		"webhook.SKIP_TLS_VERIFY":                               btoa(cfg.Webhook.SkipTLSVerify),
		"webhook.DELIVERY_WORKERS":                              itoa(cfg.Webhook.Workers),
		"security.DISABLE_WEBHOOKS":                             btoa(cfg.Webhook.Disabled),
		"service.ENABLE_TIMETRACKING":                           btoa(cfg.TimeTracking.Enabled),
		"service.DEFAULT_ENABLE_TIMETRACKING":                   btoa(cfg.TimeTracking.DefaultEnabled),
		"service.DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME": btoa(cfg.TimeTracking.DefaultContributorsOnly),
		"ui.REACTIONS":                                          strings.Join(cfg.UI.Reactions, ", "),
		"repository.issue.MAX_PINNED":                           itoa(cfg.Repository.MaxPinned),
		"log.LEVEL":                                             cfg.Log.Level,
		"log.MODE":                                              strings.Join(cfg.Log.Modes, ","),
		"log.ROOT_PATH":                                         cfg.Log.RootPath,
		"log.ENABLE_ACCESS_LOG":                                 btoa(cfg.Log.EnableAccessLog),
		"log.ACCESS_LOG_TEMPLATE":                               "",
		"log.LOG_ROTATE":                                        btoa(cfg.Log.Rotate),
		"log.MAX_SIZE_SHIFT":                                    itoa(cfg.Log.MaxSizeShift),
		"log.MAX_DAYS":                                          itoa(cfg.Log.MaxDays),
		"metrics.ENABLED":                                       btoa(cfg.Metrics.Enabled),
		"metrics.TOKEN":                                         cfg.Metrics.Token,
		"picture.DISABLE_GRAVATAR":                              btoa(cfg.Picture.DisableGravatar),
		"api.ANSWER_CACHE_SIZE":                                 itoa(cfg.API.AnswerCacheSize),
	}
	documented := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 || strings.TrimSpace(cells[1]) == "Section" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		key := strings.TrimSpace(cells[1]) + "." + strings.TrimSpace(cells[2])
		def := strings.TrimSpace(cells[3])
		if def == "(empty)" {
			def = ""
		}
		documented[key] = strings.Trim(def, "`")
	}
	if !reflect.DeepEqual(keys(documented), keys(actual)) {
		t.Fatalf("documented keys %v\nactual keys %v", keys(documented), keys(actual))
	}
	for k, want := range actual {
		if got := documented[k]; got != want {
			t.Errorf("%s: documented default %q, real default %q", k, got, want)
		}
	}
}

// TestGRPCFollowsHTTPPort: without GRPC_ADDR, gRPC listens on the port
// after HTTP_PORT (a random one when HTTP's is); GRPC_ADDR wins.
func TestGRPCFollowsHTTPPort(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "127.0.0.1:3001"},
		{[]string{"FORGE__SERVER__HTTP_PORT=3100"}, "127.0.0.1:3101"},
		{[]string{"FORGE__SERVER__HTTP_PORT=0"}, "127.0.0.1:0"},
		{[]string{"FORGE__SERVER__HTTP_PORT=3100", "FORGE__SERVER__GRPC_ADDR=127.0.0.1:4000"}, "127.0.0.1:4000"},
	} {
		cfg, err := Load("", c.env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Server.GRPCAddr != c.want {
			t.Errorf("%v: GRPC_ADDR %s, want %s", c.env, cfg.Server.GRPCAddr, c.want)
		}
	}
}

// TestUnreadKeys: keys of the file and of the environment (FORGE__ and
// Gitea's GITEA__) that forge does not read are listed, read ones are not;
// FORGE__ wins over GITEA__ for the same key.
func TestUnreadKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.ini")
	ini := "APP_NAME = x\n[sevrer]\nROOT_URL = http://a/\n[server]\nROOT_ULR = http://b/\nHTTP_PORT = 3100\n"
	if err := os.WriteFile(path, []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, []string{"GITEA__SERVER__HTTP_PORT=3200", "GITEA__DATABASE__DB_TYPE=postgres", "FORGE__DATABASE__DB_TYPE=sqlite3", "GITEA__MAILER__ENABLED=true"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"APP_NAME", "[sevrer] ROOT_URL", "[server] ROOT_ULR", "[mailer] ENABLED"}
	if !slices.Equal(cfg.Unread, want) {
		t.Fatalf("unread %q, want %q", cfg.Unread, want)
	}
	if cfg.Server.HTTPPort != 3200 || cfg.Database.Type != "sqlite3" {
		t.Fatalf("GITEA__ overrides: port %d, db %s", cfg.Server.HTTPPort, cfg.Database.Type)
	}
}

// TestLogSettings: [log] as Gitea names it; the modes are a list.
func TestLogSettings(t *testing.T) {
	cfg, err := Load("", []string{"GITEA__LOG__MODE=console, file", "GITEA__LOG__LEVEL=debug", "GITEA__LOG__ROOT_PATH=/var/log/forge",
		"GITEA__LOG__ENABLE_ACCESS_LOG=true", "GITEA__LOG__ACCESS_LOG_TEMPLATE=", "GITEA__METRICS__ENABLED=true", "GITEA__METRICS__TOKEN=t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Log
	if !slices.Equal(l.Modes, []string{"console", "file"}) || l.RootPath != "/var/log/forge" || !l.EnableAccessLog || len(cfg.Unread) != 0 {
		t.Fatalf("log %+v, unread %v", l, cfg.Unread)
	}
	if lvl, ok := l.SlogLevel(); !ok || lvl.String() != "DEBUG" {
		t.Fatalf("level %v %v", lvl, ok)
	}
	if !cfg.Metrics.Enabled || cfg.Metrics.Token != "t0ken" || cfg.Redacted().Metrics.Token == "t0ken" {
		t.Fatalf("metrics %+v", cfg.Metrics)
	}
}

// TestCollaborationKeys: [ui] REACTIONS is a comma-separated list
// (spaces and empty items dropped); the time tracking keys of [service]
// and [repository.issue] MAX_PINNED are read.
func TestCollaborationKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.ini")
	ini := `
[ui]
REACTIONS = +1, gitea,, heart
[service]
ENABLE_TIMETRACKING = false
DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME = false
[repository.issue]
MAX_PINNED = 5
`
	if err := os.WriteFile(path, []byte(ini), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.UI.Reactions, "|"); got != "+1|gitea|heart" {
		t.Errorf("REACTIONS: %q", got)
	}
	if cfg.TimeTracking.Enabled || !cfg.TimeTracking.DefaultEnabled || cfg.TimeTracking.DefaultContributorsOnly {
		t.Errorf("time tracking: %+v", cfg.TimeTracking)
	}
	if cfg.Repository.MaxPinned != 5 || len(cfg.Unread) != 0 {
		t.Errorf("MAX_PINNED %d, unread %v", cfg.Repository.MaxPinned, cfg.Unread)
	}
}
