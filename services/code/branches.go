package code

import (
	"context"
	"errors"
	"net/http"
	"strings"

	branchesv1 "forge/gen/forge/branches/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/protection"
	"forge/services/store"
)

// BranchServer implements branchesv1.BranchServiceServer.
type BranchServer struct {
	branchesv1.UnimplementedBranchServiceServer
	Deps
}

var _ branchesv1.BranchServiceServer = (*BranchServer)(nil)

func NewBranchServer(d Deps) *BranchServer { return &BranchServer{Deps: d} }

// errEmptyRepo refuses branch writes on an empty repository. Archived
// repositories and mirrors are refused before the handler runs, by the
// methods' Writes declaration (services/access.ReadOnly).
var errEmptyRepo = errs.New(errs.NotFound, "Git Repository is empty.")

// branchTaken is a branch name Gitea refuses as taken: AlreadyExists,
// answered 409 over REST.
func branchTaken(msg string) error {
	return errs.New(errs.AlreadyExists, msg).WithHTTPStatus(http.StatusConflict)
}

func branchNotFound(name string) error {
	return errs.Newf(errs.NotFound, "branch does not exist [name: %s]", name)
}

// ListBranches lists the branch records of a page joined with their heads
// in git; a record whose ref vanished is skipped (the total still counts
// it). An empty repository has an empty list ([], not null).
func (s *BranchServer) ListBranches(ctx context.Context, req *branchesv1.ListBranchesRequest) (*branchesv1.ListBranchesResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	out := &branchesv1.ListBranchesResponse{
		RestBody: &branchesv1.ListBranchesResponse_Branches{Branches: &branchesv1.BranchList{}},
	}
	if r.IsEmpty {
		return out, nil
	}
	page := s.Limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	recs, total, err := s.Store.ListBranches(ctx, r.ID, page.Offset(), page.Size)
	if err == nil && len(recs) == 0 && (page.Offset() == 0 || total == 0) {
		// A non-empty repository whose branches were never recorded (a
		// repository older than its records): record them all now. (An
		// empty first page says so whatever the stored total says.)
		if err = s.sync(ctx, r); err == nil {
			recs, total, err = s.Store.ListBranches(ctx, r.ID, page.Offset(), page.Size)
		}
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(recs))
	for i, b := range recs {
		names[i] = b.Name
	}
	heads, err := s.Git.BranchesByName(ctx, r.path, names)
	if err != nil {
		return nil, errs.Wrap(err, "read branches")
	}
	commits := make([]*git.Commit, len(heads))
	for i := range heads {
		commits[i] = &heads[i].Commit
	}
	who, err := s.accounts(ctx, commits...)
	if err != nil {
		return nil, err
	}
	rules, doer, err := s.rules(ctx, r)
	if err != nil {
		return nil, err
	}
	list := &branchesv1.BranchList{Branches: make([]*branchesv1.Branch, len(heads))}
	for i := range heads {
		list.Branches[i] = s.branch(r, &heads[i], who, rules, doer)
	}
	out.RestBody = &branchesv1.ListBranchesResponse_Branches{Branches: list}
	out.TotalCount = total
	return out, nil
}

func (s *BranchServer) GetBranch(ctx context.Context, req *branchesv1.GetBranchRequest) (*branchesv1.GetBranchResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.Git.GetBranch(ctx, r.path, req.GetBranch())
	if errors.Is(err, git.ErrNotFound) {
		return nil, branchNotFound(req.GetBranch())
	}
	if err != nil {
		return nil, errs.Wrap(err, "read branch")
	}
	who, err := s.accounts(ctx, &b.Commit)
	if err != nil {
		return nil, err
	}
	rules, doer, err := s.rules(ctx, r)
	if err != nil {
		return nil, err
	}
	return &branchesv1.GetBranchResponse{Branch: s.branch(r, &b, who, rules, doer)}, nil
}

