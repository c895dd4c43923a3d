// Package code serves what a repository holds: its branches
// (forge.branches.v1.BranchService), its files (forge.contents.v1
// .ContentService, raw files included) and its history
// (forge.commits.v1.CommitService). Renderer turns git commits into
// Gitea's Commit, PayloadCommit and FileCommitResponse objects for every
// service that shows one.
//
// Every method's policy declares the repository it acts on and the access
// it needs; the auth interceptor resolves and checks it before the
// handler runs (a missing or invisible repository is NotFound), and the
// handlers read it with access.RepoFrom. Anything that moves a branch is recorded with repos.Syncer, so
// branch records follow API changes exactly as they follow pushes.
package code

import (
	"context"
	"errors"
	"path/filepath"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/protection"
	"forge/services/repos"
	"forge/services/store"
)

// Store is what the code services read from the database.
type Store interface {
	// ListBranches returns a page of a repository's branch records, latest
	// commit first, then by name, and their total number.
	ListBranches(ctx context.Context, repoID int64, offset, limit int) ([]store.Branch, int64, error)
	// UsersByEmails returns the individual users whose e-mail is one of
	// emails, compared case-insensitively, keyed by the lower-cased e-mail.
	// Unknown addresses are absent; an error means the query failed.
	UsersByEmails(ctx context.Context, emails []string) (map[string]*store.User, error)
	// UserByName returns store.ErrNotFound for an unknown name.
	UserByName(ctx context.Context, name string) (*store.User, error)
	// UserVisible applies account visibility (users.Filter) to one account.
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
	// VisibleUserIDs applies it to the commit authors at once.
	access.VisibleAmong
	// RenameBranchReferences renames, in one transaction, the default
	// branch, the protection rule and the open pull requests naming a
	// renamed branch.
	RenameBranchReferences(ctx context.Context, r store.BranchRename) error
}

// Deps are the collaborators of the three services.
type Deps struct {
	Store  Store
	Git    *git.Store
	Sync   *repos.Syncer
	Render Renderer
	Limits paging.Limits
	// MaxBlobSize is [api] DEFAULT_MAX_BLOB_SIZE; 0 is DefaultMaxBlobSize.
	MaxBlobSize int64
	// Protection decides changes of protected branches; nil protects none.
	Protection Protection
}

// Protection gives the branch protection rules of a repository.
type Protection interface {
	Rules(ctx context.Context, repoID, ownerID int64, org bool) (*protection.RepoRules, error)
}

// protect decides a change of a branch of r made by the caller through
// the API (contents, branches): nil when no rule forbids it.
func (d *Deps) protect(ctx context.Context, r *repo, c protection.Change) error {
	if d.Protection == nil {
		return nil
	}
	rules, err := d.Protection.Rules(ctx, r.ID, r.OwnerID, r.Owner.Type == store.UserTypeOrganization)
	if err != nil {
		return err
	}
	name := ""
	if r.caller.User != nil {
		name = r.caller.User.LowerName
	}
	return rules.CheckAPI(ctx, r.caller.ID(), name, c)
}

// Servers builds the implementations of the area's BranchService,
// ContentService and CommitService, for area.Bind.
func Servers(d Deps) []any {
	return []any{NewBranchServer(d), NewContentServer(d), NewCommitServer(d), NewGitDataServer(d)}
}

// repo is a resolved repository with its path on disk and the caller.
type repo struct {
	*access.Repo
	path   string
	caller *auth.Principal
}

// resolve is the repository the interceptor resolved and authorized for
// the call (the method's policy declares it), with its path on disk.
func (d *Deps) resolve(ctx context.Context) (*repo, error) {
	caller := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	path, err := d.Git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return nil, errs.Wrap(err, "repository path")
	}
	// Absolute once here: the git layer makes every path it is given
	// absolute (cache keys, reader pool, ref files), several times a
	// request, and for a relative one (a relative storage root) each time
	// costs a working-directory lookup.
	if path, err = filepath.Abs(path); err != nil {
		return nil, errs.Wrap(err, "repository path")
	}
	// The path may hold a newer repository than the git cache last saw
	// there (another process deleted and recreated it).
	d.Git.Identify(path, r.ID)
	return &repo{Repo: r, path: path, caller: caller}, nil
}

// accounts finds the users the commits are attributed to, among those the
// caller may see; the others stay plain git signatures.
func (d *Deps) accounts(ctx context.Context, commits ...*git.Commit) (Accounts, error) {
	a, err := FindAccounts(ctx, d.Store, d.Render.Users.Domain, commits...)
	if err != nil {
		return nil, errs.Wrap(err, "find commit accounts")
	}
	if err := access.DropHidden(ctx, d.Store, auth.FromContext(ctx), a); err != nil {
		return nil, err
	}
	return a, nil
}

// sync records the branch updates a change made.
func (d *Deps) sync(ctx context.Context, r *repo, updates ...git.RefUpdate) error {
	if err := d.Sync.Apply(ctx, r.Repository, r.caller.ID(), updates); err != nil {
		return errs.Wrap(err, "record branch updates")
	}
	return nil
}

// readErr maps an error of a git read: a missing (or malformed) ref,
// path or object is NotFound with the error's own text (names and the
// outcome; git's diagnostics never reach it), anything else Internal.
func readErr(err error) error {
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return errs.New(errs.NotFound, err.Error())
	}
	return errs.Wrap(err, "git read")
}

// writeErr maps an error of a git write: git's errors carry their kind
// (not found, already exists, conflict, invalid) and their own text
// (errs.Detail), and a conflict (a stale sha) is answered with
// conflictStatus, the status Gitea uses for it at the caller; anything
// else is Internal.
func writeErr(err error, conflictStatus int) error {
	e, ok := errs.Detail(err)
	if !ok {
		return errs.Wrap(err, "git write")
	}
	switch e.Kind {
	case errs.Conflict:
		return e.WithHTTPStatus(conflictStatus)
	case errs.NotFound, errs.AlreadyExists, errs.Invalid:
		return e
	}
	return errs.Wrap(err, "git write")
}
