package git

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"forge/services/failpoint"
)

// Scratch names under forge's tmp directory. Everything there belongs to
// one operation in progress and is debris once it is older than any
// operation may take (see Sweep).
const (
	stagePrefix = "create-" // a repository being built (InitStaged, CloneStaged)
	trashPrefix = "trash-"  // a repository being deleted by Delete
)

// InitStaged creates an empty bare repository in forge's scratch space,
// where nothing serves it, and returns its path. The caller fills it
// (InitialCommit) and then either Places it or Discards it. A crash leaves
// only a scratch directory, which Sweep removes.
func (s *Store) InitStaged(ctx context.Context, defaultBranch string) (string, error) {
	if err := s.setup(); err != nil {
		return "", err
	}
	if !ValidRefName(defaultBranch) {
		return "", invalidf("branch name %q", defaultBranch)
	}
	dir, err := s.mkStaged()
	if err != nil {
		return "", err
	}
	err = s.run(ctx, invocation{args: []string{
		"init", "--bare", "--quiet", "--template=", "--initial-branch=" + defaultBranch, "--", dir,
	}})
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// mkStaged creates an empty directory for a staged repository.
func (s *Store) mkStaged() (string, error) {
	if err := s.setup(); err != nil {
		return "", err
	}
	return os.MkdirTemp(s.tmpDir, stagePrefix)
}

// Place moves the staged repository to path with one rename, so path
// holds either nothing or a complete repository. The caller holds the name
// (it is inserting the repository's record in a transaction that has not
// committed), so whatever is already at path belongs to no record: left
// by an interrupted create, delete or rename, it would otherwise block the
// name for ever. It is cleared first: a directory that is not a
// repository is removed; a repository is kept aside under @forge/lost
// (it might be the files of a repository whose rename was interrupted),
// never deleted.
func (s *Store) Place(staged, path string) error {
	if err := s.inRoot(path); err != nil {
		return err
	}
	if err := s.isStaged(staged); err != nil {
		return err
	}
	if err := s.clear(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	failpoint.Hit("repo-create-before-place")
	return os.Rename(staged, path)
}

// clear empties path for a new repository (see Place).
func (s *Store) clear(path string) error {
	if _, err := os.Lstat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if !s.Exists(path) {
		slog.Warn("removing leftovers of an interrupted repository create or delete", "path", path)
		return s.discard(path)
	}
	lost := filepath.Join(s.root, internalDir, "lost")
	if err := os.MkdirAll(lost, 0o750); err != nil {
		return err
	}
	rel, _ := filepath.Rel(s.root, path)
	aside, err := os.MkdirTemp(lost, strings.ReplaceAll(rel, string(filepath.Separator), "_")+"-")
	if err != nil {
		return err
	}
	slog.Warn("moving aside a repository that belongs to no record", "path", path, "to", aside)
	return os.Rename(path, filepath.Join(aside, filepath.Base(path)))
}

// Discard removes a staged repository that will not be placed.
func (s *Store) Discard(staged string) error {
	if err := s.isStaged(staged); err != nil {
		return err
	}
	return os.RemoveAll(staged)
}

// isStaged rejects paths that InitStaged did not return.
func (s *Store) isStaged(staged string) error {
	if err := s.setup(); err != nil {
		return err
	}
	abs, err := filepath.Abs(staged)
	if err != nil || filepath.Dir(abs) != s.tmpDir || !strings.HasPrefix(filepath.Base(abs), stagePrefix) {
		return invalidf("%q is not a staged repository", staged)
	}
	return nil
}

// discard makes path disappear at once by renaming it into the scratch
// space, then removes it there; a crash during the (possibly long) removal
// leaves only scratch debris, never a half-deleted repository at path.
func (s *Store) discard(path string) error {
	trash, err := os.MkdirTemp(s.tmpDir, trashPrefix)
	if err != nil {
		return err
	}
	moved := filepath.Join(trash, "repo")
	if err := os.Rename(path, moved); err != nil {
		os.Remove(trash)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return os.RemoveAll(path)
	}
	return os.RemoveAll(trash)
}

// DefaultScratchAge is how old scratch files must be before Sweep removes
// them: far longer than any push, API write or repository create runs.
const DefaultScratchAge = time.Hour

// Sweep removes debris of operations that were killed: forge's scratch
// files (temporary indexes, push logs, staged creates, trash) and git's
// push quarantine directories (objects/tmp_objdir-incoming-*) in every
// repository, when they are older than maxAge. Younger ones may belong to
// an operation still running (in this or another process) and are kept.
// It returns how many entries it removed.
func (s *Store) Sweep(ctx context.Context, maxAge time.Duration) (int, error) {
	if err := s.setup(); err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-maxAge)
	n, err := removeOlder(s.tmpDir, "", cutoff)
	owners, rerr := os.ReadDir(s.root)
	if rerr != nil {
		return n, errors.Join(err, rerr)
	}
	for _, o := range owners {
		if !o.IsDir() || o.Name() == internalDir {
			continue
		}
		repos, rerr := os.ReadDir(filepath.Join(s.root, o.Name()))
		if rerr != nil {
			err = errors.Join(err, rerr)
			continue
		}
		for _, r := range repos {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			if !r.IsDir() || !strings.HasSuffix(r.Name(), ".git") {
				continue
			}
			objects := filepath.Join(s.root, o.Name(), r.Name(), "objects")
			m, rerr := removeOlder(objects, "tmp_objdir-incoming-", cutoff)
			n += m
			if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}
	return n, err
}

// removeOlder removes the entries of dir named prefix* in which nothing
// was modified since cutoff (a directory counts as modified when anything
// inside it is, so a long-running push still writing is kept).
func removeOlder(dir, prefix string, cutoff time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if touchedSince(p, cutoff) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = errors.Join(errs, err)
			continue
		}
		n++
	}
	return n, errs
}

// touchedSince reports whether p, or anything under it, was modified at or
// after cutoff. Errors count as touched: when in doubt, keep.
func touchedSince(p string, cutoff time.Time) bool {
	touched := false
	err := filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.ModTime().Before(cutoff) {
			touched = true
			return filepath.SkipAll
		}
		return nil
	})
	return touched || err != nil
}
