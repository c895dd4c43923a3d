package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// internalDir is forge's own state under Root (hooks, HOME, scratch files).
// '@' cannot occur in a valid owner name, so it never collides with a repo.
const internalDir = "@forge"

// pushLogEnv names the file the post-receive hook copies its stdin to.
const pushLogEnv = "FORGE_PUSH_LOG"

// postReceiveHook records the ref updates of a push for ReceivePack. It is
// installed in a forge-owned hooks directory passed to receive-pack with
// -c core.hooksPath, so hooks inside repositories never run.
const postReceiveHook = `#!/bin/sh
# Installed by forge: records the refs a push updated ("old new ref" lines).
test -n "$` + pushLogEnv + `" || exit 0
exec cat >"$` + pushLogEnv + `"
`

// preReceiveHook refuses pushed branch and tag names longer than
// MaxRefNameBytes: git accepts them, but the branch and release records
// cannot hold them, and a ref that can never be recorded would keep the
// records out of step with git. ${#n} is POSIX and, under LC_ALL=C,
// counts bytes; nothing is spawned.
const preReceiveHook = `#!/bin/sh
# Installed by forge: refuses ref names forge cannot record.
# Bytes, not characters, whatever the server's locale.
LC_ALL=C
export LC_ALL
status=0
` + preReceiveOpen + `while read -r old new ref; do
` + preReceiveLine + `	case "$ref" in
	refs/heads/*|refs/tags/*)
		n=${ref#refs/*/}
		if [ ${#n} -gt ` + maxRefNameBytesText + ` ]; then
			echo "forge: ref name longer than ` + maxRefNameBytesText + ` bytes refused: $ref" | cut -c1-200 >&2
			status=1
		fi
		# git allows any byte beyond ASCII; a record holds only text.
		# Only such names pay for the check (iconv is in Debian's
		# essential libc-bin).
		case "$n" in
		*[!\ -~]*)
			if ! printf '%s' "$n" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
				echo "forge: ref name that is not UTF-8 refused" >&2
				status=1
			fi
			;;
		esac
		;;
	esac
done
` + preReceiveProtocol + `exit $status
`

// MaxRefNameBytes is the longest branch or tag name (after refs/heads/ or
// refs/tags/) forge accepts, from the API (ValidRefName) or a push.
const MaxRefNameBytes = 255

const maxRefNameBytesText = "255"

// Store manages the bare repositories under Root.
//
// A Store must not be copied after first use. The zero value with Root set
// is usable; New additionally reports setup problems early.
type Store struct {
	// Root is the directory holding <owner>/<name>.git repositories.
	Root string

	once     sync.Once
	setupErr error
	root     string // absolute Root
	hooksDir string
	// noHooksDir is an empty hooks directory, for git commands that move
	// no ref (see Housekeep).
	noHooksDir string
	homeDir    string
	tmpDir     string
	slots      chan struct{} // running git processes; nil: no cap (see LimitProcesses)

	refLocks refLocks // see LockRef
	// readers are the pooled cat-file processes (catfile.go); processes
	// counts every git process started; cache holds immutable objects and
	// results keyed by object id (cache.go).
	readers    readerPool
	processes  atomic.Int64
	packedRefs packedCache  // parsed packed-refs files (refsfile.go)
	cache      lruCache     // results keyed by object ids (cache.go)
	repoEpoch  atomic.Int64 // bumped by Delete and Rename (cache.go)
	repoIDs    repoIdentities
	// journalDir holds the ref journal (journal.go); realRoot is root with
	// symlinks resolved, as the journal hook records repository paths.
	journalDir string
	realRoot   string
	housekeep  housekeeping  // background Housekeep after pushes (housekeep.go)
	archives   *archiveCache // produced archives (archivecache.go); nil: not cached
	refWatch   refWatch      // journal events, for replayed answers (refwatch_linux.go)
	// reportMoves, when set, is told of each git command that prepared a
	// ref transaction (refreport.go); movedPrefix and movedSeq name the
	// commands' marker files.
	reportMoves func(ctx context.Context)
	movedPrefix string
	movedSeq    atomic.Uint64
}

// New returns a Store rooted at root, creating root and forge's internal
// directories (hooks, HOME for git, scratch space) if needed.
func New(root string) (*Store, error) {
	s := &Store{Root: root}
	if err := s.setup(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) setup() error {
	s.once.Do(func() { s.setupErr = s.doSetup() })
	return s.setupErr
}

func (s *Store) doSetup() error {
	if s.Root == "" {
		return invalidf("git store: empty root")
	}
	root, err := filepath.Abs(s.Root)
	if err != nil {
		return fmt.Errorf("git store: %w", err)
	}
	s.root = root
	s.hooksDir = filepath.Join(root, internalDir, "hooks")
	s.noHooksDir = filepath.Join(root, internalDir, "no-hooks")
	s.homeDir = filepath.Join(root, internalDir, "home")
	s.tmpDir = filepath.Join(root, internalDir, "tmp")
	s.journalDir = filepath.Join(root, internalDir, "journal")
	for _, d := range []string{s.hooksDir, s.noHooksDir, s.homeDir, s.tmpDir, s.journalDir} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return fmt.Errorf("git store: %w", err)
		}
	}
	if s.realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return fmt.Errorf("git store: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(s.hooksDir, "reference-transaction"), []byte(referenceTransactionHook), 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(s.hooksDir, "pre-receive"), []byte(preReceiveHook), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.hooksDir, "post-receive"), []byte(postReceiveHook), 0o755)
}

