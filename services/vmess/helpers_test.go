package vmess

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"forge/gen/v2ray/core/common/protocol"
	vmesspb "forge/gen/v2ray/core/proxy/vmess"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// bytesOf concatenates test bytes: an int is one byte, a string its bytes.
func bytesOf(parts ...any) []byte {
	var out []byte
	for _, part := range parts {
		switch v := part.(type) {
		case int:
			if v < 0 || v > 0xff {
				panic(fmt.Sprintf("bytesOf: %d is not a byte", v))
			}
			out = append(out, byte(v))
		case string:
			out = append(out, v...)
		case []byte:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("bytesOf: unexpected %T", part))
		}
	}
	return out
}

// newUser builds a user as Compile does.
func newUser(t testing.TB, level uint32, email string, account *vmesspb.Account) *protocol.User {
	t.Helper()
	packed, err := PackAccount(account)
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.User{Level: level, Email: email, Account: packed}
}

// newAccount builds an account with the given security.
func newAccount(id string, alterID uint32, security protocol.SecurityType) *vmesspb.Account {
	return &vmesspb.Account{Id: id, AlterId: alterID, SecuritySettings: &protocol.SecurityConfig{Type: security}}
}

// requireEqual fails unless the configs are equal.
func requireEqual(t testing.TB, got, want *inbound.Config) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Fatalf("config mismatch\ngot:  %v\nwant: %v", prototext.Format(got), prototext.Format(want))
	}
}

// canonical re-packs every readable account the way Compile does, so that
// configs that differ only in the account's type URL prefix or byte layout
// compare equal.
func canonical(t testing.TB, cfg *inbound.Config) *inbound.Config {
	t.Helper()
	out := proto.Clone(cfg).(*inbound.Config)
	for _, user := range out.GetUser() {
		account, err := UnpackAccount(user.GetAccount())
		if err != nil {
			continue
		}
		if user.Account, err = PackAccount(account); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// problemStrings returns the problems of err, which must be Problems.
func problemStrings(t testing.TB, err error) []string {
	t.Helper()
	ps, ok := err.(Problems)
	if !ok {
		t.Fatalf("error is %T (%v), want Problems", err, err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, plain(p.String()))
	}
	return out
}

// plain undoes protobuf-go's habit of randomly putting a non-breaking space
// after "proto:" in its errors (to discourage exact matching).
func plain(s string) string {
	return strings.ReplaceAll(s, "\u00a0", " ")
}

const (
	uuidA = "27848739-7e62-4138-9fd3-098a63964b6b"
	uuidB = "5783a3e7-e373-51cd-8642-c83782b807c5"
)
