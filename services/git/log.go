package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LogOptions selects a page of history.
type LogOptions struct {
	Ref   string   // branch, tag or sha (see Resolve); "" = default branch
	Not   []string // exclude commits reachable from these refs
	Path  string   // only commits touching this path (literal, not a glob)
	Skip  int      // commits to skip
	Limit int      // page size; <= 0 means no limit
	// Files fills Commit.Files (with per-file line counts); Stats fills
	// Commit.Stats. Both come from the diff against the first parent.
	Files bool
	Stats bool
	// NoRenames reports renames as a deletion plus an addition.
	NoRenames bool
}

// commitFormat: a record marker, then fixed fields each ending in NUL.
const (
	recordMarker = "\x1eC"
	commitFormat = "--format=%x1eC%H%x00%T%x00%P%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B%x00"
	commitFields = 10
)

// Log returns a page of commits reachable from opts.Ref (newest first, as
// `git log`) and the total number of matching commits. A page without
// exclusions is walked over cached commit objects (and, with a path
// filter, trees), its diffs and total come from caches keyed by commit id
// (logwalk.go): no git process once they are warm, at most two when cold
// (`git log --no-walk` for the page's diffs, `git rev-list --count`
// without a path). Other pages (exclusions, shallow repositories) run
// `git log` (with --raw/--numstat when files or stats are wanted) and a
// cached `git rev-list --count`.
func (s *Store) Log(ctx context.Context, path string, opts LogOptions) ([]Commit, int, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, 0, err
	}
	p, err := cleanPath(opts.Path)
	if err != nil {
		return nil, 0, err
	}
	if opts.Skip < 0 {
		return nil, 0, invalidf("negative skip")
	}
	revs, err := s.logRevs(ctx, path, opts.Ref, opts.Not)
	if err != nil {
		return nil, 0, err
	}
	var commits []Commit
	if p != "" && len(revs) == 1 && !isShallow(path) {
		// A path's history: walked and counted over cached objects.
		commits, total, err := s.pathHistory(ctx, path, revs[0], p, opts.Skip, opts.Limit)
		if err != nil {
			return nil, 0, err
		}
		if err := s.fillDiffs(ctx, path, commits, opts.Files, opts.Stats, opts.NoRenames); err != nil {
			return nil, 0, err
		}
		return commits, total, nil
	}
	if p == "" && len(revs) == 1 && opts.Limit > 0 && !isShallow(path) {
		// The common page: walked over cached objects (logwalk.go).
		if commits, err = s.walkLog(ctx, path, revs[0], opts.Skip, opts.Limit); err != nil {
			return nil, 0, err
		}
		if err := s.fillDiffs(ctx, path, commits, opts.Files, opts.Stats, opts.NoRenames); err != nil {
			return nil, 0, err
		}
	} else {
		// A range (a pull request's commits: head ^base) or an unbounded
		// page runs git log and git rev-list; their answer is a function
		// of the resolved object ids and the options, so it is kept
		// under them (not for grafted history, which a fetch can deepen).
		key := ""
		if !isShallow(path) {
			key = s.cacheKey(path, "log", strings.Join(revs, " ")+"\x00"+p+"\x00"+
				fmt.Sprint(opts.Skip, opts.Limit, opts.Files, opts.Stats, opts.NoRenames))
			if v, ok := s.cache.get(key); ok {
				page := v.(logPage)
				return cloneCommits(page.commits), page.total, nil
			}
		}
		args := []string{"log"}
		if opts.Skip > 0 {
			args = append(args, "--skip="+strconv.Itoa(opts.Skip))
		}
		if opts.Limit > 0 {
			args = append(args, "--max-count="+strconv.Itoa(opts.Limit))
		}
		if commits, err = s.logCommits(ctx, path, args, revs, p, opts.Files, opts.Stats, opts.NoRenames); err != nil {
			return nil, 0, err
		}
		total, err := s.countCommits(ctx, path, revs, p)
		if err != nil {
			return nil, 0, err
		}
		if key != "" {
			s.cache.add(key, logPage{commits: cloneCommits(commits), total: total}, commitsSize(commits))
		}
		return commits, total, nil
	}
	total, err := s.countCommits(ctx, path, revs, p)
	if err != nil {
		return nil, 0, err
	}
	return commits, total, nil
}

// logPage is a cached answer of Log.
type logPage struct {
	commits []Commit
	total   int
}

// cloneCommits copies commits down to their slices and stats, so neither
// the cache nor a caller sees the other's changes.
func cloneCommits(in []Commit) []Commit {
	out := make([]Commit, len(in))
	for i, c := range in {
		c.Parents = append([]string{}, c.Parents...)
		if c.Files != nil {
			c.Files = append([]ChangedFile{}, c.Files...)
		}
		if c.Stats != nil {
			st := *c.Stats
			c.Stats = &st
		}
		out[i] = c
	}
	return out
}

// commitsSize approximates the bytes commits hold, for the cache's bound.
func commitsSize(commits []Commit) int64 {
	n := int64(0)
	for _, c := range commits {
		n += 256 + int64(len(c.Message)+len(c.Author.Name)+len(c.Author.Email)+len(c.Committer.Name)+len(c.Committer.Email)) +
			int64(len(c.Parents))*48
		for _, f := range c.Files {
			n += 64 + int64(len(f.Filename)+len(f.PreviousFilename))
		}
	}
	return n
}

