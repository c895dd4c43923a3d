package git

import (
	"container/heap"
	"context"
	"strconv"
	"strings"
)

// A page of history without a path filter or exclusions is walked here,
// over commit objects read through the pooled reader and the object
// cache, in `git log`'s default order: the commit with the newest
// committer date first, commits of equal date in the order they were
// reached. Diff stats and changed files come from a cache keyed by commit
// id; only commits never seen before cost one `git log --no-walk` for the
// page. The total is cached per start commit (the commits reachable from
// a commit never change).

// walkItem is a commit waiting in the walk's queue.
type walkItem struct {
	c    Commit
	date int64
	seq  int
}

type walkQueue []walkItem

func (q walkQueue) Len() int { return len(q) }
func (q walkQueue) Less(i, j int) bool {
	if q[i].date != q[j].date {
		return q[i].date > q[j].date
	}
	return q[i].seq < q[j].seq
}
func (q walkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)   { *q = append(*q, x.(walkItem)) }
func (q *walkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// walkLog returns commits skip..skip+limit reachable from start (a full
// commit id) in git log's default order.
func (s *Store) walkLog(ctx context.Context, path, start string, skip, limit int) ([]Commit, error) {
	seen := map[string]bool{start: true}
	q := &walkQueue{}
	seq := 0
	push := func(shas []string) error {
		objs, err := s.catFileBatch(ctx, path, shas)
		if err != nil {
			return err
		}
		for i, o := range objs {
			if o.Type != "commit" {
				return notFoundf("commit %q", shas[i])
			}
			c := parseRawCommit(o.SHA, o.Data)
			heap.Push(q, walkItem{c: c, date: c.Committer.When.Unix(), seq: seq})
			seq++
		}
		return nil
	}
	if err := push([]string{start}); err != nil {
		return nil, err
	}
	var out []Commit
	for n := 0; q.Len() > 0 && len(out) < limit; n++ {
		it := heap.Pop(q).(walkItem)
		if n >= skip {
			out = append(out, it.c)
		}
		var next []string
		for _, p := range it.c.Parents {
			if !seen[p] {
				seen[p] = true
				next = append(next, p)
			}
		}
		if len(next) > 0 && len(out) < limit {
			if err := push(next); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// commitDiff is what a commit changed against its first parent.
type commitDiff struct {
	Files []ChangedFile
	Stats Stats
}

// fillDiffs sets Files and/or Stats of commits from the diff cache,
// computing the missing ones with one `git log --no-walk`.
func (s *Store) fillDiffs(ctx context.Context, path string, commits []Commit, files, stats, noRenames bool) error {
	if !files && !stats {
		return nil
	}
	kind := "diff"
	if noRenames {
		kind = "diff-norenames"
	}
	diffs := make([]*commitDiff, len(commits))
	var missing []string
	for i, c := range commits {
		if v, ok := s.cache.get(s.cacheKey(path, kind, c.SHA)); ok {
			diffs[i] = v.(*commitDiff)
		} else {
			missing = append(missing, c.SHA)
		}
	}
	if len(missing) > 0 {
		got, err := s.logCommits(ctx, path, []string{"log", "--no-walk=unsorted"}, missing, "", true, true, noRenames)
		if err != nil {
			return err
		}
		byID := make(map[string]*commitDiff, len(got))
		for _, g := range got {
			d := &commitDiff{Files: g.Files, Stats: *g.Stats}
			byID[g.SHA] = d
			size := int64(64)
			for _, f := range d.Files {
				size += int64(len(f.Filename)+len(f.PreviousFilename)) + 64
			}
			s.cache.add(s.cacheKey(path, kind, g.SHA), d, size)
		}
		for i, c := range commits {
			if diffs[i] == nil {
				if diffs[i] = byID[c.SHA]; diffs[i] == nil {
					return &Error{Command: "log", Stderr: "no diff for commit " + c.SHA}
				}
			}
		}
	}
	for i := range commits {
		if files {
			commits[i].Files = append([]ChangedFile{}, diffs[i].Files...)
		}
		if stats {
			st := diffs[i].Stats
			commits[i].Stats = &st
		}
	}
	return nil
}

// countCommits is `git rev-list --count revs [-- p]`, cached when revs is
// a single commit id.
func (s *Store) countCommits(ctx context.Context, path string, revs []string, p string) (int, error) {
	key := ""
	if len(revs) == 1 && immutableName(revs[0]) {
		key = s.cacheKey(path, "count", revs[0]+"\x00"+p)
		if v, ok := s.cache.get(key); ok {
			return v.(int), nil
		}
		if p == "" {
			total, ok, err := s.countFromCachedAncestor(ctx, path, revs[0])
			if err != nil {
				return 0, err
			}
			if ok {
				s.cache.add(key, total, 8)
				return total, nil
			}
		}
	}
	count := append([]string{"rev-list", "--count"}, revs...)
	if p != "" {
		count = append(count, "--", p)
	}
	out, err := s.output(ctx, path, count...)
	if err != nil {
		return 0, err
	}
	total, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, &Error{Command: "rev-list", Stderr: "bad count " + strconv.Quote(string(out))}
	}
	if key != "" {
		s.cache.add(key, total, 8)
	}
	return total, nil
}

// A page of history filtered by a path is walked the same way, with git's
// default history simplification (what `git log -- <path>` and `git
// rev-list --count -- <path>` do without --full-history): a commit whose
// entry at the path equals that of one of its parents (the first such
// parent, in order) is TREESAME and hidden, and only that parent is
// followed; a commit that differs from all its parents is shown and all of
// them are followed; a root commit is shown if the path exists in it.
// Entries are compared by mode and object id, found by reading trees
// through the object cache. The walk goes to the root to count the
// matching commits; the total is cached per start commit and path, after
// which a page stops at its last commit.

// pathHistory returns commits skip..skip+limit (limit <= 0: all) of the
// history of p (cleaned, not "") reachable from start (a full commit id),
// and how many commits that history has.
func (s *Store) pathHistory(ctx context.Context, path, start, p string, skip, limit int) ([]Commit, int, error) {
	countKey := s.cacheKey(path, "count", start+"\x00"+p)
	total, counted := 0, false
	if v, ok := s.cache.get(countKey); ok {
		total, counted = v.(int), true
	}
	w := pathWalk{s: s, ctx: ctx, repo: path, p: strings.Split(p, "/"), entries: map[string]string{}}
	seen := map[string]bool{start: true}
	q := &walkQueue{}
	seq := 0
	push := func(shas []string) error {
		objs, err := s.catFileBatch(ctx, path, shas)
		if err != nil {
			return err
		}
		for i, o := range objs {
			if o.Type != "commit" {
				return notFoundf("commit %q", shas[i])
			}
			c := parseRawCommit(o.SHA, o.Data)
			heap.Push(q, walkItem{c: c, date: c.Committer.When.Unix(), seq: seq})
			seq++
		}
		return nil
	}
	if err := push([]string{start}); err != nil {
		return nil, 0, err
	}
	var out []Commit
	shown := 0
	for q.Len() > 0 {
		if counted && limit > 0 && len(out) >= limit {
			break
		}
		it := heap.Pop(q).(walkItem)
		follow, show, err := w.simplify(&it.c)
		if err != nil {
			return nil, 0, err
		}
		if show {
			if shown >= skip && (limit <= 0 || len(out) < limit) {
				out = append(out, it.c)
			}
			shown++
		}
		var next []string
		for _, parent := range follow {
			if !seen[parent] {
				seen[parent] = true
				next = append(next, parent)
			}
		}
		if len(next) > 0 {
			if err := push(next); err != nil {
				return nil, 0, err
			}
		}
	}
	if !counted {
		total = shown
		s.cache.add(countKey, total, 8)
	}
	return out, total, nil
}

// pathWalk finds the entry at one path in the commits of a walk, each
// commit's once.
type pathWalk struct {
	s       *Store
	ctx     context.Context
	repo    string
	p       []string          // the path's components
	entries map[string]string // commit id -> "<mode> <id>" at the path, "" if none
}

// simplify decides whether c is shown and which of its parents the walk
// follows (see pathHistory).
func (w *pathWalk) simplify(c *Commit) (follow []string, show bool, err error) {
	mine, err := w.entryOf(c.SHA, c.Tree)
	if err != nil {
		return nil, false, err
	}
	if len(c.Parents) == 0 {
		return nil, mine != "", nil
	}
	for _, parent := range c.Parents {
		theirs, err := w.entryOf(parent, "")
		if err != nil {
			return nil, false, err
		}
		if theirs == mine {
			return []string{parent}, false, nil
		}
	}
	return c.Parents, true, nil
}

// entryOf returns "<mode> <id>" of the path in commit (whose root tree is
// tree, or "" to read it from the commit), "" if the path is not there.
func (w *pathWalk) entryOf(commit, tree string) (string, error) {
	if e, ok := w.entries[commit]; ok {
		return e, nil
	}
	if tree == "" {
		var err error
		if tree, err = w.s.rootTree(w.ctx, w.repo, commit); err != nil {
			return "", err
		}
	}
	e := ""
	id := tree
	for i, name := range w.p {
		objs, err := w.s.catFileBatch(w.ctx, w.repo, []string{id})
		if err != nil {
			return "", err
		}
		if objs[0].Type != "tree" {
			return "", &Error{Command: "cat-file", Stderr: "missing tree " + id}
		}
		mode, sub, ok := findTreeEntry(objs[0].Data, name, len(tree)/2)
		if !ok {
			break
		}
		if i == len(w.p)-1 {
			e = mode + " " + sub
		} else if mode != "40000" {
			break // a file where the path goes on: not there
		}
		id = sub
	}
	w.entries[commit] = e
	return e, nil
}

// maxCountChain bounds how many commits countFromCachedAncestor reads
// before it gives up and lets git count: a push usually adds a few.
const maxCountChain = 256

// countFromCachedAncestor derives the number of commits reachable from
// sha without walking the whole history, when the commits from sha down
// to an ancestor whose count is cached (or down to a root commit) each
// have exactly one parent: such a commit adds exactly itself to its
// parent's count (a commit is never reachable from its own parent), so
// after a push of k commits onto a branch whose page was served the count
// costs k object reads instead of a walk of the history. ok is false when
// a merge, a missing object or maxCountChain commits come first, and in a
// shallow repository (whose cut parents only git knows).
func (s *Store) countFromCachedAncestor(ctx context.Context, path, sha string) (total int, ok bool, err error) {
	if isShallow(path) {
		return 0, false, nil
	}
	for steps := 1; steps <= maxCountChain; steps++ {
		objs, err := s.catFileBatch(ctx, path, []string{sha})
		if err != nil {
			return 0, false, err
		}
		if objs[0].Type != "commit" {
			return 0, false, nil
		}
		parents := parseRawCommit(sha, objs[0].Data).Parents
		switch len(parents) {
		case 0:
			return steps, true, nil
		case 1:
			sha = parents[0]
		default:
			return 0, false, nil
		}
		if v, ok := s.cache.get(s.cacheKey(path, "count", sha+"\x00")); ok {
			return v.(int) + steps, true, nil
		}
	}
	return 0, false, nil
}
