package git

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// maxChangeAttempts bounds how often ChangeFiles rebuilds its commit when
// the branch moves underneath it. Within one process, callers serialize
// writes per branch (LockRef), so this only absorbs writers in other
// processes and pushes.
const maxChangeAttempts = 20

// refMovedError: a compare-and-swap ref update lost, because the ref moved
// (or was locked by another update) between reading and updating it. It
// matches ErrConflict for callers that do not retry.
type refMovedError struct{ ref string }

func (e *refMovedError) Error() string {
	return fmt.Sprintf("ref %q moved concurrently: %v", e.ref, ErrConflict)
}

func (e *refMovedError) Is(target error) bool { return target == ErrConflict }

// As lets errs.As (and so the translator) see the error's kind with its
// own text.
func (e *refMovedError) As(target any) bool { return asKind(target, ErrConflict, e) }

// isRefMoved reports whether err is a lost compare-and-swap.
func isRefMoved(err error) bool {
	var m *refMovedError
	return errors.As(err, &m)
}

// ChangeFiles applies opts.Files on top of the branch head as one commit
// and returns the new commit sha. If the branch moves while the commit is
// being made, the commit is rebuilt on the new head and the swap retried
// (up to maxChangeAttempts times), unless opts.OldCommitSHA pins the head:
// changes that do not overlap all land, and only a real conflict is
// refused: a file's SHA no longer matching, a file to create existing. The
// checks run against the head each attempt builds on. Errors:
//   - ErrNotFound: the branch does not exist (in a non-empty repository),
//     or a file to update or delete does not exist;
//   - ErrAlreadyExists: a file to create (or rename to) exists, or
//     NewBranch exists;
//   - ErrConflict: a SHA or OldCommitSHA does not match, or the branch
//     kept moving for every attempt;
//   - ErrInvalid: bad paths (longer than MaxPathBytes, deeper than
//     MaxPathDepth, a name longer than MaxComponentBytes, ".", "..", or a
//     name git treats as .git) or signatures, a path used twice, a
//     directory where a file is expected or a file where a directory is
//     needed. Nothing is committed unless the new tree holds exactly the
//     requested changes.
func (s *Store) ChangeFiles(ctx context.Context, path string, opts ChangeFilesOptions) (string, error) {
	for attempt := 1; ; attempt++ {
		sha, err := s.changeFilesOnce(ctx, path, opts)
		if err == nil || !isRefMoved(err) || opts.OldCommitSHA != "" || attempt == maxChangeAttempts {
			return sha, err
		}
		// Back off a little, with jitter, so writers that collided do not
		// collide again in lockstep.
		d := time.Duration(attempt) * time.Duration(1+rand.IntN(5)) * time.Millisecond
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(d):
		}
	}
}

// FileExistsError: a file to create already exists on the branch. It
// matches ErrAlreadyExists; the text is Gitea's.
type FileExistsError struct{ Path string }

func (e *FileExistsError) Error() string {
	return fmt.Sprintf("repository file already exists [path: %s]", e.Path)
}

func (e *FileExistsError) Is(target error) bool { return target == ErrAlreadyExists }

// As lets errs.As see ErrAlreadyExists with Gitea's text.
func (e *FileExistsError) As(target any) bool { return asKind(target, ErrAlreadyExists, e) }

// SHAMismatchError: the blob sha a caller gave for a file is not the
// file's current one. It matches ErrConflict; the text is Gitea's.
type SHAMismatchError struct{ Path, Given, Current string }

func (e *SHAMismatchError) Error() string {
	return fmt.Sprintf("sha does not match [given: %s, expected: %s]", e.Given, e.Current)
}

func (e *SHAMismatchError) Is(target error) bool { return target == ErrConflict }

// As lets errs.As see ErrConflict with Gitea's text.
func (e *SHAMismatchError) As(target any) bool { return asKind(target, ErrConflict, e) }