func (s *BranchServer) CreateBranch(ctx context.Context, req *branchesv1.CreateBranchRequest) (*branchesv1.CreateBranchResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	name := req.GetNewBranchName()
	if r.IsEmpty {
		return nil, errEmptyRepo
	}
	from := "refs/heads/" + r.DefaultBranch
	switch {
	case req.GetOldRefName() != "":
		from = req.GetOldRefName()
	case req.GetOldBranchName() != "":
		from = "refs/heads/" + req.GetOldBranchName()
	}
	if err := s.protect(ctx, r, protection.Change{Branch: name, Create: true}); err != nil {
		return nil, err
	}
	b, err := s.Git.CreateBranch(ctx, r.path, name, from)
	switch {
	case errors.Is(err, git.ErrNotFound) && req.GetOldRefName() != "":
		return nil, errs.Newf(errs.NotFound, "The old ref does not exist [ref: %s]", req.GetOldRefName())
	case errors.Is(err, git.ErrNotFound):
		return nil, errs.New(errs.NotFound, "The old branch does not exist")
	case errors.Is(err, git.ErrAlreadyExists):
		if _, gerr := s.Git.GetBranch(ctx, r.path, name); gerr == nil {
			return nil, branchTaken("The branch already exists.")
		}
		return nil, branchTaken("The branch with the same tag already exists.")
	case errors.Is(err, git.ErrConflict):
		return nil, branchTaken("The branch with a name that conflicts with another branch already exists.")
	case errors.Is(err, git.ErrInvalid):
		return nil, errs.Newf(errs.Invalid, "[BranchName]: GitRefName")
	case err != nil:
		return nil, errs.Wrap(err, "create branch")
	}
	if err := s.sync(ctx, r, git.RefUpdate{Name: "refs/heads/" + name, OldSHA: git.ZeroSHA, NewSHA: b.Commit.SHA}); err != nil {
		return nil, err
	}
	who, err := s.accounts(ctx, &b.Commit)
	if err != nil {
		return nil, err
	}
	rules, doer, err := s.rules(ctx, r)
	if err != nil {
		return nil, err
	}
	return &branchesv1.CreateBranchResponse{Branch: s.branch(r, &b, who, rules, doer)}, nil
}

func (s *BranchServer) DeleteBranch(ctx context.Context, req *branchesv1.DeleteBranchRequest) (*branchesv1.DeleteBranchResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	name := req.GetBranch()
	switch {
	case r.IsEmpty:
		return nil, errEmptyRepo
	case name == r.DefaultBranch:
		return nil, errs.New(errs.PermissionDenied, "can not delete default branch")
	}
	head, err := s.Git.GetBranch(ctx, r.path, name)
	if err == nil {
		err = s.protect(ctx, r, protection.Change{Branch: name, Delete: true})
		if err != nil {
			return nil, err
		}
		err = s.Git.DeleteBranch(ctx, r.path, name)
	}
	switch {
	case errors.Is(err, git.ErrNotFound):
		return nil, branchNotFound(name)
	case errors.Is(err, git.ErrConflict):
		return nil, errs.Newf(errs.Conflict, "branch %s changed while being deleted", name)
	case err != nil:
		return nil, errs.Wrap(err, "delete branch")
	}
	if err := s.sync(ctx, r, git.RefUpdate{Name: "refs/heads/" + name, OldSHA: head.Commit.SHA, NewSHA: git.ZeroSHA}); err != nil {
		return nil, err
	}
	return &branchesv1.DeleteBranchResponse{}, nil
}

// branch renders a branch with the rule that protects it (rules may be
// nil: none): writers may push and merge unless the rule says otherwise;
// the rule's name is shown to repository administrators only.
func (s *BranchServer) branch(r *repo, b *git.Branch, who Accounts, rules *protection.RepoRules, doer protection.Doer) *branchesv1.Branch {
	write := r.CanWrite()
	out := &branchesv1.Branch{
		Name:                b.Name,
		Commit:              s.Render.PayloadCommit(s.Render.URLs(r.Owner.Name, r.Name), &b.Commit, who),
		StatusCheckContexts: []string{},
		UserCanPush:         write,
		UserCanMerge:        write,
	}
	rule := rules.Match(b.Name)
	if rule == nil {
		return out
	}
	out.Protected = true
	out.RequiredApprovals = rule.RequiredApprovals
	out.EnableStatusCheck = rule.EnableStatusCheck
	if c, _ := rule.Contexts(); c != nil {
		out.StatusCheckContexts = c
	}
	out.UserCanPush = write && protection.CanPush(rule, doer)
	out.UserCanMerge = write && protection.CanMerge(rule, doer)
	if r.UnitMode(auth.UnitCode) >= store.AccessAdmin {
		out.EffectiveBranchProtectionName = rule.RuleName
	}
	return out
}

