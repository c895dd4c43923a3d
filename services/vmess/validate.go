package vmess

import (
	"math"
	"strings"

	"google.golang.org/protobuf/proto"

	"forge/gen/v2ray/core/common/protocol"
	vmesspb "forge/gen/v2ray/core/proxy/vmess"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// Validate checks a Config and returns Problems listing everything wrong, or
// nil. Paths use the JSON spelling (clients[2].id). It requires what V2Ray
// checks only when the inbound starts, or not at all:
//
//   - every user has a VMess account, with a type URL V2Ray can resolve;
//   - ids are UUIDs in canonical 8-4-4-4-12 form or as 32 hex digits (V2Ray
//     also takes stranger spellings, and panics on some);
//   - alterId is 0..65535, default.level 0..255, default.alterId 0..65535;
//   - non-empty emails are unique, compared case-insensitively;
//   - detour.to, when detour is set, is not empty;
//   - everything can be written as JSON: security is one of auto,
//     aes-128-gcm, chacha20-poly1305, none, zero, and no message carries
//     fields unknown to forge.
//
// A Config that passes decompiles to JSON that compiles back to the same
// Config.
func Validate(cfg *inbound.Config) error {
	return validate(cfg).err()
}

func validate(cfg *inbound.Config) Problems {
	var ps Problems
	checkUnknown(&ps, "", cfg)
	emails := map[string]int{}
	for i, user := range cfg.GetUser() {
		path := index("clients", i)
		account := readUser(&ps, path, user)
		if email := user.GetEmail(); email != "" {
			key := strings.ToLower(email)
			if first, seen := emails[key]; seen {
				ps.add(join(path, "email"), "%q is already the email of clients[%d] (emails are compared case-insensitively)", email, first)
			} else {
				emails[key] = i
			}
		}
		if account == nil {
			continue
		}
		if url := user.GetAccount().GetTypeUrl(); url != AccountTypeName && url != AccountTypeURL {
			ps.add(path, "account type URL %q: V2Ray resolves only %q or the bare name", url, AccountTypeURL)
		}
		switch id := account.GetId(); {
		case id == "":
			ps.add(join(path, "id"), "missing")
		case !isUUID(id):
			ps.add(join(path, "id"), "%q is not a UUID (want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 32 hex digits)", id)
		}
		if n := account.GetAlterId(); n > math.MaxUint16 {
			ps.add(join(path, "alterId"), "must be a whole number from 0 to %d, got %d", math.MaxUint16, n)
		}
	}
	if d := cfg.GetDefault(); d != nil {
		checkUnknown(&ps, "default", d)
		if d.GetAlterId() > math.MaxUint16 {
			ps.add("default.alterId", "must be a whole number from 0 to %d, got %d", math.MaxUint16, d.GetAlterId())
		}
		if d.GetLevel() > math.MaxUint8 {
			ps.add("default.level", "must be a whole number from 0 to %d, got %d", math.MaxUint8, d.GetLevel())
		}
	}
	if d := cfg.GetDetour(); d != nil {
		checkUnknown(&ps, "detour", d)
		if d.GetTo() == "" {
			ps.add("detour.to", "must name an inbound tag")
		}
	}
	return ps
}

// readUser unpacks a user's account and reports what the JSON form cannot
// carry. It returns nil when there is no readable account.
func readUser(ps *Problems, path string, user *protocol.User) *vmesspb.Account {
	if user == nil {
		ps.add(path, "missing")
		return nil
	}
	checkUnknown(ps, path, user)
	account, err := UnpackAccount(user.GetAccount())
	if err != nil {
		ps.add(path, "%v", err)
		return nil
	}
	checkUnknown(ps, path, account)
	security := account.GetSecuritySettings()
	if security == nil {
		ps.add(join(path, "security"), "missing (V2Ray's loader always sets it)")
		return account
	}
	checkUnknown(ps, join(path, "security"), security)
	if _, ok := SecurityName(security.GetType()); !ok {
		ps.add(join(path, "security"), "%v has no JSON spelling (want one of %s)", security.GetType(), securityChoices)
	}
	return account
}

// checkUnknown reports fields that forge's (and V2Ray's) definitions lack:
// the JSON form cannot carry them.
func checkUnknown(ps *Problems, path string, m proto.Message) {
	if n := len(m.ProtoReflect().GetUnknown()); n > 0 {
		ps.add(path, "%d bytes of unknown protobuf fields, which the JSON form cannot carry", n)
	}
}

// isUUID reports whether s is a UUID in canonical 8-4-4-4-12 form or as 32
// hex digits, in either letter case. V2Ray's parser is laxer: it takes the
// dashes as optional one by one and ignores anything after the 32nd digit.
func isUUID(s string) bool {
	switch len(s) {
	case 32:
		for i := range len(s) {
			if !isHex(s[i]) {
				return false
			}
		}
		return true
	case 36:
		for i := range len(s) {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if s[i] != '-' {
					return false
				}
			} else if !isHex(s[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
