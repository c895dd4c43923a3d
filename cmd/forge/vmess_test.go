package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"forge/services/vmess"
)

// The tests below build the real forge binary and run it on files.

const (
	cliUUIDA = "27848739-7e62-4138-9fd3-098a63964b6b"
	cliUUIDB = "5783a3e7-e373-51cd-8642-c83782b807c5"
)

const cliSettings = `{
  "clients": [
    {"id": "` + cliUUIDA + `", "level": 0, "alterId": 0, "email": "alice@example.org", "security": "auto"},
    {"id": "` + cliUUIDB + `", "level": 1, "alterId": 4, "security": "Chacha20-Poly1305"}
  ],
  "default": {"level": 1, "alterId": 0},
  "detour": {"to": "dynamic-port"},
  "disableInsecureEncryption": true
}
`

const cliConfigFile = `{
  "inbounds": [
    {"tag": "in", "protocol": "vmess", "settings": {"clients": [{"id": "` + cliUUIDA + `"}], "detour": {"to": "dyn"}}},
    {"tag": "dyn", "protocol": "vmess", "settings": {"default": {"level": 2}}}
  ]
}
`

const cliInvalid = `{
  "clients": [
    {"id": "` + cliUUIDA + `", "email": "a@x"},
    {"id": "nope", "email": "A@X", "security": "aes128"}
  ]
}
`

// forgeRun runs the built binary.
type forgeRun struct {
	stdout, stderr string
	code           int
}

func TestVMessCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the forge binary")
	}
	bin := buildForge(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := func(t *testing.T, stdin []byte, args ...string) forgeRun {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"vmess"}, args...)...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return forgeRun{stdout: stdout.String(), stderr: stderr.String(), code: code}
	}
	expect := func(t *testing.T, got forgeRun, code int) {
		t.Helper()
		if got.code != code {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got.code, code, got.stdout, got.stderr)
		}
	}
	noFile := func(t *testing.T, path string) {
		t.Helper()
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("%s exists (err %v), want no file", path, err)
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*"))
		if len(leftovers) > 0 {
			t.Fatalf("temporary files left: %v", leftovers)
		}
	}

	settings := file("settings.json", cliSettings)
	cfg, err := vmess.Compile([]byte(cliSettings))
	if err != nil {
		t.Fatal(err)
	}
	wantBinary, err := vmess.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := vmess.Decompile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	binary := file("settings.pb", string(wantBinary))

	t.Run("compile to stdout", func(t *testing.T) {
		got := run(t, nil, "compile", settings)
		expect(t, got, 0)
		if got.stdout != string(wantBinary) {
			t.Fatalf("stdout % x\nwant   % x", got.stdout, wantBinary)
		}
		if got.stderr != "" {
			t.Fatalf("stderr: %s", got.stderr)
		}
	})

	t.Run("compile -o, flag before or after the input", func(t *testing.T) {
		for i, args := range [][]string{{"compile", "-o", "out1.pb", settings}, {"compile", settings, "-o", "out2.pb"}} {
			got := run(t, nil, args...)
			expect(t, got, 0)
			if got.stdout != "" {
				t.Fatalf("stdout not empty with -o: %q", got.stdout)
			}
			path := filepath.Join(dir, []string{"out1.pb", "out2.pb"}[i])
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, wantBinary) {
				t.Fatalf("%s: % x\nwant % x", path, data, wantBinary)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Fatalf("mode %v, want 0600", perm)
			}
		}
	})

	t.Run("compile from stdin", func(t *testing.T) {
		for _, args := range [][]string{{"compile"}, {"compile", "-"}} {
			got := run(t, []byte(cliSettings), args...)
			expect(t, got, 0)
			if got.stdout != string(wantBinary) {
				t.Fatalf("%v: stdout % x", args, got.stdout)
			}
		}
	})

	t.Run("compile a config file by tag", func(t *testing.T) {
		config := file("config.json", cliConfigFile)
		got := run(t, nil, "compile", "-tag", "dyn", config)
		expect(t, got, 0)
		// Config.default (2, LEN, 2 bytes) holding level (2, varint) = 2.
		if want := "\x12\x02\x10\x02"; got.stdout != want {
			t.Fatalf("stdout % x, want % x", got.stdout, want)
		}
		got = run(t, nil, "compile", config)
		expect(t, got, 1)
		if !strings.Contains(got.stderr, `config.json: inbounds: 2 VMess inbounds match: inbounds[0] (tag "in"), inbounds[1] (tag "dyn"); choose one by tag`) {
			t.Fatalf("stderr:\n%s", got.stderr)
		}
	})

	t.Run("compile bad JSON writes nothing", func(t *testing.T) {
		bad := file("bad.json", "{\n  \"clients\": [\n    {\"id\": \"x\",}\n  ]\n}\n")
		out := filepath.Join(dir, "bad.pb")
		got := run(t, nil, "compile", "-o", out, bad)
		expect(t, got, 1)
		want := bad + ": invalid JSON at line 3, column 16: invalid character '}' looking for beginning of object key string\n" +
			"forge vmess compile: nothing written\n"
		if got.stderr != want {
			t.Fatalf("stderr:\n%s\nwant:\n%s", got.stderr, want)
		}
		if got.stdout != "" {
			t.Fatalf("stdout: %q", got.stdout)
		}
		noFile(t, out)
	})

	t.Run("compile invalid config: every problem with its path, nothing written", func(t *testing.T) {
		invalid := file("invalid.json", cliInvalid)
		out := filepath.Join(dir, "invalid.pb")
		got := run(t, nil, "compile", "-o", out, invalid)
		expect(t, got, 1)
		want := invalid + `: clients[1].email: "A@X" is already the email of clients[0] (emails are compared case-insensitively)` + "\n" +
			invalid + `: clients[1].id: "nope" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)` + "\n" +
			invalid + `: clients[1].security: unknown security "aes128" (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)` + "\n" +
			"forge vmess compile: nothing written\n"
		if got.stderr != want {
			t.Fatalf("stderr:\n%s\nwant:\n%s", got.stderr, want)
		}
		noFile(t, out)

		// Nor to stdout.
		got = run(t, nil, "compile", invalid)
		expect(t, got, 1)
		if got.stdout != "" {
			t.Fatalf("stdout: %q", got.stdout)
		}
	})

	t.Run("compile error leaves an existing output file alone", func(t *testing.T) {
		out := file("existing.pb", "old contents")
		got := run(t, nil, "compile", "-o", out, file("invalid.json", cliInvalid))
		expect(t, got, 1)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != "old contents" {
			t.Fatalf("output file changed to % x", data)
		}
	})

	t.Run("decompile", func(t *testing.T) {
		got := run(t, nil, "decompile", binary)
		expect(t, got, 0)
		if got.stdout != string(wantJSON) {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, wantJSON)
		}
		// And back: the JSON compiles to the same bytes.
		again := run(t, []byte(got.stdout), "compile", "-")
		expect(t, again, 0)
		if again.stdout != string(wantBinary) {
			t.Fatalf("round trip: % x\nwant % x", again.stdout, wantBinary)
		}
		fromStdin := run(t, wantBinary, "decompile")
		expect(t, fromStdin, 0)
		if fromStdin.stdout != string(wantJSON) {
			t.Fatalf("stdin: %s", fromStdin.stdout)
		}
	})

	t.Run("decompile bad binary", func(t *testing.T) {
		bad := file("bad.pb", "\x0a\x05\x01")
		got := run(t, nil, "decompile", bad)
		expect(t, got, 1)
		prefix := "forge vmess decompile: " + bad + ": not a binary VMess inbound Config: proto"
		if !strings.HasPrefix(got.stderr, prefix) || !strings.Contains(got.stderr, "cannot parse invalid wire-format data") {
			t.Fatalf("stderr: %q", got.stderr)
		}
		if got.stdout != "" {
			t.Fatalf("stdout: %q", got.stdout)
		}
	})

	t.Run("decompile a config JSON cannot carry", func(t *testing.T) {
		// A user whose account is Xray's: Any.type_url (1, LEN, 24 bytes).
		xray := file("xray.pb", "\x0a\x1c\x1a\x1a\x0a\x18xray.proxy.vmess.Account")
		got := run(t, nil, "decompile", xray)
		expect(t, got, 1)
		want := xray + `: clients[0]: account type "xray.proxy.vmess.Account" is not v2ray.core.proxy.vmess.Account` + "\n"
		if got.stderr != want {
			t.Fatalf("stderr:\n%s\nwant:\n%s", got.stderr, want)
		}
	})

	t.Run("decompile given JSON", func(t *testing.T) {
		got := run(t, nil, "decompile", settings)
		expect(t, got, 1)
		if !strings.Contains(got.stderr, "this is JSON; decompile reads the binary Config") {
			t.Fatalf("stderr: %q", got.stderr)
		}
	})

	t.Run("check JSON and binary", func(t *testing.T) {
		users := "clients[0]: email=alice@example.org level=0 alterId=0 security=auto\n" +
			"clients[1]: email=- level=1 alterId=4 security=chacha20-poly1305\n"
		got := run(t, nil, "check", settings)
		expect(t, got, 0)
		if want := users + settings + ": json, 2 user(s), ok\n"; got.stdout != want {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, want)
		}
		got = run(t, wantBinary, "check")
		expect(t, got, 0)
		if want := users + "<stdin>: binary, 2 user(s), ok\n"; got.stdout != want {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, want)
		}
	})

	t.Run("check reports problems", func(t *testing.T) {
		invalid := file("invalid.json", cliInvalid)
		got := run(t, nil, "check", invalid)
		expect(t, got, 1)
		want := "clients[0]: email=a@x level=0 alterId=0 security=auto\n" +
			"clients[1]: email=A@X level=0 alterId=0 security=auto\n" +
			invalid + `: clients[1].email: "A@X" is already the email of clients[0] (emails are compared case-insensitively)` + "\n" +
			invalid + `: clients[1].id: "nope" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)` + "\n" +
			invalid + `: clients[1].security: unknown security "aes128" (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)` + "\n" +
			invalid + ": json, 3 problem(s)\n"
		if got.stdout != want {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, want)
		}
	})

	t.Run("check binary with problems", func(t *testing.T) {
		// One user, level 0, no email, whose account has security LEGACY (1)
		// and id "x": Any{type_url (46 bytes), value{id, security_settings}}.
		legacy := "\x0a\x3b\x1a\x39\x0a\x2e" + vmess.AccountTypeURL + "\x12\x07\x0a\x01x\x1a\x02\x08\x01"
		got := run(t, []byte(legacy), "check", "-")
		expect(t, got, 1)
		want := "clients[0]: email=- level=0 alterId=0 security=LEGACY\n" +
			`<stdin>: clients[0].id: "x" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)` + "\n" +
			"<stdin>: clients[0].security: LEGACY has no JSON spelling (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)\n" +
			"<stdin>: binary, 2 problem(s)\n"
		if got.stdout != want {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, want)
		}
	})

	t.Run("check unreadable input", func(t *testing.T) {
		got := run(t, []byte("\x0a\x05\x01"), "check")
		expect(t, got, 1)
		if !strings.HasPrefix(got.stdout, "<stdin>: not a binary VMess inbound Config: proto") ||
			!strings.HasSuffix(got.stdout, "<stdin>: binary, 1 problem(s)\n") {
			t.Fatalf("stdout: %q", got.stdout)
		}
		got = run(t, []byte(`{"clients": [`), "check")
		expect(t, got, 1)
		want := "<stdin>: invalid JSON at line 1, column 13: unexpected end of JSON input\n<stdin>: json, 1 problem(s)\n"
		if got.stdout != want {
			t.Fatalf("stdout:\n%s\nwant:\n%s", got.stdout, want)
		}
	})

	t.Run("usage and I/O errors", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{nil, 2, "usage:"},
			{[]string{"frobnicate"}, 2, `forge vmess: unknown command "frobnicate"`},
			{[]string{"compile", "a.json", "b.json"}, 2, "forge vmess compile: want at most one input file, got 2"},
			{[]string{"compile", "-x"}, 2, "flag provided but not defined: -x"},
			{[]string{"decompile", "-tag", "x"}, 2, "flag provided but not defined: -tag"},
			{[]string{"check", "missing.json"}, 1, "forge vmess check: open missing.json: no such file or directory"},
		} {
			got := run(t, nil, c.args...)
			expect(t, got, c.code)
			if !strings.Contains(got.stderr, c.want) {
				t.Fatalf("%v: stderr %q, want it to contain %q", c.args, got.stderr, c.want)
			}
		}
		got := run(t, nil, "help")
		expect(t, got, 0)
		if !strings.HasPrefix(got.stdout, "usage:") {
			t.Fatalf("help: %q", got.stdout)
		}
	})
}

// buildForge builds this package's binary once per test process.
func buildForge(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "forge-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBinary = filepath.Join(dir, "forge")
		out, err := exec.Command("go", "build", "-o", builtBinary, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBinary
}

var (
	buildOnce   sync.Once
	builtBinary string
	buildErr    error
)
