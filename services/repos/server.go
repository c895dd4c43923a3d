package repos

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/users"
)

// Policies declares who may call each method.
var Policies = auth.Policies{
	reposv1.RepositoryService_CreateCurrentUserRepo_FullMethodName:     auth.Write(auth.SignedIn, auth.CategoryUser, auth.CategoryRepository).Writing(auth.WritesNothing),
	reposv1.RepositoryService_AdminCreateRepo_FullMethodName:           auth.Write(auth.SiteAdmin, auth.CategoryAdmin).Writing(auth.WritesNothing),
	reposv1.RepositoryService_GetRepo_FullMethodName:                   auth.Read(auth.Public, auth.CategoryRepository).OnRepo(auth.UnitCode, store.AccessRead),
	reposv1.RepositoryService_GetRepoByID_FullMethodName:               auth.Read(auth.SignedIn, auth.CategoryRepository).OnRepoByID(auth.UnitCode, store.AccessRead),
	reposv1.RepositoryService_EditRepo_FullMethodName:                  auth.Write(auth.SignedIn, auth.CategoryRepository).Writing(auth.WritesSettings).OnRepo(auth.UnitCode, store.AccessAdmin),
	reposv1.RepositoryService_DeleteRepo_FullMethodName:                auth.Write(auth.SignedIn, auth.CategoryRepository).Writing(auth.WritesSettings).OnRepo(auth.UnitCode, store.AccessOwner),
	reposv1.RepositoryService_ListUserRepos_FullMethodName:             auth.Read(auth.Public, auth.CategoryUser, auth.CategoryRepository),
	reposv1.RepositoryService_ListMyRepos_FullMethodName:               auth.Read(auth.SignedIn, auth.CategoryUser, auth.CategoryRepository),
	reposv1.RepositoryService_SearchRepos_FullMethodName:               auth.Read(auth.Public, auth.CategoryRepository),
	reposv1.RepositoryService_ListCollaborators_FullMethodName:         auth.Read(auth.SignedIn, auth.CategoryRepository).OnRepo(auth.UnitCode, store.AccessRead),
	reposv1.RepositoryService_CheckCollaborator_FullMethodName:         auth.Read(auth.SignedIn, auth.CategoryRepository).OnRepo(auth.UnitCode, store.AccessRead),
	reposv1.RepositoryService_AddCollaborator_FullMethodName:           auth.Write(auth.SignedIn, auth.CategoryRepository).Writing(auth.WritesSettings).OnRepo(auth.UnitCode, store.AccessAdmin),
	reposv1.RepositoryService_DeleteCollaborator_FullMethodName:        auth.Write(auth.SignedIn, auth.CategoryRepository).Writing(auth.WritesSettings).OnRepo(auth.UnitCode, store.AccessAdmin),
	reposv1.RepositoryService_GetCollaboratorPermission_FullMethodName: auth.Read(auth.SignedIn, auth.CategoryRepository).OnRepo(auth.UnitCode, store.AccessRead),
}

// Server implements reposv1.RepositoryServiceServer.
type Server struct {
	reposv1.UnimplementedRepositoryServiceServer
	store  *store.Store
	git    *git.Store
	access *access.Checker
	render Renderer
	sync   *Syncer
	limits paging.Limits
}

var _ reposv1.RepositoryServiceServer = (*Server)(nil)

func NewServer(s *store.Store, g *git.Store, c *access.Checker, r Renderer, sy *Syncer, limits paging.Limits) *Server {
	return &Server{store: s, git: g, access: c, render: r, sync: sy, limits: limits}
}

const defaultBranch = "main"

// MinMirrorInterval is the shortest pull-mirror interval (Gitea's [mirror]
// MIN_INTERVAL default); 0 disables periodic syncing.
const MinMirrorInterval = 10 * time.Minute

