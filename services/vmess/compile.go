package vmess

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"forge/gen/v2ray/core/common/protocol"
	vmesspb "forge/gen/v2ray/core/proxy/vmess"
	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// Compile turns V2Ray v4 JSON into a Config. data is either the "settings"
// object of a VMess inbound:
//
//	{"clients": [{"id", "alterId", "level", "email", "security", "experiments"}],
//	 "default": {"alterId", "level"}, "detour": {"to"},
//	 "disableInsecureEncryption": true}
//
// or a whole V2Ray config file ({"inbounds": [...]}) with exactly one inbound
// whose protocol is "vmess"; use CompileTag to pick one of several. The
// error is Problems: every problem found, including those Validate reports.
func Compile(data []byte) (*inbound.Config, error) {
	return CompileTag(data, "")
}

// CompileTag is Compile for a config file with several VMess inbounds: it
// compiles the one whose tag is tag. An empty tag means the only one; a
// non-empty tag with a bare settings object is an error.
func CompileTag(data []byte, tag string) (*inbound.Config, error) {
	cfg, problems := compile(data, tag)
	if len(problems) > 0 {
		return nil, problems
	}
	return cfg, nil
}

// compile returns as much of the Config as it could build (nil if none) and
// every problem, sorted.
func compile(data []byte, tag string) (*inbound.Config, Problems) {
	p := &parser{}
	prefix, settings, ok := p.document(data, tag)
	if !ok {
		return nil, p.problems.sorted()
	}
	cfg := p.settings(prefix, settings)
	for _, v := range validate(cfg) {
		if p.detourFromFeatures && within(v.Path, "detour") {
			v.Path = "features." + v.Path
		}
		v.Path = join(prefix, v.Path)
		// A value that failed to parse was left at zero; don't report that too.
		if !p.problems.covers(v.Path) {
			p.problems = append(p.problems, v)
		}
	}
	return cfg, p.problems.sorted()
}

// parser reads V2Ray v4 JSON, following V2Ray's loader (Go's encoding/json):
// keys match case-insensitively, unknown keys are ignored, null leaves a value
// unset, and a wrong JSON type is a problem. It collects problems instead of
// stopping at the first.
type parser struct {
	problems           Problems
	detourFromFeatures bool
}

// member is one key and value of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// document checks the syntax and finds the settings object: data itself, or
// the chosen VMess inbound's settings in a config file. It returns the
// settings' path prefix ("" or "inbounds[1].settings").
func (p *parser) document(data []byte, tag string) (prefix string, settings json.RawMessage, ok bool) {
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		p.problems.add("", "%s", syntaxMessage(data, err))
		return "", nil, false
	}
	data = bytes.Trim(data, " \t\r\n")
	if isNull(data) {
		p.problems.add("", "expected an object, got null")
		return "", nil, false
	}
	top, ok := p.object("", data)
	if !ok {
		return "", nil, false
	}
	fields := p.fields("", top, "inbounds")
	inbounds, isFile := fields["inbounds"]
	if !isFile {
		if tag != "" {
			p.problems.add("", "a tag (%q) applies to a config file with inbounds, and this is a settings object", tag)
			return "", nil, false
		}
		return "", data, true
	}
	return p.inbound(inbounds, tag)
}

