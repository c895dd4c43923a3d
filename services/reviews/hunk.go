package reviews

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	"forge/services/git"
)

// maxDiffBytes bounds the diff read for the hunks of a review's line
// comments; past it the comments keep no hunk.
const maxDiffBytes = 8 << 20

// hunkLines is how many diff lines a comment's hunk keeps, ending at the
// commented line (Gitea's [ui] CODE_COMMENT_LINES default).
const hunkLines = 4

// diffOf reads the diff from base to head once for all of a review's
// line comments; a diff too large reads as none.
func diffOf(ctx context.Context, g Git, path, base, head string) (string, error) {
	var buf bytes.Buffer
	err := g.WriteDiff(ctx, path, git.DiffText{From: base, To: head, MaxBytes: maxDiffBytes}, &buf)
	if errors.Is(err, git.ErrTooLarge) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return buf.String(), nil
}

// hunkAt is the part of diff showing line of file path (line > 0 on the
// new side, < 0 on the old side): the file's header, the hunk's header and
// up to hunkLines lines ending at the line; "" when the diff does not
// show it.
func hunkAt(diff, path string, line int64) string {
	for _, file := range strings.Split("\n"+diff, "\ndiff --git ")[1:] {
		lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
		header := []string{"diff --git " + lines[0]}
		i := 1
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			header = append(header, lines[i])
		}
		if !diffNames(header, path) {
			continue
		}
		for i < len(lines) {
			oldNo, newNo, ok := hunkStart(lines[i])
			if !ok {
				i++
				continue
			}
			start := i
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
				l := lines[i]
				var hit bool
				switch {
				case strings.HasPrefix(l, "+"):
					hit = line > 0 && newNo == line
					newNo++
				case strings.HasPrefix(l, "-"):
					hit = line < 0 && oldNo == -line
					oldNo++
				case strings.HasPrefix(l, " "):
					hit = (line > 0 && newNo == line) || (line < 0 && oldNo == -line)
					oldNo++
					newNo++
				}
				if hit {
					from := max(start+1, i-hunkLines+1)
					out := append(append(header, lines[start]), lines[from:i+1]...)
					return strings.Join(out, "\n")
				}
			}
		}
		return ""
	}
	return ""
}

// diffNames reports whether a file's diff header names path on either
// side.
func diffNames(header []string, path string) bool {
	for _, h := range header {
		if h == "--- a/"+path || h == "+++ b/"+path {
			return true
		}
	}
	return false
}

// hunkStart reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStart(h string) (int64, int64, bool) {
	f := strings.Fields(h)
	if len(f) < 3 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	num := func(s string) (int64, bool) {
		s, _, _ = strings.Cut(s[1:], ",")
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	o, ok1 := num(f[1])
	n, ok2 := num(f[2])
	return o, n, ok1 && ok2
}