func (s *Server) CreateCurrentUserRepo(ctx context.Context, req *reposv1.CreateCurrentUserRepoRequest) (*reposv1.CreateCurrentUserRepoResponse, error) {
	p := auth.FromContext(ctx)
	if p.User.Type != store.UserTypeIndividual {
		return nil, status.Error(codes.InvalidArgument, "not allowed creating repository for organization")
	}
	opt := &reposv1.CreateRepoOption{
		Name: req.GetName(), Description: req.GetDescription(), Private: req.GetPrivate(), AutoInit: req.GetAutoInit(),
		Template: req.GetTemplate(), Readme: req.GetReadme(), DefaultBranch: req.GetDefaultBranch(),
		Gitignores: req.GetGitignores(), License: req.GetLicense(), IssueLabels: req.GetIssueLabels(),
		TrustModel: req.GetTrustModel(), ObjectFormatName: req.GetObjectFormatName(),
	}
	r, err := s.create(ctx, p.User, opt, p)
	if err != nil {
		return nil, err
	}
	return &reposv1.CreateCurrentUserRepoResponse{Repository: r}, nil
}

func (s *Server) AdminCreateRepo(ctx context.Context, req *reposv1.AdminCreateRepoRequest) (*reposv1.AdminCreateRepoResponse, error) {
	owner, err := users.Visible(ctx, s.store, req.GetUsername(), auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	r, err := s.create(ctx, owner, req.GetRepository(), auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &reposv1.AdminCreateRepoResponse{Repository: r}, nil
}

// create makes the record, the bare repository and, with auto_init, the
// first commit and its branch record, all or nothing (see createAtomic).
func (s *Server) create(ctx context.Context, owner *store.User, opt *reposv1.CreateRepoOption, caller *auth.Principal) (*reposv1.Repository, error) {
	branch := opt.GetDefaultBranch()
	if branch == "" {
		branch = defaultBranch
	}
	if err := validateDefaultBranch(branch); err != nil {
		return nil, err
	}
	if f := opt.GetObjectFormatName(); f != "" && f != "sha1" {
		return nil, status.Errorf(codes.InvalidArgument, "[ObjectFormatName]: unsupported object format %q (sha1)", f)
	}
	if r := opt.GetReadme(); r != "" && r != "Default" {
		return nil, status.Errorf(codes.FailedPrecondition, "readme template %q does not exist", r)
	}
	path, err := s.git.RepoPath(owner.Name, opt.GetName())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	rec := newRecord(owner, opt.GetName(), opt.GetDescription(), branch, opt.GetPrivate())
	rec.IsTemplate = opt.GetTemplate()
	if err := s.createAtomic(ctx, rec, path, opt, caller, s.access.RepoLimit(owner, caller)); err != nil {
		return nil, err
	}
	return s.render.Repository(&access.Repo{Repository: rec, Owner: owner, Mode: store.AccessOwner}, caller), nil
}

// validateDefaultBranch checks a default branch name given through the
// API: a valid branch name for git (git.ValidRefName, which also caps it at
// 255 bytes, the size of the database column). Long names are shortened in
// the message.
func validateDefaultBranch(name string) error {
	if git.ValidRefName(name) {
		return nil
	}
	shown := name
	if len(shown) > 100 {
		shown = shown[:100] + "..."
	}
	return status.Errorf(codes.InvalidArgument, "[DefaultBranch]: invalid branch name %q", shown)
}

// newRecord is a repository record with Gitea's defaults.
func newRecord(owner *store.User, name, description, branch string, private bool) *store.Repository {
	return &store.Repository{
		OwnerID: owner.ID, OwnerName: owner.Name, Name: name, Description: description,
		DefaultBranch: branch, IsPrivate: private, IsEmpty: true,
		HasIssues: true, HasWiki: true, HasPullRequests: true, HasProjects: true, HasReleases: true,
		HasPackages: true, HasActions: true, AllowMergeCommits: true, AllowRebase: true,
		AllowRebaseExplicit: true, AllowSquashMerge: true, AllowFastForwardOnlyMerge: true,
		AllowRebaseUpdate: true, DefaultMergeStyle: "merge",
	}
}

// NewRecord is newRecord for other services that create repositories
// (migrations).
func NewRecord(owner *store.User, name, description, branch string, private bool) *store.Repository {
	return newRecord(owner, name, description, branch, private)
}

// present renders r with what lives beside the repository row: the
// release counter and, for mirrors, the mirror's interval and last sync.
func (s *Server) present(ctx context.Context, r *access.Repo, viewer *auth.Principal) (*reposv1.Repository, error) {
	out := s.render.Repository(r, viewer)
	n, err := s.store.CountReleases(ctx, r.ID)
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	out.ReleaseCounter = n
	if r.IsMirror {
		m, err := s.store.MirrorByRepoID(ctx, r.ID)
		if err == nil {
			MirrorState(out, time.Duration(m.IntervalSecs)*time.Second, m.UpdatedUnix)
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, rpcerr.Internal(err)
		}
	}
	return out, nil
}

func (s *Server) GetRepo(ctx context.Context, req *reposv1.GetRepoRequest) (*reposv1.GetRepoResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.present(ctx, r, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.GetRepoResponse{Repository: out}, nil
}

func (s *Server) GetRepoByID(ctx context.Context, req *reposv1.GetRepoByIDRequest) (*reposv1.GetRepoByIDResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.present(ctx, r, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.GetRepoByIDResponse{Repository: out}, nil
}

func (s *Server) EditRepo(ctx context.Context, req *reposv1.EditRepoRequest) (*reposv1.EditRepoResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if req.DefaultBranch != nil {
		// Checked even while the repository is empty: the name is stored
		// and later handed to git as HEAD's target.
		if err := validateDefaultBranch(req.GetDefaultBranch()); err != nil {
			return nil, err
		}
	}
	if req.DefaultBranch != nil && !r.IsEmpty {
		path, _ := s.git.RepoPath(r.Owner.Name, r.Name)
		if _, err := s.git.GetBranch(ctx, path, req.GetDefaultBranch()); err != nil {
			return nil, status.Errorf(codes.NotFound, "branch does not exist [name: %s]", req.GetDefaultBranch())
		}
	}
	if ms := req.GetDefaultMergeStyle(); req.DefaultMergeStyle != nil && !validMergeStyle(ms) {
		return nil, status.Errorf(codes.InvalidArgument, "[DefaultMergeStyle]: invalid merge style %q", ms)
	}
	var mirrorInterval time.Duration
	if req.MirrorInterval != nil && r.IsMirror {
		d, err := time.ParseDuration(req.GetMirrorInterval())
		if err != nil || (d != 0 && d < MinMirrorInterval) {
			return nil, status.Errorf(codes.InvalidArgument, "[MirrorInterval]: invalid mirror interval %q (a duration of at least %s, or 0 to disable)", req.GetMirrorInterval(), MinMirrorInterval)
		}
		mirrorInterval = d
	}
	oldName := r.Name
	updated, err := s.store.UpdateRepository(ctx, r.ID, func(rec *store.Repository) error {
		setString(&rec.Name, req.Name)
		setString(&rec.Description, req.Description)
		setString(&rec.Website, req.Website)
		setString(&rec.DefaultBranch, req.DefaultBranch)
		setString(&rec.DefaultMergeStyle, req.DefaultMergeStyle)
		for _, f := range []struct {
			dst *bool
			v   *bool
		}{
			{&rec.IsPrivate, req.Private}, {&rec.IsTemplate, req.Template}, {&rec.HasIssues, req.HasIssues},
			{&rec.HasWiki, req.HasWiki}, {&rec.HasPullRequests, req.HasPullRequests}, {&rec.HasProjects, req.HasProjects},
			{&rec.HasReleases, req.HasReleases}, {&rec.HasPackages, req.HasPackages}, {&rec.HasActions, req.HasActions},
			{&rec.IgnoreWhitespaceConflicts, req.IgnoreWhitespaceConflicts}, {&rec.AllowMergeCommits, req.AllowMergeCommits},
			{&rec.AllowRebase, req.AllowRebase}, {&rec.AllowRebaseExplicit, req.AllowRebaseExplicit},
			{&rec.AllowSquashMerge, req.AllowSquashMerge}, {&rec.AllowFastForwardOnlyMerge, req.AllowFastForwardOnlyMerge},
			{&rec.AllowRebaseUpdate, req.AllowRebaseUpdate}, {&rec.DefaultDeleteBranchAfterMerge, req.DefaultDeleteBranchAfterMerge},
			{&rec.DefaultAllowMaintainerEdit, req.DefaultAllowMaintainerEdit},
		} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		if req.Archived != nil && *req.Archived != rec.IsArchived {
			rec.IsArchived = *req.Archived
			rec.ArchivedUnix = 0
			if rec.IsArchived {
				rec.ArchivedUnix = time.Now().Unix()
			}
		}
		return nil
	})
	if err != nil {
		return nil, rpcerr.FromStore(err, "The target couldn't be found.")
	}
	if req.MirrorInterval != nil && r.IsMirror {
		if err := s.store.SetMirrorInterval(ctx, r.ID, mirrorInterval); err != nil {
			return nil, rpcerr.FromStore(err, "The target couldn't be found.")
		}
	}
	if !strings.EqualFold(oldName, updated.Name) {
		// The record is renamed first (it owns name uniqueness); the files
		// follow, and the record is put back if they cannot.
		oldPath, _ := s.git.RepoPath(updated.OwnerName, oldName)
		newPath, _ := s.git.RepoPath(updated.OwnerName, updated.Name)
		if err := s.git.Rename(oldPath, newPath); err != nil {
			s.store.UpdateRepository(context.WithoutCancel(ctx), r.ID, func(rec *store.Repository) error { rec.Name = oldName; return nil })
			return nil, rpcerr.Internal(err)
		}
	}
	if req.DefaultBranch != nil && !updated.IsEmpty {
		path, _ := s.git.RepoPath(updated.OwnerName, updated.Name)
		if err := s.git.SetDefaultBranch(ctx, path, updated.DefaultBranch); err != nil {
			return nil, rpcerr.Internal(err)
		}
	}
	out, err := s.present(ctx, &access.Repo{Repository: updated, Owner: r.Owner, Mode: r.Mode}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.EditRepoResponse{Repository: out}, nil
}

func validMergeStyle(s string) bool {
	switch s {
	case "merge", "rebase", "rebase-merge", "squash", "fast-forward-only":
		return true
	}
	return false
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func (s *Server) DeleteRepo(ctx context.Context, req *reposv1.DeleteRepoRequest) (*reposv1.DeleteRepoResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Purge(ctx, r.Repository); err != nil {
		return nil, rpcerr.FromStore(err, "The target couldn't be found.")
	}
	return &reposv1.DeleteRepoResponse{}, nil
}

// Purge deletes a repository's records, then its git data.
func (s *Server) Purge(ctx context.Context, r *store.Repository) error {
	if err := s.store.DeleteRepository(ctx, r.ID); err != nil {
		return err
	}
	path, _ := s.git.RepoPath(r.OwnerName, r.Name)
	// Delete removes whatever exists there, a repository or the leftovers
	// of an interrupted create; nothing at all is fine too.
	if err := s.git.Delete(path); err != nil && !errors.Is(err, git.ErrNotFound) {
		slog.Error("delete repository files", "path", path, "err", err) // the record is gone; files are garbage
	}
	return nil
}

// list renders a page of repositories for viewer.
func (s *Server) list(ctx context.Context, opts store.RepoListOptions, viewer *auth.Principal) ([]*reposv1.Repository, int64, error) {
	opts.RepoFilter = access.Filter(viewer)
	found, total, err := s.store.ListRepositories(ctx, opts)
	if err != nil {
		return nil, 0, rpcerr.Internal(err)
	}
	ids := make([]int64, len(found))
	for i := range found {
		ids[i] = found[i].OwnerID
	}
	owners, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, 0, rpcerr.Internal(err)
	}
	out := make([]*reposv1.Repository, 0, len(found))
	for i := range found {
		mode, err := s.access.Mode(ctx, &found[i], viewer)
		if err != nil {
			return nil, 0, err
		}
		rendered, err := s.present(ctx, &access.Repo{Repository: &found[i], Owner: owners[found[i].OwnerID], Mode: mode}, viewer)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, rendered)
	}
	return out, total, nil
}

func (s *Server) ListUserRepos(ctx context.Context, req *reposv1.ListUserReposRequest) (*reposv1.ListUserReposResponse, error) {
	viewer := auth.FromContext(ctx)
	owner, err := users.Visible(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.list(ctx, store.RepoListOptions{OwnerID: owner.ID, Offset: page.Offset(), Limit: page.Size}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.ListUserReposResponse{Repositories: list, TotalCount: total}, nil
}

func (s *Server) ListMyRepos(ctx context.Context, req *reposv1.ListMyReposRequest) (*reposv1.ListMyReposResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.list(ctx, store.RepoListOptions{OnlyAccessible: true, Offset: page.Offset(), Limit: page.Size}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.ListMyReposResponse{Repositories: list, TotalCount: total}, nil
}

func (s *Server) SearchRepos(ctx context.Context, req *reposv1.SearchReposRequest) (*reposv1.SearchReposResponse, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.list(ctx, store.RepoListOptions{OwnerID: req.GetUid(), Keyword: req.GetQ(), Offset: page.Offset(), Limit: page.Size}, viewer)
	if err != nil {
		return nil, err
	}
	return &reposv1.SearchReposResponse{Ok: true, Data: list, TotalCount: total}, nil
}

func (s *Server) ListCollaborators(ctx context.Context, req *reposv1.ListCollaboratorsRequest) (*reposv1.ListCollaboratorsResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListCollaborators(ctx, r.ID, users.Filter(viewer), page.Offset(), page.Size)
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	out := &reposv1.ListCollaboratorsResponse{Users: make([]*usersv1.User, len(list)), TotalCount: total}
	for i := range list {
		out.Users[i] = s.render.Users.User(&list[i].User, viewer)
	}
	return out, nil
}

// collaborator is the resolved repository and the named user, as the
// caller sees them: an account hidden from the caller is as unknown as a
// missing one.
func (s *Server) collaborator(ctx context.Context, name string) (*access.Repo, *store.User, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	u, err := users.Visible(ctx, s.store, name, viewer)
	if err != nil {
		return r, nil, err
	}
	if u.Type != store.UserTypeIndividual {
		return r, nil, users.NotFound(name)
	}
	return r, u, nil
}

func (s *Server) CheckCollaborator(ctx context.Context, req *reposv1.CheckCollaboratorRequest) (*reposv1.CheckCollaboratorResponse, error) {
	r, u, err := s.collaborator(ctx, req.GetCollaborator())
	if err != nil {
		return nil, err
	}
	mode, err := s.store.CollaboratorMode(ctx, r.ID, u.ID)
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	if mode == store.AccessNone {
		return nil, status.Errorf(codes.NotFound, "%s is not a collaborator", u.Name)
	}
	return &reposv1.CheckCollaboratorResponse{}, nil
}

func (s *Server) AddCollaborator(ctx context.Context, req *reposv1.AddCollaboratorRequest) (*reposv1.AddCollaboratorResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	mode := store.AccessWrite
	if p := req.GetPermission(); p != "" {
		m, ok := store.ParseAccessMode(p)
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "[Permission]: invalid permission %q (read, write, admin)", p)
		}
		mode = m
	}
	u, err := users.Visible(ctx, s.store, req.GetCollaborator(), auth.FromContext(ctx))
	if status.Code(err) == codes.NotFound || (err == nil && u.Type != store.UserTypeIndividual) {
		return nil, status.Errorf(codes.InvalidArgument, "user does not exist [name: %s]", req.GetCollaborator())
	}
	if err != nil {
		return nil, err
	}
	if u.ID == r.OwnerID {
		return nil, status.Error(codes.InvalidArgument, "the owner cannot be a collaborator of their own repository")
	}
	if err := s.store.SetCollaborator(ctx, r.ID, u.ID, mode); err != nil {
		return nil, rpcerr.Internal(err)
	}
	return &reposv1.AddCollaboratorResponse{}, nil
}

func (s *Server) DeleteCollaborator(ctx context.Context, req *reposv1.DeleteCollaboratorRequest) (*reposv1.DeleteCollaboratorResponse, error) {
	r, u, err := s.collaborator(ctx, req.GetCollaborator())
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteCollaborator(ctx, r.ID, u.ID); err != nil {
		return nil, rpcerr.FromStore(err, u.Name+" is not a collaborator")
	}
	return &reposv1.DeleteCollaboratorResponse{}, nil
}

func (s *Server) GetCollaboratorPermission(ctx context.Context, req *reposv1.GetCollaboratorPermissionRequest) (*reposv1.GetCollaboratorPermissionResponse, error) {
	viewer := auth.FromContext(ctx)
	r, u, err := s.collaborator(ctx, req.GetCollaborator())
	if err != nil {
		return nil, err
	}
	if err := access.MayQueryPermission(r, viewer, u); err != nil {
		return nil, err
	}
	mode, err := s.access.Mode(ctx, r.Repository, &auth.Principal{User: u})
	if err != nil {
		return nil, err
	}
	return &reposv1.GetCollaboratorPermissionResponse{
		Permission: mode.String(),
		RoleName:   mode.String(),
		User:       s.render.Users.User(u, viewer),
	}, nil
}
