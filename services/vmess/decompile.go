package vmess

import (
	"bytes"
	"encoding/json"

	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// settingsJSON is the V2Ray v4 settings object Decompile writes.
type settingsJSON struct {
	Clients                   []clientJSON `json:"clients"`
	Default                   *defaultJSON `json:"default,omitempty"`
	Detour                    *detourJSON  `json:"detour,omitempty"`
	DisableInsecureEncryption bool         `json:"disableInsecureEncryption"`
}

type clientJSON struct {
	ID          string `json:"id"`
	Level       uint32 `json:"level"`
	AlterID     uint32 `json:"alterId"`
	Email       string `json:"email,omitempty"`
	Security    string `json:"security"`
	Experiments string `json:"experiments,omitempty"`
}

type defaultJSON struct {
	AlterID uint32 `json:"alterId"`
	Level   uint32 `json:"level"`
}

type detourJSON struct {
	To string `json:"to"`
}

// Decompile writes cfg as a VMess inbound's V2Ray v4 settings object,
// indented, ending in a newline. default and detour appear when they are set.
//
// It fails, with Problems, only where JSON cannot carry the Config: a user
// without a readable VMess account, a security type with no JSON spelling
// (UNKNOWN, LEGACY) or none at all, or unknown protobuf fields. Other
// problems (a bad id, say) are written as they are; Validate finds them.
func Decompile(cfg *inbound.Config) ([]byte, error) {
	var ps Problems
	checkUnknown(&ps, "", cfg)
	out := settingsJSON{Clients: []clientJSON{}}
	for i, user := range cfg.GetUser() {
		account := readUser(&ps, index("clients", i), user)
		security, _ := SecurityName(account.GetSecuritySettings().GetType())
		out.Clients = append(out.Clients, clientJSON{
			ID:          account.GetId(),
			Level:       user.GetLevel(),
			AlterID:     account.GetAlterId(),
			Email:       user.GetEmail(),
			Security:    security,
			Experiments: account.GetTestsEnabled(),
		})
	}
	if d := cfg.GetDefault(); d != nil {
		checkUnknown(&ps, "default", d)
		out.Default = &defaultJSON{AlterID: d.GetAlterId(), Level: d.GetLevel()}
	}
	if d := cfg.GetDetour(); d != nil {
		checkUnknown(&ps, "detour", d)
		out.Detour = &detourJSON{To: d.GetTo()}
	}
	out.DisableInsecureEncryption = cfg.GetSecureEncryptionOnly()
	if err := ps.err(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