// inbound picks the VMess inbound out of a config file's "inbounds".
func (p *parser) inbound(raw json.RawMessage, tag string) (prefix string, settings json.RawMessage, ok bool) {
	type candidate struct {
		path, tag string
		settings  json.RawMessage
	}
	var found []candidate
	for i, item := range p.array("inbounds", raw) {
		path := index("inbounds", i)
		members, ok := p.object(path, item)
		if !ok {
			continue
		}
		fields := p.fields(path, members, "protocol", "tag", "settings")
		if !strings.EqualFold(p.string(join(path, "protocol"), fields["protocol"]), "vmess") {
			continue
		}
		c := candidate{path: path, tag: p.string(join(path, "tag"), fields["tag"]), settings: fields["settings"]}
		if tag == "" || c.tag == tag {
			found = append(found, c)
		}
	}
	if len(p.problems) > 0 {
		return "", nil, false
	}
	switch {
	case len(found) == 1:
		return join(found[0].path, "settings"), found[0].settings, true
	case len(found) == 0 && tag == "":
		p.problems.add("inbounds", `no inbound with protocol "vmess"`)
	case len(found) == 0:
		p.problems.add("inbounds", `no inbound with protocol "vmess" and tag %q`, tag)
	default:
		var list []string
		for _, c := range found {
			list = append(list, fmt.Sprintf("%s (tag %q)", c.path, c.tag))
		}
		p.problems.add("inbounds", "%d VMess inbounds match: %s; choose one by tag", len(found), strings.Join(list, ", "))
	}
	return "", nil, false
}

// settings reads a VMess inbound's settings object. A missing or null
// settings object is an empty Config, as in V2Ray.
func (p *parser) settings(path string, raw json.RawMessage) *inbound.Config {
	cfg := &inbound.Config{}
	members, ok := p.object(path, raw)
	if !ok {
		return cfg
	}
	fields := p.fields(path, members, "clients", "default", "detour", "features", "disableInsecureEncryption")
	clients := join(path, "clients")
	for i, item := range p.array(clients, fields["clients"]) {
		// Every element becomes a user, even a broken one, so that user[i]
		// stays clients[i] for the problems Validate reports.
		cfg.User = append(cfg.User, p.client(index(clients, i), item))
	}
	cfg.Default = p.defaults(join(path, "default"), fields["default"])
	cfg.Detour = p.detour(join(path, "detour"), fields["detour"])
	// The older spelling features.detour counts only when detour is unset.
	olderDetour := p.features(join(path, "features"), fields["features"])
	if cfg.Detour == nil && olderDetour != nil {
		cfg.Detour = olderDetour
		p.detourFromFeatures = true
	}
	cfg.SecureEncryptionOnly = p.bool(join(path, "disableInsecureEncryption"), fields["disableInsecureEncryption"])
	return cfg
}

// client reads one element of "clients". Security defaults to AUTO and is
// always set, as V2Ray's loader does.
func (p *parser) client(path string, raw json.RawMessage) *protocol.User {
	user := &protocol.User{}
	account := &vmesspb.Account{SecuritySettings: &protocol.SecurityConfig{Type: protocol.SecurityType_AUTO}}
	if isNull(raw) {
		p.problems.add(path, "expected an object, got null")
	} else if members, ok := p.object(path, raw); ok {
		fields := p.fields(path, members, "id", "alterId", "level", "email", "security", "experiments")
		account.Id = p.string(join(path, "id"), fields["id"])
		account.AlterId = p.uint(join(path, "alterId"), fields["alterId"], math.MaxUint16)
		user.Level = p.uint(join(path, "level"), fields["level"], math.MaxUint32)
		user.Email = p.string(join(path, "email"), fields["email"])
		account.SecuritySettings.Type = p.security(join(path, "security"), fields["security"])
		account.TestsEnabled = p.string(join(path, "experiments"), fields["experiments"])
	}
	packed, err := PackAccount(account)
	if err != nil {
		p.problems.add(path, "%v", err)
	}
	user.Account = packed
	return user
}

// security reads a security name. Missing or empty means AUTO, as in V2Ray;
// an unknown name is a problem (V2Ray silently uses AUTO).
func (p *parser) security(path string, raw json.RawMessage) protocol.SecurityType {
	name := p.string(path, raw)
	if name == "" {
		return protocol.SecurityType_AUTO
	}
	t, ok := securityByName(name)
	if !ok {
		p.problems.add(path, "unknown security %q (want one of %s)", name, securityChoices)
		return protocol.SecurityType_AUTO
	}
	return t
}

func (p *parser) defaults(path string, raw json.RawMessage) *inbound.DefaultConfig {
	members, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	fields := p.fields(path, members, "alterId", "level")
	return &inbound.DefaultConfig{
		AlterId: p.uint(join(path, "alterId"), fields["alterId"], math.MaxUint16),
		Level:   p.uint(join(path, "level"), fields["level"], math.MaxUint8),
	}
}

