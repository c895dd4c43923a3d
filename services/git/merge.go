package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Merging pull requests. Every style is computed in the object database
// alone (git merge-tree --write-tree, git commit-tree): no work tree, no
// index, nothing a crash leaves behind but unreferenced objects. The
// result is a commit that the caller then swaps onto the base branch with
// MoveBranch.

// MergeStyle is how a pull request's head lands on its base (Gitea's
// names).
type MergeStyle string

const (
	// MergeStyleMerge: a merge commit with the base and the head as
	// parents.
	MergeStyleMerge MergeStyle = "merge"
	// MergeStyleSquash: one commit on the base with the merged tree.
	MergeStyleSquash MergeStyle = "squash"
	// MergeStyleFastForwardOnly: the base moves to the head, which must
	// contain it.
	MergeStyleFastForwardOnly MergeStyle = "fast-forward-only"
	// MergeStyleRebase: the head's commits replayed on the base, which
	// then moves to the last of them.
	MergeStyleRebase MergeStyle = "rebase"
	// MergeStyleRebaseMerge: the head's commits replayed on the base, then
	// a merge commit of the base and the replayed tip.
	MergeStyleRebaseMerge MergeStyle = "rebase-merge"
)

// MergeOptions describes one merge to compute.
type MergeOptions struct {
	Style MergeStyle
	// Base and Head are the commits merged: the base branch's tip and the
	// pull request's head.
	Base, Head string
	// Author writes the merge or squash commit; replayed commits keep
	// their own authors.
	Author Signature
	// Committer commits everything the merge writes.
	Committer Signature
	// Message is the merge or squash commit's message (unused by rebase
	// and fast-forward-only).
	Message string
}

// MergeConflictError: the head does not merge into the base cleanly
// (Rebase: while replaying Commit). It matches ErrConflict.
type MergeConflictError struct {
	Rebase bool
	Commit string
	Files  []string
}

func (e *MergeConflictError) Error() string {
	if e.Rebase {
		return "rebase failed because of conflict"
	}
	return "merge failed because of conflict"
}

func (e *MergeConflictError) Is(target error) bool { return target == ErrConflict }

// As lets errs.As see ErrConflict with the error's text.
func (e *MergeConflictError) As(target any) bool { return asKind(target, ErrConflict, e) }

// ErrNotFastForward: fast-forward-only was asked and the base has commits
// the head lacks. It matches ErrConflict.
var ErrNotFastForward = &notFastForwardError{}

type notFastForwardError struct{}

func (*notFastForwardError) Error() string {
	return "merge failed because the base branch has diverged: fast-forward only is not possible"
}
func (*notFastForwardError) Is(target error) bool { return target == ErrConflict }
func (e *notFastForwardError) As(target any) bool { return asKind(target, ErrConflict, e) }

// BuildMerge writes the commits that land o.Head on o.Base in o.Style
// and returns the commit the base branch should move to. No ref moves.
// Errors: a *MergeConflictError, ErrNotFastForward, ErrInvalid for an
// unknown style or bad signatures.
func (s *Store) BuildMerge(ctx context.Context, path string, o MergeOptions) (string, error) {
	if err := s.checkRepo(path); err != nil {
		return "", err
	}
	if !validSHA(o.Base) || !validSHA(o.Head) {
		return "", invalidf("merge needs full commit ids")
	}
	committer, err := checkSignature(o.Committer, "committer")
	if err != nil {
		return "", err
	}
	author := o.Author
	if author.Name == "" && author.Email == "" {
		author = committer
	}
	if author, err = checkSignature(author, "author"); err != nil {
		return "", err
	}
	msg := normalizeMessage(o.Message)
	switch o.Style {
	case MergeStyleMerge:
		tree, err := s.mergeTrees(ctx, path, o.Base, o.Head, false)
		if err != nil {
			return "", err
		}
		return s.writeCommit(ctx, path, tree, []string{o.Base, o.Head}, author, committer, msg)
	case MergeStyleSquash:
		tree, err := s.mergeTrees(ctx, path, o.Base, o.Head, false)
		if err != nil {
			return "", err
		}
		return s.writeCommit(ctx, path, tree, []string{o.Base}, author, committer, msg)
	case MergeStyleFastForwardOnly:
		ok, err := s.IsAncestor(ctx, path, o.Base, o.Head)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", ErrNotFastForward
		}
		return o.Head, nil
	case MergeStyleRebase:
		return s.rebase(ctx, path, o.Base, o.Head, committer)
	case MergeStyleRebaseMerge:
		tip, err := s.rebase(ctx, path, o.Base, o.Head, committer)
		if err != nil {
			return "", err
		}
		c, err := s.GetCommit(ctx, path, tip)
		if err != nil {
			return "", err
		}
		return s.writeCommit(ctx, path, c.Tree, []string{o.Base, tip}, author, committer, msg)
	}
	return "", invalidf("merge style %q", o.Style)
}