// rules loads the repository's protection rules and the caller as their
// whitelists see it (nil rules when nothing is protected).
func (s *BranchServer) rules(ctx context.Context, r *repo) (*protection.RepoRules, protection.Doer, error) {
	if s.Protection == nil {
		return nil, protection.Doer{}, nil
	}
	rules, err := s.Protection.Rules(ctx, r.ID, r.OwnerID, r.Owner.Type == store.UserTypeOrganization)
	if err != nil {
		return nil, protection.Doer{}, err
	}
	d, err := rules.Doer(ctx, r.caller.ID())
	return rules, d, err
}

// RenameBranch renames a branch as Gitea 1.24 does: the refs move in one
// git transaction (HEAD follows for the default branch), then the
// database's names of the branch (default branch, the protection rule
// named after it, open pull requests) in one transaction, then the branch
// records and webhooks through the syncer, as after a push deleting the
// old name and creating the new one.
func (s *BranchServer) RenameBranch(ctx context.Context, req *branchesv1.RenameBranchRequest) (*branchesv1.RenameBranchResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	// Fails closed should the policy lose its rule (branch-renamer).
	if _, err := access.ObjectFrom(ctx); err != nil {
		return nil, err
	}
	if r.IsEmpty {
		return nil, errEmptyRepo
	}
	from, to := req.GetBranch(), req.GetName()
	if from == to {
		return nil, errRenameTaken
	}
	if _, err := s.Git.GetBranch(ctx, r.path, to); err == nil {
		return nil, errRenameTaken
	} else if !errors.Is(err, git.ErrNotFound) {
		return nil, errs.Wrap(err, "read branch")
	}
	head, err := s.Git.GetBranch(ctx, r.path, from)
	if errors.Is(err, git.ErrNotFound) {
		return nil, errs.New(errs.NotFound, "Branch doesn't exist.")
	}
	if err != nil {
		return nil, errs.Wrap(err, "read branch")
	}
	if err := s.renameGlobProtected(ctx, r, from); err != nil {
		return nil, err
	}
	sha := head.Commit.SHA
	// The records that name the branch follow it while both names exist
	// in git (see git.Store.RenameBranch).
	retarget := func() error {
		if from == r.DefaultBranch {
			if err := s.Git.SetDefaultBranch(ctx, r.path, to); err != nil {
				return errs.Wrap(err, "move HEAD")
			}
		}
		err := s.Store.RenameBranchReferences(ctx, store.BranchRename{RepoID: r.ID, From: from, To: to})
		if err != nil && from == r.DefaultBranch {
			err = errors.Join(err, s.Git.SetDefaultBranch(ctx, r.path, from)) // HEAD back beside the records
		}
		return err
	}
	switch err := s.Git.RenameBranch(ctx, r.path, from, to, sha, retarget); {
	case errors.Is(err, git.ErrAlreadyExists):
		return nil, errRenameTaken
	case errors.Is(err, git.ErrConflict), errors.Is(err, git.ErrInvalid):
		return nil, writeErr(err, http.StatusConflict)
	case err != nil:
		return nil, errs.Wrap(err, "rename branch")
	}
	if from == r.DefaultBranch {
		r.DefaultBranch = to
		r.Repository.DefaultBranch = to
	}
	if err := s.sync(ctx, r,
		git.RefUpdate{Name: "refs/heads/" + from, OldSHA: sha, NewSHA: git.ZeroSHA},
		git.RefUpdate{Name: "refs/heads/" + to, OldSHA: git.ZeroSHA, NewSHA: sha}); err != nil {
		return nil, err
	}
	return &branchesv1.RenameBranchResponse{}, nil
}