func (p *parser) detour(path string, raw json.RawMessage) *inbound.DetourConfig {
	members, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	fields := p.fields(path, members, "to")
	return &inbound.DetourConfig{To: p.string(join(path, "to"), fields["to"])}
}

// features reads the older {"features": {"detour": {"to": ...}}}.
func (p *parser) features(path string, raw json.RawMessage) *inbound.DetourConfig {
	members, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	fields := p.fields(path, members, "detour")
	return p.detour(join(path, "detour"), fields["detour"])
}

// fields picks the named fields out of an object's members. Keys match
// case-insensitively, as in encoding/json; other keys are ignored. A field
// given twice is a problem (encoding/json would keep the last silently).
func (p *parser) fields(path string, members []member, names ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	keys := map[string]string{}
	for _, m := range members {
		for _, name := range names {
			if !strings.EqualFold(m.key, name) {
				continue
			}
			if first, seen := keys[name]; seen {
				p.problems.add(join(path, name), "given twice (as %q and %q)", first, m.key)
			} else {
				keys[name] = m.key
			}
			out[name] = m.value
		}
	}
	return out
}

// object returns an object's members. It returns false for a missing or null
// value, and for any other non-object (a problem).
func (p *parser) object(path string, raw json.RawMessage) ([]member, bool) {
	if isNull(raw) {
		return nil, false
	}
	if !p.want(path, raw, "an object") {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		p.problems.add(path, "%v", err)
		return nil, false
	}
	var members []member
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			p.problems.add(path, "%v", err)
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			p.problems.add(path, "%v", err)
			return nil, false
		}
		members = append(members, member{key: key.(string), value: value})
	}
	return members, true
}

// array returns an array's elements; nothing for a missing or null value.
func (p *parser) array(path string, raw json.RawMessage) []json.RawMessage {
	if isNull(raw) || !p.want(path, raw, "an array") {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		p.problems.add(path, "%v", err)
	}
	return items
}

// string returns a string; "" for a missing or null value.
func (p *parser) string(path string, raw json.RawMessage) string {
	var s string
	if isNull(raw) || !p.want(path, raw, "a string") {
		return ""
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		p.problems.add(path, "%v", err)
	}
	return s
}

// bool returns a boolean; false for a missing or null value.
func (p *parser) bool(path string, raw json.RawMessage) bool {
	if isNull(raw) {
		return false
	}
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	}
	p.problems.add(path, "expected a boolean, got %s", kind(raw))
	return false
}

// uint returns a whole number from 0 to limit; 0 for a missing or null value.
// Like encoding/json into a Go unsigned integer, it rejects fractions,
// exponents and negative numbers.
func (p *parser) uint(path string, raw json.RawMessage, limit uint64) uint32 {
	if isNull(raw) || !p.want(path, raw, "a number") {
		return 0
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil || n > limit {
		p.problems.add(path, "must be a whole number from 0 to %d, got %s", limit, clip(string(raw)))
		return 0
	}
	return uint32(n)
}

// want reports whether raw is of the named JSON kind, and adds a problem if
// not.
func (p *parser) want(path string, raw json.RawMessage, name string) bool {
	if got := kind(raw); got != name {
		p.problems.add(path, "expected %s, got %s", name, got)
		return false
	}
	return true
}

// kind names the JSON type of a valid JSON value.
func kind(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// isNull reports whether a value is missing or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// clip shortens long input quoted in messages.
func clip(s string) string {
	if len(s) > 24 {
		return s[:21] + "..."
	}
	return s
}

// syntaxMessage describes a JSON syntax error with its line and column.
func syntaxMessage(data []byte, err error) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return "invalid JSON: " + err.Error()
	}
	// Offset counts the bytes read, the offending one included.
	at := min(max(int(syntax.Offset)-1, 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	column := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, column, err)
}
