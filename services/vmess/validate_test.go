package vmess

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/anypb"

	"forge/gen/v2ray/core/common/protocol"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

func TestValidateCannotCarry(t *testing.T) {
	for _, c := range cannotCarry {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.cfg(t))
			if err == nil {
				t.Fatal("valid, want problems")
			}
			if got := problemStrings(t, err); !slices.Equal(got, c.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestValidateBinaryOnly covers what only a binary Config (or Go code) can
// hold: values out of the JSON ranges, and type URLs V2Ray cannot resolve.
func TestValidateBinaryOnly(t *testing.T) {
	account := func(url string) *anypb.Any {
		packed, err := PackAccount(newAccount(uuidA, 0, protocol.SecurityType_AUTO))
		if err != nil {
			t.Fatal(err)
		}
		packed.TypeUrl = url
		return packed
	}
	cfg := &inbound.Config{
		User: []*protocol.User{
			{Account: account("type.googleapis.com/v2ray.core.proxy.vmess.Account")},
			{Account: account("/v2ray.core.proxy.vmess.Account")},
			{Account: account(AccountTypeName)},
			{Account: account(AccountTypeURL)},
			newUser(t, 0, "", newAccount(uuidA, 65536, protocol.SecurityType_AUTO)),
			nil,
		},
		Default: &inbound.DefaultConfig{AlterId: 1 << 20, Level: 256},
	}
	want := []string{
		`clients[0]: account type URL "type.googleapis.com/v2ray.core.proxy.vmess.Account": V2Ray resolves only "types.v2fly.org/v2ray.core.proxy.vmess.Account" or the bare name`,
		`clients[1]: account type URL "/v2ray.core.proxy.vmess.Account": V2Ray resolves only "types.v2fly.org/v2ray.core.proxy.vmess.Account" or the bare name`,
		"clients[4].alterId: must be a whole number from 0 to 65535, got 65536",
		"clients[5]: missing",
		"default.alterId: must be a whole number from 0 to 65535, got 1048576",
		"default.level: must be a whole number from 0 to 255, got 256",
	}
	got := problemStrings(t, Validate(cfg))
	if !slices.Equal(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Reading still accepts any prefix (what follows the last "/" counts).
	for _, user := range cfg.GetUser()[:4] {
		if _, err := UnpackAccount(user.GetAccount()); err != nil {
			t.Errorf("%s: %v", user.GetAccount().GetTypeUrl(), err)
		}
	}
}

func TestValidateNil(t *testing.T) {
	if err := Validate(nil); err != nil {
		t.Fatalf("a nil Config is an empty one: %v", err)
	}
}

func TestIsUUID(t *testing.T) {
	cases := map[string]bool{
		"27848739-7e62-4138-9fd3-098a63964b6b":     true,
		"27848739-7E62-4138-9FD3-098A63964B6B":     true,
		"278487397e6241389fd3098a63964b6b":         true,
		"00000000-0000-0000-0000-000000000000":     true,
		"":                                         false,
		"27848739-7e62-4138-9fd3-098a63964b6":      false,
		"27848739-7e62-4138-9fd3-098a63964b6bb":    false,
		"27848739-7e6241-38-9fd3-098a63964b6b":     false,
		"278487397e62-4138-9fd3-098a63964b6b-":     false,
		"27848739_7e62_4138_9fd3_098a63964b6b":     false,
		"27848739-7e62-4138-9fd3-098a63964b6z":     false,
		"{27848739-7e62-4138-9fd3-098a63964b6b}":   false,
		"urn:uuid:27848739-7e62-4138-9fd3-098a639": false,
		"278487397e6241389fd3098a63964b6g":         false,
		"278487397e6241389fd3098a63964b6":          false,
		"2784-8739-7e62-4138-9fd3-098a63964b6b":    false,
	}
	for s, want := range cases {
		if got := isUUID(s); got != want {
			t.Errorf("isUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
