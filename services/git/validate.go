package git

import (
	"strings"
)

// ValidRefName reports whether name is a valid short branch or tag name
// (the part after refs/heads/ or refs/tags/), following
// git-check-ref-format(1) with --branch rules: no empty or dot-leading
// components, no "..", "@{", control characters, space or any of ~^:?*[\,
// no component ending in ".lock", no trailing '.' or '/', not "@", "HEAD",
// and not starting with '-'. It also caps the length at 255 bytes.
func ValidRefName(name string) bool {
	if name == "" || len(name) > 255 || name == "@" || name == "HEAD" || name[0] == '-' {
		return false
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.HasSuffix(name, ".") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		switch c {
		case ' ', '~', '^', ':', '?', '*', '[', '\\':
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

// cleanPath normalises a repository-relative path: surrounding slashes are
// dropped, "" means the root. Empty, "." and ".." components and NUL bytes
// are rejected with ErrInvalid.
func cleanPath(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", invalidf("path %q", p)
	}
	for _, comp := range strings.Split(p, "/") {
		if comp == "" || comp == "." || comp == ".." {
			return "", invalidf("path %q", p)
		}
	}
	return p, nil
}

// cleanWritePath is cleanPath for paths a commit will create: it also
// rejects the root and any ".git" component, which git would refuse.
func cleanWritePath(p string) (string, error) {
	p, err := cleanPath(p)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", invalidf("empty file path")
	}
	for _, comp := range strings.Split(p, "/") {
		if strings.EqualFold(comp, ".git") {
			return "", invalidf("path %q", p)
		}
	}
	return p, nil
}

// isHex reports whether s is a non-empty lower- or upper-case hex string.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isObjectID reports whether s is a full SHA-1 or SHA-256 object id.
func isObjectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}

// IsZeroSHA reports whether sha is an all-zero object id (the "no object"
// value git uses for created and deleted refs).
func IsZeroSHA(sha string) bool {
	if sha == "" {
		return false
	}
	for i := 0; i < len(sha); i++ {
		if sha[i] != '0' {
			return false
		}
	}
	return true
}
