package git

import (
	"strings"
	"unicode/utf8"
)

// ValidRefName reports whether name is a valid short branch or tag name
// (the part after refs/heads/ or refs/tags/), following
// git-check-ref-format(1) with --branch rules: no empty or dot-leading
// components, no "..", "@{", control characters, space or any of ~^:?*[\,
// no component ending in ".lock", no trailing '.' or '/', not "@", "HEAD",
// and not starting with '-'. It also caps the length at 255 bytes.
func ValidRefName(name string) bool {
	if name == "" || len(name) > MaxRefNameBytes || name == "@" || name == "HEAD" || name[0] == '-' {
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

// Limits on the paths a commit may create. git itself has no fixed limit,
// but deeper or longer paths break it (read-tree recurses once per level)
// and cost work proportional to depth times length wherever every leading
// directory is named. They match common file systems: PATH_MAX, NAME_MAX.
const (
	MaxPathBytes      = 4096 // a whole path, in bytes
	MaxPathDepth      = 256  // components of a path
	MaxComponentBytes = 255  // one component, in bytes
)

// cleanWritePath is cleanPath for paths a commit will create, update or
// delete. On top of cleanPath it enforces the Max* limits (checked before
// anything proportional to the path's depth is allocated) and refuses the
// root and every name git's verify_path refuses with core.protectNTFS and
// core.protectHFS: git would silently drop such a path from the index.
func cleanWritePath(p string) (string, error) {
	if len(p) > MaxPathBytes {
		return "", invalidf("path is too long [length: %d, max: %d bytes]", len(p), MaxPathBytes)
	}
	// Counting separators allocates nothing; depth is known before Split.
	if depth := strings.Count(strings.Trim(p, "/"), "/") + 1; depth > MaxPathDepth {
		return "", invalidf("path is too deep [depth: %d, max: %d]", depth, MaxPathDepth)
	}
	clean, err := cleanPath(p)
	if err != nil {
		return "", malformedPath(p)
	}
	if clean == "" {
		return "", invalidf("empty file path")
	}
	for _, comp := range strings.Split(clean, "/") {
		if len(comp) > MaxComponentBytes {
			return "", invalidf("path component is too long [length: %d, max: %d bytes]", len(comp), MaxComponentBytes)
		}
		if isDotGitName(comp) {
			return "", malformedPath(clean)
		}
	}
	return clean, nil
}

// malformedPath is Gitea's ErrFilePathInvalid wording; long paths are
// shortened so an error never echoes kilobytes of input.
func malformedPath(p string) error {
	return invalidf("path contains a malformed path component [path: %s]", shortPath(p))
}

// shortPath returns p, or its first 200 bytes and "..." when longer.
func shortPath(p string) string {
	const max = 200
	if len(p) <= max {
		return p
	}
	return p[:max] + "..."
}

// isDotGitName reports whether one path component names the repository's
// .git directory on some file system git protects checkouts on: ".git" in
// any case (verify_path), its NTFS aliases (is_ntfs_dotgit) and its HFS+
// aliases (is_hfs_dotgit).
func isDotGitName(comp string) bool {
	if isHFSDotGit(comp) || isNTFSDotGit(comp) {
		return true
	}
	// NTFS also splits names at backslashes, so every part after one is a
	// name of its own.
	for i := 0; i < len(comp); i++ {
		if comp[i] == '\\' && isNTFSDotGit(comp[i+1:]) {
			return true
		}
	}
	return false
}

// isNTFSDotGit follows git's is_ntfs_dotgit: ".git" or its 8.3 short name
// "git~1" (ASCII case-insensitive), followed only by spaces and periods
// (which NTFS strips) up to the end, a separator, or ':' (an alternate
// data stream such as ".git::$INDEX_ALLOCATION").
func isNTFSDotGit(name string) bool {
	var rest string
	switch {
	case len(name) >= 4 && name[0] == '.' && asciiEqualFold(name[1:4], "git"):
		rest = name[4:]
	case len(name) >= 5 && asciiEqualFold(name[:3], "git") && name[3:5] == "~1":
		rest = name[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\', '/', ':':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

// isHFSDotGit follows git's is_hfs_dotgit: HFS+ ignores some zero-width
// and direction code points in names, so ".g\u200cit" is ".git" there.
// The comparison is ASCII case-insensitive; malformed UTF-8 ends the name,
// as in git.
func isHFSDotGit(name string) bool {
	var r rune
	for _, want := range ".git" {
		r, name = nextHFSRune(name)
		if r > 0x7f || asciiLower(byte(r)) != byte(want) {
			return false
		}
	}
	r, _ = nextHFSRune(name)
	return r == 0 || r == '/'
}

// nextHFSRune returns the first rune of s that HFS+ does not ignore and the
// rest of s; 0 at the end of s or at malformed UTF-8.
func nextHFSRune(s string) (rune, string) {
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			return 0, ""
		}
		s = s[n:]
		if !hfsIgnorable(r) {
			return r, s
		}
	}
	return 0, ""
}

// hfsIgnorable lists the code points git's next_hfs_char skips.
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiEqualFold compares s with the lower-case ASCII word t, ignoring
// ASCII case only (no Unicode folding: "\u212a" is not "k" here).
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if asciiLower(s[i]) != t[i] {
			return false
		}
	}
	return true
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