// IsAncestor reports whether commit a is reachable from commit b.
func (s *Store) IsAncestor(ctx context.Context, path, a, b string) (bool, error) {
	err := s.run(ctx, invocation{gitDir: path, args: []string{"merge-base", "--is-ancestor", "--end-of-options", a, b}})
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}

// mergeTrees merges commits ours and theirs (from their best common
// ancestor) into a tree; conflicts are a *MergeConflictError.
func (s *Store) mergeTrees(ctx context.Context, path, ours, theirs string, rebase bool) (string, error) {
	out, err := s.output(ctx, path, "merge-tree", "--write-tree", "--name-only", "--no-messages", "--end-of-options", ours, theirs)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		conflict := &MergeConflictError{Rebase: rebase, Commit: theirs}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for first := true; sc.Scan(); first = false {
			if !first && sc.Text() != "" {
				conflict.Files = append(conflict.Files, sc.Text())
			}
		}
		return "", conflict
	}
	if stderrContains(err, "unrelated histories") {
		return "", &MergeConflictError{Rebase: rebase, Commit: theirs}
	}
	if err != nil {
		return "", err
	}
	tree, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(tree), nil
}

// rebase replays the commits of head that onto lacks (merges left out, as
// git rebase does) on onto, oldest first, each keeping its author and
// message and taking committer, and returns the last one. Commits that
// change nothing any more are dropped. When head already contains onto
// nothing is rewritten: the result is head.
//
// Each commit c (parent p) is applied as a cherry-pick: a three-way merge
// of p, onto's tree and c's tree. git 2.39's merge-tree takes no explicit
// merge base, so the merge runs between c and a scratch commit holding
// onto's tree with p as its parent, whose best common ancestor with c is p.
func (s *Store) rebase(ctx context.Context, path, onto, head string, committer Signature) (string, error) {
	contained, err := s.IsAncestor(ctx, path, onto, head)
	if err != nil || contained {
		return head, err
	}
	out, err := s.output(ctx, path, "rev-list", "--reverse", "--topo-order", "--no-merges", "--end-of-options", head, "^"+onto)
	if err != nil {
		return "", err
	}
	cur := onto
	curCommit, err := s.GetCommit(ctx, path, onto)
	if err != nil {
		return "", err
	}
	curTree := curCommit.Tree
	for _, sha := range strings.Fields(string(out)) {
		c, err := s.GetCommit(ctx, path, sha)
		if err != nil {
			return "", err
		}
		if len(c.Parents) != 1 {
			return "", &MergeConflictError{Rebase: true, Commit: sha}
		}
		scratch, err := s.writeCommit(ctx, path, curTree, c.Parents, committer, committer, "rebase scratch\n")
		if err != nil {
			return "", err
		}
		tree, err := s.mergeTrees(ctx, path, scratch, sha, true)
		if err != nil {
			return "", err
		}
		if tree == curTree {
			continue // already in onto
		}
		author := c.Author
		if cur, err = s.writeCommit(ctx, path, tree, []string{cur}, author, committer, normalizeMessage(c.Message)); err != nil {
			return "", err
		}
		curTree = tree
	}
	return cur, nil
}

// writeCommit writes a commit object with the given parents.
func (s *Store) writeCommit(ctx context.Context, path, tree string, parents []string, author, committer Signature, msg string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	env := append(identEnv("AUTHOR", author), identEnv("COMMITTER", committer)...)
	out, err := s.outputIn(ctx, path, strings.NewReader(msg), env, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitAuthors lists the distinct authors of the commits of head that
// base lacks, oldest first (a squash commit's Co-authored-by trailers).
func (s *Store) CommitAuthors(ctx context.Context, path, base, head string) ([]Signature, error) {
	out, err := s.output(ctx, path, "log", "--reverse", "--format=%an%x00%ae", "--end-of-options", head, "^"+base, "--")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var authors []Signature
	for _, line := range strings.Split(string(out), "\n") {
		name, email, ok := strings.Cut(line, "\x00")
		if !ok || seen[strings.ToLower(email)] {
			continue
		}
		seen[strings.ToLower(email)] = true
		authors = append(authors, Signature{Name: name, Email: email})
	}
	return authors, nil
}

// MoveBranch moves branch name from commit old to commit new, only if it
// is still at old (a compare-and-swap: a concurrent push or change wins
// and this returns an error matching ErrConflict). The reference
// transaction is journaled like every ref move, so the branch record
// follows even after a crash.
func (s *Store) MoveBranch(ctx context.Context, path, name, newSHA, oldSHA string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	if !ValidRefName(name) || !validSHA(newSHA) || !validSHA(oldSHA) {
		return invalidf("move branch %q", name)
	}
	if err := s.casRef(ctx, path, "refs/heads/"+name, newSHA, oldSHA); err != nil {
		if isRefMoved(err) {
			return err
		}
		return fmt.Errorf("move branch %q: %w", name, err)
	}
	return nil
}
