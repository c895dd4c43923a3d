package vmess

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"forge/gen/v2ray/core/common/protocol"
	vmesspb "forge/gen/v2ray/core/proxy/vmess"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// TestRoundTrip: JSON -> Config -> JSON -> Config loses nothing, and the
// JSON Decompile writes is a fixed point.
func TestRoundTrip(t *testing.T) {
	inputs := map[string]string{}
	for _, c := range compileCases {
		if c.tag == "" {
			inputs[c.name] = c.json
		}
	}
	for _, v := range goldenVectors {
		inputs["golden: "+v.name] = v.json
	}
	for name, input := range inputs {
		t.Run(name, func(t *testing.T) {
			first, err := Compile([]byte(input))
			if err != nil {
				t.Fatal(err)
			}
			js, err := Decompile(first)
			if err != nil {
				t.Fatal(err)
			}
			second, err := Compile(js)
			if err != nil {
				t.Fatalf("decompiled JSON does not compile: %v\n%s", err, js)
			}
			requireEqual(t, second, first)
			again, err := Decompile(second)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(js) {
				t.Fatalf("decompiling twice differs:\n%s\n%s", js, again)
			}
			// And through the binary form.
			bin, err := Marshal(second)
			if err != nil {
				t.Fatal(err)
			}
			third, err := Unmarshal(bin)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, third, first)
		})
	}
}

func TestDecompileEmpty(t *testing.T) {
	got, err := Decompile(&inbound.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"clients\": [],\n  \"disableInsecureEncryption\": false\n}\n"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestDecompileWritesInvalidValues: what JSON can carry is written even when
// Validate would refuse it, so that users can see and fix it.
func TestDecompileWritesInvalidValues(t *testing.T) {
	cfg := &inbound.Config{
		User: []*protocol.User{
			newUser(t, 0, "a@b", newAccount("not-a-uuid", 70000, protocol.SecurityType_NONE)),
			newUser(t, 0, "A@B", newAccount(uuidA, 0, protocol.SecurityType_AUTO)),
		},
		Default: &inbound.DefaultConfig{Level: 300},
		Detour:  &inbound.DetourConfig{},
	}
	got, err := Decompile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id": "not-a-uuid"`, `"alterId": 70000`, `"security": "none"`, `"level": 300`, `"to": ""`, `"email": "A@B"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if Validate(cfg) == nil {
		t.Fatal("Validate accepted it")
	}
}

func TestDecompileEscaping(t *testing.T) {
	cfg := &inbound.Config{User: []*protocol.User{
		newUser(t, 0, `a&b<c>"d"\é`, newAccount(uuidA, 0, protocol.SecurityType_AUTO)),
	}}
	got, err := Decompile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"email": "a&b<c>\"d\"\\é"`) {
		t.Fatalf("email not written plainly:\n%s", got)
	}
	back, err := Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, back, cfg)
}

// unknownField is field 15 (varint) = 1, a field no message here defines.
var unknownField = protowire.AppendVarint(protowire.AppendTag(nil, 15, protowire.VarintType), 1)

func withUnknown[M proto.Message](m M) M {
	m.ProtoReflect().SetUnknown(unknownField)
	return m
}

// cannotCarry are configs whose content JSON cannot carry: Decompile and
// Validate both report them, with these problems.
var cannotCarry = []struct {
	name string
	cfg  func(t testing.TB) *inbound.Config
	want []string
}{
	{
		name: "no account",
		cfg: func(testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{{Email: "a"}}}
		},
		want: []string{"clients[0]: no account"},
	},
	{
		name: "another protocol's account",
		cfg: func(testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{{Account: &anypb.Any{TypeUrl: "types.v2fly.org/v2ray.core.proxy.vless.Account"}}}}
		},
		want: []string{`clients[0]: account type "types.v2fly.org/v2ray.core.proxy.vless.Account" is not v2ray.core.proxy.vmess.Account`},
	},
	{
		name: "Xray's account",
		cfg: func(testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{{Account: &anypb.Any{TypeUrl: "xray.proxy.vmess.Account"}}}}
		},
		want: []string{`clients[0]: account type "xray.proxy.vmess.Account" is not v2ray.core.proxy.vmess.Account`},
	},
	{
		name: "account bytes that do not parse",
		cfg: func(testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{{Account: &anypb.Any{TypeUrl: AccountTypeURL, Value: []byte{0x0a, 0x05, 'a'}}}}}
		},
		want: []string{"clients[0]: account: proto: cannot parse invalid wire-format data"},
	},
	{
		name: "security types without a JSON spelling",
		cfg: func(t testing.TB) *inbound.Config {
			return &inbound.Config{User: []*protocol.User{
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_LEGACY)),
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType_UNKNOWN)),
				newUser(t, 0, "", newAccount(uuidA, 0, protocol.SecurityType(99))),
				newUser(t, 0, "", &vmesspb.Account{Id: uuidA}),
			}}
		},
		want: []string{
			"clients[0].security: LEGACY has no JSON spelling (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)",
			"clients[1].security: UNKNOWN has no JSON spelling (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)",
			"clients[2].security: 99 has no JSON spelling (want one of auto, aes-128-gcm, chacha20-poly1305, none, zero)",
			"clients[3].security: missing (V2Ray's loader always sets it)",
		},
	},
	{
		name: "unknown fields anywhere",
		cfg: func(t testing.TB) *inbound.Config {
			account := withUnknown(newAccount(uuidA, 0, protocol.SecurityType_AUTO))
			account.SecuritySettings = withUnknown(account.SecuritySettings)
			return withUnknown(&inbound.Config{
				User:    []*protocol.User{withUnknown(newUser(t, 0, "", account))},
				Default: withUnknown(&inbound.DefaultConfig{}),
				Detour:  withUnknown(&inbound.DetourConfig{To: "x"}),
			})
		},
		want: []string{
			"2 bytes of unknown protobuf fields, which the JSON form cannot carry",
			"clients[0]: 2 bytes of unknown protobuf fields, which the JSON form cannot carry",
			"clients[0]: 2 bytes of unknown protobuf fields, which the JSON form cannot carry",
			"clients[0].security: 2 bytes of unknown protobuf fields, which the JSON form cannot carry",
			"default: 2 bytes of unknown protobuf fields, which the JSON form cannot carry",
			"detour: 2 bytes of unknown protobuf fields, which the JSON form cannot carry",
		},
	},
}

func TestDecompileCannotCarry(t *testing.T) {
	for _, c := range cannotCarry {
		t.Run(c.name, func(t *testing.T) {
			out, err := Decompile(c.cfg(t))
			if err == nil {
				t.Fatalf("decompiled, want problems:\n%s", out)
			}
			if got := problemStrings(t, err); !slices.Equal(got, c.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