// GetCommit returns one commit (ref may be a sha, branch or tag) with its
// Files and Stats. ErrNotFound if it does not resolve.
func (s *Store) GetCommit(ctx context.Context, path, ref string) (Commit, error) {
	if err := s.checkRepo(path); err != nil {
		return Commit{}, err
	}
	sha, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return Commit{}, err
	}
	objs, err := s.catFileBatch(ctx, path, []string{sha})
	if err != nil {
		return Commit{}, err
	}
	if objs[0].Type != "commit" {
		return Commit{}, notFoundf("commit %q", ref)
	}
	commits := []Commit{parseRawCommit(sha, objs[0].Data)}
	if err := s.fillDiffs(ctx, path, commits, true, true, false); err != nil {
		return Commit{}, err
	}
	return commits[0], nil
}

// logRevs resolves the start ref and exclusions to shas.
func (s *Store) logRevs(ctx context.Context, path, ref string, not []string) ([]string, error) {
	sha, err := s.ResolveRef(ctx, path, ref)
	if err != nil {
		return nil, err
	}
	revs := []string{sha}
	for _, n := range not {
		nsha, err := s.ResolveRef(ctx, path, n)
		if err != nil {
			return nil, err
		}
		revs = append(revs, "^"+nsha)
	}
	return revs, nil
}

// logCommits runs one `git log` and parses its output as it streams.
func (s *Store) logCommits(ctx context.Context, path string, args, revs []string, p string, files, stats, noRenames bool) ([]Commit, error) {
	args = append(args, "-z", commitFormat, "--date=raw")
	if files || stats {
		// Diff against the first parent (merges too), the empty tree for
		// root commits; --full-diff so a path filter does not hide files.
		args = append(args, "--numstat", "--root", "--diff-merges=first-parent", "--full-diff",
			"--no-ext-diff", "--no-textconv")
		if files {
			args = append(args, "--raw", "--no-abbrev")
		}
		if noRenames {
			args = append(args, "--no-renames")
		} else {
			args = append(args, "-M")
		}
	}
	args = append(args, "--end-of-options")
	args = append(args, revs...)
	if p != "" {
		args = append(args, "--", p)
	}
	inv := invocation{gitDir: path, args: args}
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	commits, perr := parseLog(bufio.NewReaderSize(stdout, 64<<10), files, stats)
	if perr != nil {
		io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	return commits, perr
}

// parseLog parses `git log -z` output in commitFormat, optionally followed
// per commit by --raw entries (":<modes> <shas> <status>" NUL path [NUL
// path]) and --numstat entries ("<add>\t<del>\t<path>" or, for renames,
// "<add>\t<del>\t" NUL old NUL new).
func parseLog(r *bufio.Reader, files, stats bool) ([]Commit, error) {
	var commits []Commit
	var cur *Commit
	byPath := map[string]int{} // file name -> index in cur.Files
	var pending *Stats
	finish := func() {
		if cur == nil {
			return
		}
		if stats {
			cur.Stats = pending
		}
		if !files {
			cur.Files = nil
		} else if cur.Files == nil {
			cur.Files = []ChangedFile{}
		}
		commits = append(commits, *cur)
	}
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
		case strings.HasPrefix(lead, recordMarker):
			finish()
			fields := make([]string, commitFields)
			fields[0] = strings.TrimPrefix(lead, recordMarker)
			for i := 1; i < commitFields; i++ {
				if fields[i], err = next(); err != nil {
					return nil, fmt.Errorf("git log: truncated commit record: %w", err)
				}
			}
			cur = &Commit{
				SHA:       fields[0],
				Tree:      fields[1],
				Parents:   strings.Fields(fields[2]),
				Author:    parseIdent(fields[3] + " <" + fields[4] + "> " + fields[5]),
				Committer: parseIdent(fields[6] + " <" + fields[7] + "> " + fields[8]),
				Message:   fields[9],
			}
			if cur.Parents == nil {
				cur.Parents = []string{}
			}
			clear(byPath)
			pending = &Stats{}
		case cur == nil || lead == "":
			// separator between the header and the diff
		case lead[0] == ':':
			// raw: ":100644 100644 <old> <new> M" then path(s)
			f := strings.Fields(lead)
			if len(f) != 5 {
				return nil, fmt.Errorf("git log: bad raw entry %q", lead)
			}
			cf, err := rawEntry(f[4], next)
			if err != nil {
				return nil, err
			}
			if cf.Status == FileCopied {
				// A commit's files report a copy as a new file.
				cf.Status, cf.PreviousFilename = FileAdded, ""
			}
			byPath[cf.Filename] = len(cur.Files)
			cur.Files = append(cur.Files, cf)
		default:
			// numstat: "<add>\t<del>\t<path>" or "<add>\t<del>\t" + old + new
			a, rest, ok1 := strings.Cut(lead, "\t")
			d, name, ok2 := strings.Cut(rest, "\t")
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("git log: bad numstat entry %q", lead)
			}
			if name == "" {
				if _, err := next(); err != nil { // old name
					return nil, err
				}
				if name, err = next(); err != nil {
					return nil, err
				}
			}
			binary := a == "-"
			add, _ := strconv.Atoi(a)
			del, _ := strconv.Atoi(d)
			pending.Additions += add
			pending.Deletions += del
			pending.Total += add + del
			if i, ok := byPath[name]; ok {
				cur.Files[i].Additions, cur.Files[i].Deletions, cur.Files[i].Binary = add, del, binary
			}
		}
	}
	finish()
	return commits, nil
}

// isShallow reports whether the repository has grafted history (a
// shallow clone's cut parents), which only git log knows to respect.
func isShallow(path string) bool {
	_, err := os.Stat(filepath.Join(path, "shallow"))
	return err == nil
}
