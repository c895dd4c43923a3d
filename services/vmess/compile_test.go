package vmess

import (
	"os"
	"slices"
	"strings"
	"testing"

	"forge/gen/v2ray/core/common/protocol"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// compileCases are inputs that compile; decompile_test.go round-trips them.
var compileCases = []struct {
	name string
	json string
	tag  string
	want func(t testing.TB) *inbound.Config
}{
	{
		name: "keys match case-insensitively, security names too",
		json: `{"CLIENTS": [{"ID": "` + uuidA + `", "AlterID": 2, "Level": 3, "EMAIL": "x@y",
			"Security": "AES-128-GCM", "Experiments": "NoTerminationSignal"}],
			"Default": {"ALTERID": 1, "LEVEL": 2}, "Detour": {"TO": "t"},
			"disableinsecureencryption": true}`,
		want: func(t testing.TB) *inbound.Config {
			account := newAccount(uuidA, 2, protocol.SecurityType_AES128_GCM)
			account.TestsEnabled = "NoTerminationSignal"
			return &inbound.Config{
				User:                 []*protocol.User{newUser(t, 3, "x@y", account)},
				Default:              &inbound.DefaultConfig{AlterId: 1, Level: 2},
				Detour:               &inbound.DetourConfig{To: "t"},
				SecureEncryptionOnly: true,
			}
		},
	},
	{
		name: "unknown keys are ignored",
		json: `{"port": 1, "clients": [{"id": "` + uuidA + `", "flow": "x", "extra": {"a": [1]}}],
			"fallbacks": [], "default": {"strategy": null}}`,
		want: func(t testing.TB) *inbound.Config {
			return &inbound.Config{
				User:    []*protocol.User{newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_AUTO))},
				Default: &inbound.DefaultConfig{},
			}
		},
	},
	{
		name: "security: missing, empty and null mean auto; none and zero",
		json: `{"clients": [{"id": "` + uuidA + `"}, {"id": "` + uuidB + `", "security": ""},
			{"id": "` + uuidA + `", "security": null}, {"id": "` + uuidA + `", "security": "None"},
			{"id": "` + uuidA + `", "security": "zero"}]}`,
		want: func(t testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_AUTO)),
				newUser(t, 0, "", newAccount(uuidB, 0, protocol.SecurityType_AUTO)),
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_AUTO)),
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_NONE)),
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_ZERO)),
			}}
		},
	},
	{
		name: "null leaves everything unset",
		json: `{"clients": null, "default": null, "detour": null, "features": null,
			"disableInsecureEncryption": null}`,
		want: func(testing.TB) *inbound.Config { return &inbound.Config{} },
	},
	{
		name: "white space around the object",
		json: " \r\n\t{\"disableInsecureEncryption\": true}\n ",
		want: func(testing.TB) *inbound.Config { return &inbound.Config{SecureEncryptionOnly: true} },
	},
	{
		name: "no clients is valid",
		json: `{"clients": []}`,
		want: func(testing.TB) *inbound.Config { return &inbound.Config{} },
	},
	{
		name: "older spelling features.detour",
		json: `{"features": {"detour": {"to": "old"}}}`,
		want: func(testing.TB) *inbound.Config {
			return &inbound.Config{Detour: &inbound.DetourConfig{To: "old"}}
		},
	},
	{
		name: "detour wins over features.detour",
		json: `{"features": {"detour": {"to": ""}}, "detour": {"to": "new"}}`,
		want: func(testing.TB) *inbound.Config {
			return &inbound.Config{Detour: &inbound.DetourConfig{To: "new"}}
		},
	},
	{
		name: "null detour falls back to features.detour",
		json: `{"detour": null, "Features": {"Detour": {"To": "old"}}}`,
		want: func(testing.TB) *inbound.Config {
			return &inbound.Config{Detour: &inbound.DetourConfig{To: "old"}}
		},
	},
	{
		name: "32 hex digits in either case, kept as written; empty emails may repeat",
		json: `{"clients": [{"id": "0123456789ABCDEF0123456789abcdef", "level": 4294967295},
			{"id": "` + strings.ToUpper(uuidA) + `", "email": ""}, {"id": "` + uuidB + `"}]}`,
		want: func(t testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{
				newUser(t, 4294967295, "", newAccount("0123456789ABCDEF0123456789abcdef", 0, protocol.SecurityType_AUTO)),
				newUser(t, 0, "", newAccount(strings.ToUpper(uuidA), 0, protocol.SecurityType_AUTO)),
				newUser(t, 0, "", newAccount(uuidB, 0, protocol.SecurityType_AUTO)),
			}}
		},
	},
	{
		name: "range limits are inclusive",
		json: `{"clients": [{"id": "` + uuidA + `", "alterId": 65535}], "default": {"alterId": 65535, "level": 255}}`,
		want: func(t testing.TB) *inbound.Config {
			return &inbound.Config{
				User:    []*protocol.User{newUser(t, 0, "", newAccount(uuidA, 65535, protocol.SecurityType_AUTO))},
				Default: &inbound.DefaultConfig{AlterId: 65535, Level: 255},
			}
		},
	},
	{
		name: "whole config file with one vmess inbound; protocol case-insensitive",
		json: `{"inbounds": [{"protocol": "socks", "settings": {"clients": 5}},
			{"Protocol": "VMESS", "Settings": {"clients": [{"id": "` + uuidA + `", "email": "a@b"}]}}]}`,
		want: func(t testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{newUser(t, 0, "a@b", newAccount(uuidA, 0, protocol.SecurityType_AUTO))}}
		},
	},
	{
		name: "whole config file without settings is an empty config",
		json: `{"inbounds": [{"protocol": "vmess", "port": 1}]}`,
		want: func(testing.TB) *inbound.Config { return &inbound.Config{} },
	},
	{
		name: "whole config file, inbound chosen by tag",
		json: mustRead("testdata/config.json"),
		tag:  "dynamic-port",
		want: func(testing.TB) *inbound.Config {
			return &inbound.Config{Default: &inbound.DefaultConfig{Level: 1}}
		},
	},
	{
		name: "settings file from testdata",
		json: mustRead("testdata/settings.json"),
		want: func(t testing.TB) *inbound.Config {
			bob := newAccount(uuidB, 0, protocol.SecurityType_CHACHA20_POLY1305)
			bob.TestsEnabled = "AuthenticatedLength"
			return &inbound.Config{
				User: []*protocol.User{
					newUser(t, 0, "alice@example.org", newAccount(uuidA, 0, protocol.SecurityType_AUTO)),
					newUser(t, 1, "bob@example.org", bob),
				},
				Default:              &inbound.DefaultConfig{Level: 1},
				Detour:               &inbound.DetourConfig{To: "dynamic-port"},
				SecureEncryptionOnly: true,
			}
		},
	},
}

