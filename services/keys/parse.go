package keys

import (
	"crypto/dsa" //nolint:staticcheck // to measure DSA keys, which are refused by default
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"forge/services/errs"
)

// Parsed is a key accepted for storage.
type Parsed struct {
	// Content is the key as stored: "type base64" (the comment dropped
	// only of surrounding space).
	Content     string
	Fingerprint string // SHA256:..., as ssh-keygen -l and Gitea
	Key         ssh.PublicKey
}

// Rules are the size rules of [ssh.minimum_key_sizes].
type Rules struct {
	Check bool
	Sizes map[string]int
}

// invalid is Gitea's 422 for key content it refuses.
func invalid(format string, a ...any) error {
	return errs.Newf(errs.Invalid, "Invalid key content: "+format, a...)
}

// Parse checks one authorized_keys line as Gitea does: a single key, of a
// type the rules allow, at least as long as they ask.
func (r Rules) Parse(content string) (*Parsed, error) {
	content = strings.TrimRight(strings.TrimSpace(content), "\r\n")
	if strings.HasPrefix(content, rfc4716Begin) {
		line, err := fromRFC4716(content)
		if err != nil {
			return nil, err
		}
		content = line
	}
	if strings.ContainsAny(content, "\r\n") {
		return nil, invalid("only a single line with a single key please")
	}
	key, comment, options, rest, err := ssh.ParseAuthorizedKey([]byte(content))
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), ";") // x/crypto adds why the last line did not parse
		return nil, invalid("%s", msg)
	}
	if len(options) > 0 || len(rest) > 0 {
		return nil, invalid("only a single line with a single key please")
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
	if comment != "" {
		line += " " + comment
	}
	p := &Parsed{Content: line, Fingerprint: ssh.FingerprintSHA256(key), Key: key}
	if !r.Check {
		return p, nil
	}
	typ, bits, err := typeAndSize(key)
	if err != nil {
		return nil, invalid("%v", err)
	}
	min, found := r.Sizes[typ]
	switch {
	case !found || min < 0:
		return nil, invalid("key type is not allowed: %s", typ)
	case bits < min:
		return nil, invalid("key length is not enough: got %d, needs %d", bits, min)
	}
	return p, nil
}

// typeAndSize is Gitea's name of the key's type and its size in bits.
func typeAndSize(key ssh.PublicKey) (string, int, error) {
	switch key.Type() {
	case ssh.KeyAlgoED25519:
		return "ed25519", 256, nil
	case ssh.KeyAlgoSKED25519:
		return "ed25519-sk", 256, nil
	case ssh.KeyAlgoSKECDSA256:
		return "ecdsa-sk", 256, nil
	}
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return "", 0, fmt.Errorf("unsupported key type %s", key.Type())
	}
	switch k := ck.CryptoPublicKey().(type) {
	case *rsa.PublicKey:
		return "rsa", k.N.BitLen(), nil
	case *ecdsa.PublicKey:
		return "ecdsa", k.Curve.Params().BitSize, nil
	case *dsa.PublicKey:
		return "dsa", k.P.BitLen(), nil
	}
	return "", 0, fmt.Errorf("unsupported key type %s", key.Type())
}

// rfc4716Begin starts a key in the SSH2 format (RFC 4716), which Gitea
// accepts too (PuTTYgen writes it).
const rfc4716Begin = "---- BEGIN SSH2 PUBLIC KEY ----"

// fromRFC4716 turns an RFC 4716 key into an authorized_keys line: header
// lines ("Comment: ...", continued with a trailing backslash) and the
// BEGIN and END lines are skipped, the rest is the key in base64.
func fromRFC4716(content string) (string, error) {
	var body strings.Builder
	continued := false
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if continued || strings.ContainsAny(line, ":-") {
			continued = strings.HasSuffix(line, "\\")
			continue
		}
		body.WriteString(line)
	}
	raw, err := base64.StdEncoding.DecodeString(body.String())
	if err != nil {
		return "", invalid("%v", err)
	}
	key, err := ssh.ParsePublicKey(raw)
	if err != nil {
		return "", invalid("%v", err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), nil
}