// writeFileAtomic writes data to name unless it already has exactly that
// content and mode, replacing it atomically so a concurrent git never runs
// a half-written hook.
func writeFileAtomic(name string, data []byte, mode fs.FileMode) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		if st, err := os.Stat(name); err == nil && st.Mode().Perm() == mode {
			return nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// ValidName reports whether name may be used as an owner or repository
// name on disk: ASCII letters, digits, '-', '_' and '.', at most 255 bytes,
// not "." or "..", not ending in ".git" (any case).
func ValidName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return false
	}
	if strings.HasSuffix(strings.ToLower(name), ".git") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// RepoPath returns the on-disk path of owner/name: <Root>/<owner>/<name>.git,
// lower-cased. It returns ErrInvalid if either name fails ValidName.
func (s *Store) RepoPath(owner, name string) (string, error) {
	if !ValidName(owner) {
		return "", invalidf("owner name %q", owner)
	}
	if !ValidName(name) {
		return "", invalidf("repository name %q", name)
	}
	return filepath.Join(s.Root, strings.ToLower(owner), strings.ToLower(name)+".git"), nil
}

// Exists reports whether path holds a git repository.
func (s *Store) Exists(path string) bool {
	st, err := os.Stat(filepath.Join(path, "objects"))
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(path, "HEAD"))
	return err == nil
}

// checkRepo returns ErrNotFound unless path holds a repository.
func (s *Store) checkRepo(path string) error {
	if !s.Exists(path) {
		return notFoundf("repository %s", filepath.Base(path))
	}
	return nil
}

// Init creates an empty bare repository at path whose HEAD points at
// refs/heads/<defaultBranch>. It returns ErrAlreadyExists if path exists and
// ErrInvalid for a bad branch name.
func (s *Store) Init(ctx context.Context, path, defaultBranch string) error {
	if err := s.setup(); err != nil {
		return err
	}
	if !ValidRefName(defaultBranch) {
		return invalidf("branch name %q", defaultBranch)
	}
	if err := s.inRoot(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	// Mkdir is the atomic "create if absent"; git init fills the empty dir.
	if err := os.Mkdir(path, 0o750); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existsf("repository %s", filepath.Base(path))
		}
		return err
	}
	err := s.run(ctx, invocation{args: []string{
		"init", "--bare", "--quiet", "--template=", "--initial-branch=" + defaultBranch, "--", absPath(path),
	}})
	if err != nil {
		os.RemoveAll(path)
		return err
	}
	return nil
}

// Delete removes whatever is at path: a repository, or the debris of one
// whose create or delete was interrupted (a directory that is not a
// repository). It returns ErrNotFound if nothing is there and ErrInvalid if
// path lies outside Root. Path disappears with one rename before the
// files are removed, so a crash never leaves half a repository behind.
func (s *Store) Delete(path string) error {
	if err := s.inRoot(path); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return notFoundf("repository %s", filepath.Base(path))
		}
		return err
	}
	s.forgetReaders(path)
	s.repoEpoch.Add(1)
	if s.archives != nil {
		s.archives.forget(path)
	}
	return s.discard(path)
}

// Rename moves the repository at oldPath to newPath (e.g. after a rename or
// an ownership transfer). It returns ErrNotFound if oldPath holds no
// repository and ErrAlreadyExists if newPath exists.
func (s *Store) Rename(oldPath, newPath string) error {
	if err := s.inRoot(oldPath); err != nil {
		return err
	}
	if err := s.inRoot(newPath); err != nil {
		return err
	}
	if err := s.checkRepo(oldPath); err != nil {
		return err
	}
	if _, err := os.Lstat(newPath); err == nil {
		return existsf("repository %s", filepath.Base(newPath))
	}
	if err := os.MkdirAll(filepath.Dir(newPath), 0o750); err != nil {
		return err
	}
	s.forgetReaders(oldPath)
	s.repoEpoch.Add(1)
	if s.archives != nil {
		s.archives.forget(oldPath)
	}
	return os.Rename(oldPath, newPath)
}

// inRoot rejects paths outside Root (or Root itself, or forge's own dir).
func (s *Store) inRoot(path string) error {
	if err := s.setup(); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return invalidf("repository path")
	}
	rel, err := filepath.Rel(s.root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) ||
		rel == internalDir || strings.HasPrefix(rel, internalDir+string(filepath.Separator)) {
		return invalidf("repository path %q outside the store", path)
	}
	return nil
}

// IsEmpty reports whether the repository has no refs at all (a new
// repository before its first push or auto-init commit).
func (s *Store) IsEmpty(ctx context.Context, path string) (bool, error) {
	if err := s.checkRepo(path); err != nil {
		return false, err
	}
	out, err := s.output(ctx, path, "for-each-ref", "--count=1", "--format=%(refname)")
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}

// Housekeep runs `git gc --auto` in the foreground and packs loose refs.
// ReceivePack disables git's automatic gc (which would detach into the
// background); the push path calls HousekeepLater instead. Packed refs
// keep git's per-push connectivity check cheap in repositories with many
// branches.
//
// Both run without forge's hooks: packing moves no ref, yet git runs the
// reference-transaction hook twice for every loose ref it prunes (a shell
// and a cat or mv each time), which made packing the 10,000 branches of
// one push take most of a minute of CPU and filled the ref journal with
// entries the reconciler then had to read.
func (s *Store) Housekeep(ctx context.Context, path string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	noHooks := "core.hooksPath=" + s.noHooksDir
	err := s.run(ctx, invocation{gitDir: path, config: []string{noHooks, "gc.autoDetach=false"}, args: []string{"gc", "--auto", "--quiet"}})
	if err != nil {
		return err
	}
	return s.run(ctx, invocation{gitDir: path, config: []string{noHooks}, args: []string{"pack-refs", "--all", "--prune"}})
}
