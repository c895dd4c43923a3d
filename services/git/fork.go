package git

import (
	"context"
	"os"
)

// ForkStaged copies the repository at parent into forge's scratch space
// (see InitStaged) as a new bare repository with the parent's branches,
// tags and HEAD, and no remote: the caller Places or Discards the
// returned path. It is git's local clone, which makes the new
// repository's object files hard links to the parent's (the scratch
// space is on the repositories' file system), so a fork of a large
// repository costs one link per object file and no space. Hard links
// rather than an alternates file: the fork owns its objects outright, so
// the parent's gc, rename or delete never breaks it and needs no step
// of its own. Returns ErrNotFound if parent holds no repository.
func (s *Store) ForkStaged(ctx context.Context, parent string) (string, error) {
	if err := s.inRoot(parent); err != nil {
		return "", err
	}
	if err := s.checkRepo(parent); err != nil {
		return "", err
	}
	dir, err := s.mkStaged()
	if err != nil {
		return "", err
	}
	err = s.run(ctx, invocation{args: []string{
		"clone", "--bare", "--local", "--quiet", "--template=", "--", absPath(parent), dir,
	}})
	if err == nil {
		// The clone names the parent's path as its origin; a fork has no
		// remote (and must not reveal where repositories live).
		err = s.run(ctx, invocation{gitDir: dir, args: []string{"remote", "remove", "origin"}})
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
