package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// Pull requests. A pull request's head commit is kept in the base
// repository under refs/pull/<index>/head, so the base repository alone
// answers everything about it (merge base, conflicts, diff), whether the
// head branch lives in the same repository or in a fork.

// PullHeadRef is the ref that keeps pull request index's head commit.
func PullHeadRef(index int64) string { return "refs/pull/" + strconv.FormatInt(index, 10) + "/head" }

// FetchCommit copies the objects of commit sha (and its history) from the
// repository at src into the one at dst, writing no ref (the caller
// writes the ref that keeps it). Nothing is fetched when dst has the
// commit already (a fork shares its parent's objects). ErrNotFound when
// src lacks the commit.
func (s *Store) FetchCommit(ctx context.Context, dst, src, sha string) error {
	if err := s.checkRepo(dst); err != nil {
		return err
	}
	if err := s.inRoot(src); err != nil {
		return err
	}
	if s.HasCommit(ctx, dst, sha) {
		return nil
	}
	err := s.run(ctx, invocation{
		gitDir: dst,
		// A local fetch runs upload-pack in a child process, which
		// inherits -c settings: it may then hand over any commit by id.
		config: []string{"uploadpack.allowAnySHA1InWant=true"},
		args:   []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", absPath(src), sha},
	})
	if stderrContains(err, "not our ref", "no such remote ref", "unadvertised object") {
		return notFoundf("commit %s", sha)
	}
	return err
}

// HasCommit reports whether the repository at path holds commit sha.
func (s *Store) HasCommit(ctx context.Context, path, sha string) bool {
	if !validSHA(sha) {
		return false
	}
	objs, err := s.catFileBatch(ctx, path, []string{sha})
	return err == nil && len(objs) == 1 && objs[0].Type == "commit"
}

func validSHA(sha string) bool {
	if len(sha) != 40 && len(sha) != 64 {
		return false
	}
	for _, c := range sha {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// MergeBase returns the best common ancestor of commits a and b;
// ErrInvalid when they have none (unrelated histories).
func (s *Store) MergeBase(ctx context.Context, path, a, b string) (string, error) {
	key := s.cacheKey(path, "merge-base", a+".."+b)
	if v, ok := s.cache.get(key); ok {
		return v.(string), nil
	}
	out, err := s.output(ctx, path, "merge-base", "--end-of-options", a, b)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && len(bytes.TrimSpace(out)) == 0 {
		return "", invalidf("no merge base between %s and %s", a, b)
	}
	if err != nil {
		return "", err
	}
	base := strings.TrimSpace(string(out))
	s.cache.add(key, base, int64(len(base)))
	return base, nil
}

// Mergeable reports whether head merges into base without conflicts
// (git merge-tree --write-tree: the merge is computed in the object
// database, no work tree; the tree it writes stays unreferenced).
func (s *Store) Mergeable(ctx context.Context, path, base, head string) (bool, error) {
	key := s.cacheKey(path, "mergeable", base+".."+head)
	if v, ok := s.cache.get(key); ok {
		return v.(bool), nil
	}
	_, err := s.output(ctx, path, "merge-tree", "--write-tree", "--name-only", "--no-messages", "--end-of-options", base, head)
	var ee *exec.ExitError
	clean := err == nil
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // conflicts
	}
	if err != nil {
		return false, err
	}
	s.cache.add(key, clean, 1)
	return clean, nil
}

// DiffStat is the size of a diff: lines added and deleted, files changed.
type DiffStat struct {
	Additions, Deletions, ChangedFiles int
}

// DiffStatBetween counts the changes from commit from to commit to (git
// diff --numstat with git's default rename detection; binary files count
// as changed files without lines). The result is cached per commit pair.
func (s *Store) DiffStatBetween(ctx context.Context, path, from, to string) (DiffStat, error) {
	key := s.cacheKey(path, "diffstat", from+".."+to)
	if v, ok := s.cache.get(key); ok {
		return v.(DiffStat), nil
	}
	out, err := s.output(ctx, path, "diff", "--numstat", "--end-of-options", from, to, "--")
	if err != nil {
		return DiffStat{}, err
	}
	var st DiffStat
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), "\t", 3)
		if len(fields) < 3 {
			continue
		}
		st.ChangedFiles++
		add, _ := strconv.Atoi(fields[0]) // "-" for binary files: 0
		del, _ := strconv.Atoi(fields[1])
		st.Additions += add
		st.Deletions += del
	}
	if err := sc.Err(); err != nil {
		return DiffStat{}, err
	}
	s.cache.add(key, st, 24)
	return st, nil
}

// SetPullHead points refs/pull/<index>/head at sha, whatever it held:
// the caller owns the index (a stale ref left by a creation that never
// committed is overwritten).
func (s *Store) SetPullHead(ctx context.Context, path string, index int64, sha string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	return s.run(ctx, invocation{gitDir: path, args: []string{"update-ref", PullHeadRef(index), sha}})
}

// DropPullHead removes refs/pull/<index>/head if it still points at sha
// (undoing SetPullHead when the pull request could not be stored).
func (s *Store) DropPullHead(ctx context.Context, path string, index int64, sha string) error {
	return s.run(ctx, invocation{gitDir: path, args: []string{"update-ref", "-d", PullHeadRef(index), sha}})
}
