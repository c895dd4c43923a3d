package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CommitTreeOf makes, in the staged repository staged (InitStaged), one
// commit without parent on branch whose tree is the tree of branch
// srcBranch of the repository src, and returns it: a repository generated
// from a template starts with the template's files and none of its
// history. The objects of that tree are copied into staged (packed), so
// staged does not depend on src afterwards. Returns ErrNotFound when src
// or its branch do not exist.
func (s *Store) CommitTreeOf(ctx context.Context, staged, src, srcBranch, branch string, author Signature, message string) (string, error) {
	if err := s.inRoot(src); err != nil {
		return "", err
	}
	if err := s.checkRepo(src); err != nil {
		return "", err
	}
	if !ValidRefName(branch) || !ValidRefName(srcBranch) {
		return "", invalidf("branch name %q", branch)
	}
	author, err := checkSignature(author, "author")
	if err != nil {
		return "", err
	}
	out, err := s.output(ctx, src, "rev-parse", "--verify", "--quiet", "--end-of-options", "refs/heads/"+srcBranch+"^{tree}")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return "", notFoundf("branch %s", srcBranch)
		}
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	// Borrow src's objects while the commit is made, then pack what the
	// new branch reaches into staged and stop borrowing (as git clone
	// --dissociate does).
	alternates := filepath.Join(staged, "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alternates), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(alternates, []byte(absPath(filepath.Join(src, "objects"))+"\n"), 0o644); err != nil {
		return "", err
	}
	defer os.Remove(alternates)
	sha, err := s.commitTree(ctx, staged, tree, "", author, author, normalizeMessage(message))
	if err != nil {
		return "", err
	}
	if err := s.casRef(ctx, staged, "refs/heads/"+branch, sha, ""); err != nil {
		return "", err
	}
	if err := s.run(ctx, invocation{gitDir: staged, args: []string{"repack", "-a", "-d", "-q"}}); err != nil {
		return "", err
	}
	if err := os.Remove(alternates); err != nil {
		return "", err
	}
	return sha, nil
}
