package vmess

import (
	"slices"
	"strings"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	// A user of exactly 123 bytes makes the binary form start "\n{", which
	// looks like JSON: 0x0a is Config.user's tag and 0x7b = 123 its length.
	looksLikeJSON, err := Compile([]byte(`{"clients": [{"id": "` + uuidA + `", "email": "abcdefghijklmnopqrstu@xy.zz"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tricky, err := Marshal(looksLikeJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(tricky), "\n{") {
		t.Fatalf("test vector starts % x, want 0a 7b", tricky[:2])
	}
	cases := []struct {
		name string
		data []byte
		want Format
	}{
		{"object", []byte(`{}`), FormatJSON},
		{"object after white space", []byte(" \r\n\t{}\n"), FormatJSON},
		{"broken JSON", []byte("\n{\"clients\": ["), FormatJSON},
		{"JSON that is not an object", []byte(`[1]`), FormatJSON},
		{"empty binary", []byte{}, FormatBinary},
		{"secure_encryption_only, starting with a space byte", []byte{0x20, 0x01}, FormatBinary},
		{"binary that starts like JSON", tricky, FormatBinary},
		{"garbage", []byte{0xff, 0x00}, FormatBinary},
	}
	for _, c := range cases {
		if got := DetectFormat(c.data); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestUnmarshalBadBytes(t *testing.T) {
	for _, data := range [][]byte{
		{0x0a, 0x05, 0x01},             // user: 5 bytes promised, 1 given
		{0x0a},                         // a tag and nothing else
		{0x12, 0x02, 0x08, 0x80},       // default.alter_id: an unterminated varint
		{0x1a, 0x03, 0x0a, 0x01, 0xff}, // detour.to: not UTF-8
		{0x07},                         // field 0 is not a field
	} {
		_, err := Unmarshal(data)
		if err == nil {
			t.Errorf("% x: decoded", data)
			continue
		}
		if !strings.HasPrefix(err.Error(), "not a binary VMess inbound Config: ") {
			t.Errorf("% x: %v", data, err)
		}
	}
}

func TestCheck(t *testing.T) {
	valid := []byte(`{"clients": [{"id": "` + uuidA + `"}]}`)
	cfg, err := Compile(valid)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name       string
		data       string
		tag        string
		format     Format
		users      int // -1: no Config
		wantErrors []string
	}{
		{"valid JSON", string(valid), "", FormatJSON, 1, nil},
		{"valid binary", string(bin), "", FormatBinary, 1, nil},
		{"empty binary", "", "", FormatBinary, 0, nil},
		{
			"JSON with problems keeps what it read", `{"clients": [{"id": "x"}, {"id": "` + uuidA + `"}]}`, "", FormatJSON, 2,
			[]string{`clients[0].id: "x" is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)`},
		},
		{
			"broken JSON", `{"clients": [`, "", FormatJSON, -1,
			[]string{"invalid JSON at line 1, column 13: unexpected end of JSON input"},
		},
		{
			"bad binary", "\x0a\x05\x01", "", FormatBinary, -1,
			[]string{"not a binary VMess inbound Config: proto: cannot parse invalid wire-format data"},
		},
		{
			"binary with problems", string(v4BareNameVectorWithLegacy()), "", FormatBinary, 1,
			[]string{"clients[0].security: LEGACY has no JSON spelling (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)"},
		},
		{
			"tag with binary", string(bin), "x", FormatBinary, -1,
			[]string{`a tag ("x") applies to a JSON config file, and this is the binary form`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			report := Check([]byte(c.data), c.tag)
			if report.Format != c.format {
				t.Errorf("format %s, want %s", report.Format, c.format)
			}
			switch {
			case c.users < 0 && report.Config != nil:
				t.Errorf("Config returned for unreadable input")
			case c.users >= 0 && report.Config == nil:
				t.Errorf("no Config")
			case c.users >= 0 && len(report.Config.GetUser()) != c.users:
				t.Errorf("%d users, want %d", len(report.Config.GetUser()), c.users)
			}
			var got []string
			for _, p := range report.Problems {
				got = append(got, plain(p.String()))
			}
			if !slices.Equal(got, c.wantErrors) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.wantErrors, "\n"))
			}
		})
	}
}

// v4BareNameVectorWithLegacy is v4BareNameVector with security LEGACY (1),
// which V2Ray v4 could write and JSON cannot name.
func v4BareNameVectorWithLegacy() []byte {
	out := slices.Clone(v4BareNameVector)
	if out[len(out)-2] != 0x08 || out[len(out)-1] != 0x03 {
		panic("vector changed")
	}
	out[len(out)-1] = 0x01
	return out
}