// errRenameTaken is Gitea's answer to a rename onto the same or an
// existing name.
var errRenameTaken = errs.New(errs.Invalid, "Cannot rename a branch using the same name or rename to a branch that already exists.")

// renameGlobProtected refuses to rename a branch that a pattern rule
// protects (and no rule named after it) to everyone, administrators too:
// a business rule of Gitea's model, which moves a rule named after the
// branch to the new name but cannot move a pattern. Who may rename the
// default branch or one under a named rule is the rpc's object rule
// (branch-renamer, services/access), decided before the handler runs.
func (s *BranchServer) renameGlobProtected(ctx context.Context, r *repo, from string) error {
	if s.Protection == nil {
		return nil
	}
	rules, err := s.Protection.Rules(ctx, r.ID, r.OwnerID, r.Owner.Type == store.UserTypeOrganization)
	if err != nil {
		return err
	}
	if rule := rules.Match(from); rule != nil && protection.IsGlob(rule.RuleName) {
		return errs.New(errs.PermissionDenied, "Branch is protected by glob-based protection rules.")
	}
	return nil
}

// UpdateBranch moves a branch to a commit: resolved first (422 when it
// names none), compared with old_commit_id when given (409), a
// fast-forward unless force (409), decided by the branch's protection as
// a push would be (403), then moved with a compare-and-swap on the head
// it read (a concurrent push wins: 409) and recorded like a push.
func (s *BranchServer) UpdateBranch(ctx context.Context, req *branchesv1.UpdateBranchRequest) (*branchesv1.UpdateBranchResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if r.IsEmpty {
		return nil, errEmptyRepo
	}
	name := req.GetBranch()
	head, err := s.Git.GetBranch(ctx, r.path, name)
	if errors.Is(err, git.ErrNotFound) {
		return nil, branchNotFound(name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "read branch")
	}
	target, err := s.Git.Resolve(ctx, r.path, req.GetNewCommitId())
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return nil, errs.Newf(errs.Invalid, "object does not exist [id: %s]", req.GetNewCommitId())
	}
	if err != nil {
		return nil, errs.Wrap(err, "resolve new commit")
	}
	old := head.Commit.SHA
	if want := strings.ToLower(req.GetOldCommitId()); want != "" && want != old {
		return nil, errs.New(errs.Conflict, "The branch has been updated: old_commit_id is not its head.")
	}
	if target.SHA == old {
		return &branchesv1.UpdateBranchResponse{}, nil
	}
	ff, err := s.Git.IsAncestor(ctx, r.path, old, target.SHA)
	if err != nil {
		return nil, errs.Wrap(err, "compare commits")
	}
	if !ff && !req.GetForce() {
		return nil, errs.New(errs.Conflict, "The update is not a fast-forward.")
	}
	change := protection.Change{Branch: name, Force: !ff}
	if files, err := s.Git.DiffFilesBetween(ctx, r.path, old, target.SHA); err == nil {
		for _, f := range files {
			change.Files = append(change.Files, f.Filename)
			if f.PreviousFilename != "" {
				change.Files = append(change.Files, f.PreviousFilename)
			}
		}
	} else {
		return nil, errs.Wrap(err, "changed files")
	}
	if err := s.protect(ctx, r, change); err != nil {
		return nil, err
	}
	switch err := s.Git.MoveBranch(ctx, r.path, name, target.SHA, old); {
	case errors.Is(err, git.ErrConflict):
		return nil, errs.Newf(errs.Conflict, "branch %s changed while being updated", name)
	case err != nil:
		return nil, errs.Wrap(err, "move branch")
	}
	if err := s.sync(ctx, r, git.RefUpdate{Name: "refs/heads/" + name, OldSHA: old, NewSHA: target.SHA}); err != nil {
		return nil, err
	}
	return &branchesv1.UpdateBranchResponse{}, nil
}
