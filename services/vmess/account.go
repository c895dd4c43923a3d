package vmess

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"forge/gen/v2ray/core/common/protocol"
	vmesspb "forge/gen/v2ray/core/proxy/vmess"
)

// AccountTypeName is the full protobuf name of the VMess account message. It
// travels inside every User, so it must stay exactly V2Ray's.
const AccountTypeName = "v2ray.core.proxy.vmess.Account"

// AccountTypeURL is the type URL V2Ray v5 writes into User.account.
const AccountTypeURL = v2flyTypePrefix + AccountTypeName

const v2flyTypePrefix = "types.v2fly.org/"

// PackAccount wraps an account the way V2Ray v5 does, with AccountTypeURL.
// (anypb.New would write type.googleapis.com/..., which V2Ray cannot resolve.)
func PackAccount(account *vmesspb.Account) (*anypb.Any, error) {
	value, err := proto.MarshalOptions{Deterministic: true}.Marshal(account)
	if err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	return &anypb.Any{TypeUrl: AccountTypeURL, Value: value}, nil
}

// UnpackAccount reads a user's account. Like protobuf-go's resolver it takes
// the type name from what follows the last "/" of the type URL, so it accepts
// V2Ray v5's "types.v2fly.org/v2ray.core.proxy.vmess.Account" and V2Ray v4's
// bare "v2ray.core.proxy.vmess.Account" (v4's TypedMessage has Any's wire
// shape). Validate reports other prefixes, which V2Ray cannot resolve.
func UnpackAccount(account *anypb.Any) (*vmesspb.Account, error) {
	if account == nil {
		return nil, errors.New("no account")
	}
	url := account.GetTypeUrl()
	if name := url[strings.LastIndex(url, "/")+1:]; name != AccountTypeName {
		return nil, fmt.Errorf("account type %q is not %s", url, AccountTypeName)
	}
	out := &vmesspb.Account{}
	if err := proto.Unmarshal(account.GetValue(), out); err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	return out, nil
}

// securityNames are the JSON spellings of the security types, in the order
// error messages list them. LEGACY and UNKNOWN have none.
var securityNames = []struct {
	name string
	typ  protocol.SecurityType
}{
	{"auto", protocol.SecurityType_AUTO},
	{"aes-128-gcm", protocol.SecurityType_AES128_GCM},
	{"chacha20-poly1305", protocol.SecurityType_CHACHA20_POLY1305},
	{"none", protocol.SecurityType_NONE},
	{"zero", protocol.SecurityType_ZERO},
}

// securityChoices is the list of JSON spellings for error messages.
const securityChoices = "auto, aes-128-gcm, chacha20-poly1305, none, zero"

// SecurityName returns the JSON spelling of a security type ("aes-128-gcm"),
// and false for the types JSON cannot name (UNKNOWN, LEGACY, unknown numbers).
func SecurityName(t protocol.SecurityType) (string, bool) {
	for _, s := range securityNames {
		if s.typ == t {
			return s.name, true
		}
	}
	return "", false
}

// securityByName looks a JSON spelling up, case-insensitively as V2Ray does.
func securityByName(name string) (protocol.SecurityType, bool) {
	for _, s := range securityNames {
		if strings.ToLower(name) == s.name {
			return s.typ, true
		}
	}
	return protocol.SecurityType_UNKNOWN, false
}