func mustRead(name string) string {
	data, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestCompile(t *testing.T) {
	for _, c := range compileCases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := CompileTag([]byte(c.json), c.tag)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, cfg, c.want(t))
		})
	}
}

func TestCompileProblems(t *testing.T) {
	cases := []struct {
		name string
		json string
		tag  string
		want []string
	}{
		{
			name: "syntax error with line and column",
			json: "{\n  \"clients\": [}\n",
			want: []string{"invalid JSON at line 2, column 15: invalid character '}' looking for beginning of value"},
		},
		{
			name: "empty input",
			json: "",
			want: []string{"invalid JSON at line 1, column 1: unexpected end of JSON input"},
		},
		{
			name: "trailing garbage",
			json: `{} {}`,
			want: []string{"invalid JSON at line 1, column 4: invalid character '{' after top-level value"},
		},
		{
			name: "not an object",
			json: `[]`,
			want: []string{"expected an object, got an array"},
		},
		{
			name: "null",
			json: " null\n",
			want: []string{"expected an object, got null"},
		},
		{
			name: "wrong JSON types, each reported",
			json: `{"clients": [5, null, {"id": 1, "alterId": "2", "level": true, "email": [],
				"security": 3, "experiments": {}}], "default": [], "detour": "x",
				"features": {"detour": {"to": 7}}, "disableInsecureEncryption": 1}`,
			want: []string{
				"clients[0]: expected an object, got a number",
				"clients[1]: expected an object, got null",
				"clients[2].alterId: expected a number, got a string",
				"clients[2].email: expected a string, got an array",
				"clients[2].experiments: expected a string, got an object",
				"clients[2].id: expected a string, got a number",
				"clients[2].level: expected a number, got a boolean",
				"clients[2].security: expected a string, got a number",
				"default: expected an object, got an array",
				"detour: expected an object, got a string",
				"disableInsecureEncryption: expected a boolean, got a number",
				"features.detour.to: expected a string, got a number",
			},
		},
		{
			name: "clients not an array",
			json: `{"clients": {"id": "` + uuidA + `"}}`,
			want: []string{"clients: expected an array, got an object"},
		},
		{
			name: "numbers that are not whole or out of range",
			json: `{"clients": [{"id": "` + uuidA + `", "alterId": -1}, {"id": "` + uuidA + `", "alterId": 1.5},
				{"id": "` + uuidA + `", "alterId": 1e2}, {"id": "` + uuidA + `", "alterId": 65536},
				{"id": "` + uuidA + `", "level": 4294967296}, {"id": "` + uuidA + `", "level": 123456789012345678901234567890}],
				"default": {"alterId": 65536, "level": 256}}`,
			want: []string{
				"clients[0].alterId: must be a whole number from 0 to 65535, got -1",
				"clients[1].alterId: must be a whole number from 0 to 65535, got 1.5",
				"clients[2].alterId: must be a whole number from 0 to 65535, got 1e2",
				"clients[3].alterId: must be a whole number from 0 to 65535, got 65536",
				"clients[4].level: must be a whole number from 0 to 4294967295, got 4294967296",
				"clients[5].level: must be a whole number from 0 to 4294967295, got 123456789012345678901...",
				"default.alterId: must be a whole number from 0 to 65535, got 65536",
				"default.level: must be a whole number from 0 to 255, got 256",
			},
		},
		{
			name: "ids parsed strictly",
			json: `{"clients": [{}, {"id": ""}, {"id": "not-a-uuid"},
				{"id": "{` + uuidA + `}"}, {"id": "urn:uuid:` + uuidA + `"}, {"id": "` + uuidA + `x"},
				{"id": "278487397e62-4138-9fd3-098a63964b6b1"}, {"id": "g7848739-7e62-4138-9fd3-098a63964b6b"},
				{"id": "0123456789abcdef0123456789abcdeg"}, {"id": "` + uuidA + `"}]}`,
			want: []string{
				"clients[0].id: missing",
				"clients[1].id: missing",
				`clients[2].id: "not-a-uuid" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[3].id: "{` + uuidA + `}" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[4].id: "urn:uuid:` + uuidA + `" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[5].id: "` + uuidA + `x" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[6].id: "278487397e62-4138-9fd3-098a63964b6b1" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[7].id: "g7848739-7e62-4138-9fd3-098a63964b6b" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[8].id: "0123456789abcdef0123456789abcdeg" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
			},
		},
		{
			name: "unknown security names are reported (V2Ray would use auto)",
			json: `{"clients": [{"id": "` + uuidA + `", "security": "legacy"}, {"id": "` + uuidA + `", "security": "aes128-gcm"}]}`,
			want: []string{
				`clients[0].security: unknown security "legacy" (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)`,
				`clients[1].security: unknown security "aes128-gcm" (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)`,
			},
		},
		{
			name: "emails unique, compared case-insensitively",
			json: `{"clients": [{"id": "` + uuidA + `", "email": "a@x"}, {"id": "` + uuidB + `", "email": "b@x"},
				{"id": "` + uuidA + `", "email": "A@X"}, {"id": "` + uuidA + `", "email": "b@x"}]}`,
			want: []string{
				`clients[2].email: "A@X" is already the email of clients[0] (emails are compared case-insensitively)`,
				`clients[3].email: "b@x" is already the email of clients[1] (emails are compared case-insensitively)`,
			},
		},
		{
			name: "empty detour tag, in either spelling",
			json: `{"detour": {}}`,
			want: []string{"detour.to: must name an inbound tag"},
		},
		{
			name: "empty detour tag, older spelling",
			json: `{"features": {"detour": {"to": ""}}}`,
			want: []string{"features.detour.to: must name an inbound tag"},
		},
		{
			name: "a key given twice, in any case",
			json: `{"clients": [{"id": "` + uuidA + `", "ID": "` + uuidB + `"}], "detour": {"to": "a"}, "Detour": {"to": "b"}}`,
			want: []string{
				`clients[0].id: given twice (as "id" and "ID")`,
				`detour: given twice (as "detour" and "Detour")`,
			},
		},
		{
			name: "every problem at once, sorted by path",
			json: mustRead("testdata/invalid.json"),
			want: []string{
				"clients[1].alterId: must be a whole number from 0 to 65535, got 70000",
				`clients[1].id: "27848739-7e62-4138-9fd3-098a63964b6" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				`clients[1].security: unknown security "aes128" (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)`,
				`clients[2].email: "Alice@Example.org" is already the email of clients[0] (emails are compared case-insensitively)`,
				`clients[2].id: "{27848739-7e62-4138-9fd3-098a63964b6b}" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				"clients[2].level: expected a number, got a string",
				"default.level: must be a whole number from 0 to 255, got 256",
				"detour.to: must name an inbound tag",
				"disableInsecureEncryption: expected a boolean, got a string",
			},
		},
		{
			name: "indexes sort as numbers",
			json: `{"clients": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]}`,
			want: []string{
				"clients[0].id: missing", "clients[1].id: missing", "clients[2].id: missing",
				"clients[3].id: missing", "clients[4].id: missing", "clients[5].id: missing",
				"clients[6].id: missing", "clients[7].id: missing", "clients[8].id: missing",
				"clients[9].id: missing", "clients[10].id: missing",
			},
		},
		{
			name: "config file: paths carry the inbound's prefix",
			json: `{"inbounds": [{"protocol": "vmess", "settings": {"clients": [{"id": "x"}], "detour": {}}}]}`,
			want: []string{
				`inbounds[0].settings.clients[0].id: "x" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`,
				"inbounds[0].settings.detour.to: must name an inbound tag",
			},
		},
		{
			name: "config file without a vmess inbound",
			json: `{"inbounds": [{"protocol": "socks"}]}`,
			want: []string{`inbounds: no inbound with protocol "vmess"`},
		},
		{
			name: "config file with two vmess inbounds and no tag",
			json: mustRead("testdata/config.json"),
			want: []string{`inbounds: 2 VMess inbounds match: inbounds[0] (tag "vmess-in"), inbounds[1] (tag "dynamic-port"); choose one by tag`},
		},
		{
			name: "config file, unknown tag",
			json: mustRead("testdata/config.json"),
			tag:  "nope",
			want: []string{`inbounds: no inbound with protocol "vmess" and tag "nope"`},
		},
		{
			name: "config file, malformed inbounds",
			json: `{"inbounds": [1, {"protocol": 5}, {"protocol": "vmess", "tag": 2}]}`,
			want: []string{
				"inbounds[0]: expected an object, got a number",
				"inbounds[1].protocol: expected a string, got a number",
				"inbounds[2].tag: expected a string, got a number",
			},
		},
		{
			name: "config file, settings not an object",
			json: `{"inbounds": [{"protocol": "vmess", "settings": []}]}`,
			want: []string{"inbounds[0].settings: expected an object, got an array"},
		},
		{
			name: "tag with a settings object",
			json: `{}`,
			tag:  "x",
			want: []string{`a tag ("x") applies to a config file with inbounds, and this is a settings object`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := CompileTag([]byte(c.json), c.tag)
			if err == nil {
				t.Fatalf("compiled, want problems; got %v", cfg)
			}
			if cfg != nil {
				t.Fatal("a Config returned along with an error")
			}
			if got := problemStrings(t, err); !slices.Equal(got, c.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestCompileAccountTypeURL checks that accounts are packed with V2Ray v5's
// type URL, not anypb.New's type.googleapis.com.
func TestCompileAccountTypeURL(t *testing.T) {
	cfg, err := Compile([]byte(`{"clients": [{"id": "` + uuidA + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.GetUser()[0].GetAccount().GetTypeUrl(); got != "types.v2fly.org/v2ray.core.proxy.vmess.Account" {
		t.Fatalf("type_url = %q", got)
	}
	account, err := UnpackAccount(cfg.GetUser()[0].GetAccount())
	if err != nil {
		t.Fatal(err)
	}
	if account.GetSecuritySettings() == nil {
		t.Fatal("security_settings must always be written, as V2Ray's loader does")
	}
}
