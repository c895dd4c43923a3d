package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Diffs between two commits, for pull requests (merge base against head)
// and single commits (first parent against the commit): the list of
// changed files with their line counts, and the plain text of the diff or
// patch, which is written to the caller as git produces it and never held
// whole.

// FileCopied is the status of a file git found copied from another.
const FileCopied FileStatus = "copied"

// DiffFilesBetween lists the files changed from commit from to commit to,
// in git's (path) order, with their line counts: git diff --raw --numstat
// with rename detection (-M); a binary file counts 0/0 and has Binary
// set. A rename is listed under its new name with PreviousFilename. No
// patch text is produced, so a diff of many thousands of files costs its
// names and counts only. The list is cached per commit pair (callers must
// not modify it).
func (s *Store) DiffFilesBetween(ctx context.Context, path, from, to string) ([]ChangedFile, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	key := s.cacheKey(path, "difffiles", from+".."+to)
	if v, ok := s.cache.get(key); ok {
		return v.([]ChangedFile), nil
	}
	out, err := s.output(ctx, path, "diff", "--raw", "--numstat", "-z", "-M", "--no-abbrev",
		"--no-ext-diff", "--no-textconv", "--end-of-options", from, to, "--")
	if err != nil {
		return nil, err
	}
	files, err := parseDiffFiles(bufio.NewReader(bytes.NewReader(out)))
	if err != nil {
		return nil, err
	}
	size := int64(64)
	for i := range files {
		size += int64(len(files[i].Filename)+len(files[i].PreviousFilename)) + 64
	}
	s.cache.add(key, files, size)
	return files, nil
}

// parseDiffFiles parses `git diff --raw --numstat -z`: every file's raw
// entry (":<modes> <shas> <status>" NUL path [NUL new path]), then every
// file's numstat entry ("<add>\t<del>\t<path>" NUL, or for a rename
// "<add>\t<del>\t" NUL old NUL new NUL), both in the same order.
func parseDiffFiles(r *bufio.Reader) ([]ChangedFile, error) {
	var files []ChangedFile
	counted := 0
	next := func() (string, error) {
		tok, err := r.ReadString(0)
		if err == io.EOF && tok != "" {
			return tok, nil
		}
		return strings.TrimSuffix(tok, "\x00"), err
	}
	for {
		tok, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		lead := strings.TrimPrefix(tok, "\n")
		switch {
		case lead == "":
		case lead[0] == ':':
			f := strings.Fields(lead)
			if len(f) != 5 {
				return nil, fmt.Errorf("git diff: bad raw entry %q", lead)
			}
			cf, err := rawEntry(f[4], next)
			if err != nil {
				return nil, err
			}
			files = append(files, cf)
		default:
			a, rest, ok1 := strings.Cut(lead, "\t")
			d, name, ok2 := strings.Cut(rest, "\t")
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("git diff: bad numstat entry %q", lead)
			}
			if name == "" { // a rename or copy: old and new names follow
				if _, err := next(); err != nil {
					return nil, err
				}
				if _, err := next(); err != nil {
					return nil, err
				}
			}
			if counted >= len(files) {
				return nil, fmt.Errorf("git diff: more numstat than raw entries")
			}
			cf := &files[counted]
			counted++
			cf.Binary = a == "-" // "-\t-" for a binary file: 0/0
			cf.Additions, _ = strconv.Atoi(a)
			cf.Deletions, _ = strconv.Atoi(d)
		}
	}
	if files == nil {
		files = []ChangedFile{}
	}
	return files, nil
}

// rawEntry reads the path(s) of one raw entry of status (A, D, M, T, R<n>,
// C<n>, ...).
func rawEntry(status string, next func() (string, error)) (ChangedFile, error) {
	var cf ChangedFile
	name, err := next()
	if err != nil {
		return cf, err
	}
	switch status[0] {
	case 'A':
		cf.Status = FileAdded
	case 'D':
		cf.Status = FileDeleted
	case 'R':
		cf.Status = FileRenamed
	case 'C':
		cf.Status = FileCopied
	default: // M, T (type change), U, X
		cf.Status = FileModified
	}
	if status[0] == 'R' || status[0] == 'C' {
		cf.PreviousFilename = name
		if name, err = next(); err != nil {
			return cf, err
		}
	}
	cf.Filename = name
	return cf, nil
}

// DiffText chooses the text WriteDiff writes.
type DiffText struct {
	// From and To are commits; From "" is the empty tree (a root commit's
	// diff).
	From, To string
	// Patch: git format-patch --stdout --binary of the commits in
	// From..To (To alone when From is ""); otherwise git diff -p From To.
	Patch bool
	// Binary: the diff carries binary patches (git diff --binary).
	Binary bool
	// MaxBytes bounds the text; beyond it WriteDiff stops with an error
	// wrapping ErrTooLarge. 0: no bound.
	MaxBytes int64
}

// ErrTooLarge: the output passed the caller's bound.
var ErrTooLarge = fmt.Errorf("the diff is larger than allowed")

// WriteDiff writes the diff or patch t selects to w as git produces it.
// An error from w stops git (its output pipe closes) and is returned.
func (s *Store) WriteDiff(ctx context.Context, path string, t DiffText, w io.Writer) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	if !validSHA(t.To) || (t.From != "" && !validSHA(t.From)) {
		return invalidf("diff between %q and %q: commits are named by sha", t.From, t.To)
	}
	var args []string
	switch {
	case t.Patch && t.From == "":
		args = []string{"format-patch", "--stdout", "--binary", "--root", "-1", "--end-of-options", t.To}
	case t.Patch:
		args = []string{"format-patch", "--stdout", "--binary", "--end-of-options", t.From + ".." + t.To}
	default:
		from := t.From
		if from == "" {
			empty, err := s.output(ctx, path, "hash-object", "-t", "tree", "--stdin")
			if err != nil {
				return err
			}
			from = strings.TrimSpace(string(empty))
		}
		args = []string{"diff", "-p", "--no-color", "--no-ext-diff", "--no-textconv"}
		if t.Binary {
			args = append(args, "--binary")
		}
		args = append(args, "--end-of-options", from, t.To, "--")
	}
	out := &boundedWriter{w: w, left: t.MaxBytes, bounded: t.MaxBytes > 0}
	err := s.run(ctx, invocation{gitDir: path, args: args, stdout: out})
	if out.err != nil {
		return out.err // git died of the closed pipe; the writer's error is the cause
	}
	return err
}

// boundedWriter passes at most left bytes to w when bounded, and keeps
// the first error it returned.
type boundedWriter struct {
	w       io.Writer
	left    int64
	bounded bool
	err     error
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.bounded && int64(len(p)) > b.left {
		b.err = ErrTooLarge
		return 0, b.err
	}
	n, err := b.w.Write(p)
	b.left -= int64(n)
	if err != nil {
		b.err = err
	}
	return n, err
}
