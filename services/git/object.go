package git

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ZeroSHA is the all-zero SHA-1 object id.
const ZeroSHA = "0000000000000000000000000000000000000000"

// Signature is an author, committer or tagger. When keeps the zone the
// signature was recorded in.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object. Files and Stats are filled only when asked for.
type Commit struct {
	SHA       string
	Tree      string
	Parents   []string // never nil; empty for a root commit
	Author    Signature
	Committer Signature
	Message   string // full raw message (subject, blank line, body)
	Files     []ChangedFile
	Stats     *Stats
}

// FileStatus is how a commit changed a file relative to its first parent.
type FileStatus string

const (
	FileAdded    FileStatus = "added"
	FileModified FileStatus = "modified"
	FileDeleted  FileStatus = "deleted"
	FileRenamed  FileStatus = "renamed"
)

// ChangedFile is one file in a commit's diff against its first parent (the
// empty tree for a root commit).
type ChangedFile struct {
	Filename         string
	PreviousFilename string // set for renames
	Status           FileStatus
	Additions        int
	Deletions        int
	Binary           bool // additions/deletions are 0 for binary files
}

// Stats sums a commit's line changes. Total is Additions + Deletions.
type Stats struct {
	Total     int
	Additions int
	Deletions int
}

// parseIdent parses a raw git ident: "Name <email> 1700000000 +0200".
func parseIdent(s string) Signature {
	var sig Signature
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		sig.Name = strings.TrimSpace(s)
		return sig
	}
	sig.Name = strings.TrimSpace(s[:lt])
	sig.Email = s[lt+1 : gt]
	fields := strings.Fields(s[gt+1:])
	if len(fields) >= 1 {
		if ts, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			loc := time.UTC
			if len(fields) >= 2 {
				loc = parseZone(fields[1])
			}
			sig.When = time.Unix(ts, 0).In(loc)
		}
	}
	return sig
}

// parseZone parses "+0200" / "-0530" into a fixed zone.
func parseZone(z string) *time.Location {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return time.UTC
	}
	h, err1 := strconv.Atoi(z[1:3])
	m, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := h*3600 + m*60
	if z[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC
	}
	return time.FixedZone("", off)
}

// gitDate formats t in git's internal date format ("@1700000000 +0200").
func gitDate(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign = '-'
		off = -off
	}
	return fmt.Sprintf("@%d %c%02d%02d", t.Unix(), sign, off/3600, (off%3600)/60)
}

// validIdentPart rejects characters that would corrupt a raw ident line.
func validIdentPart(s string) bool {
	return !strings.ContainsAny(s, "<>\n\x00")
}

// checkSignature validates sig for writing and fills in When.
func checkSignature(sig Signature, role string) (Signature, error) {
	if strings.TrimSpace(sig.Name) == "" || strings.TrimSpace(sig.Email) == "" {
		return sig, invalidf("%s needs a name and an email", role)
	}
	if !validIdentPart(sig.Name) || !validIdentPart(sig.Email) {
		return sig, invalidf("%s name or email contains <, >, newline or NUL", role)
	}
	if sig.When.IsZero() {
		sig.When = time.Now()
	}
	return sig, nil
}

// identLine formats sig as a raw ident (for tag objects).
func identLine(sig Signature) string {
	d := gitDate(sig.When)
	return fmt.Sprintf("%s <%s> %s", strings.TrimSpace(sig.Name), strings.TrimSpace(sig.Email), d[1:])
}

// identEnv returns the environment that makes commit-tree use sig.
func identEnv(prefix string, sig Signature) []string {
	return []string{
		"GIT_" + prefix + "_NAME=" + sig.Name,
		"GIT_" + prefix + "_EMAIL=" + sig.Email,
		"GIT_" + prefix + "_DATE=" + gitDate(sig.When),
	}
}

// parseRawCommit parses the body of a commit object as printed by
// `git cat-file commit`.
func parseRawCommit(sha string, raw []byte) Commit {
	c := Commit{SHA: sha, Parents: []string{}}
	header, msg, _ := bytes.Cut(raw, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.Tree = val
		case "parent":
			c.Parents = append(c.Parents, val)
		case "author":
			c.Author = parseIdent(val)
		case "committer":
			c.Committer = parseIdent(val)
		}
	}
	return c
}

// normalizeMessage gives a commit or tag message the trailing newline git
// tools write.
func normalizeMessage(msg string) string {
	if msg != "" && !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	return msg
}
