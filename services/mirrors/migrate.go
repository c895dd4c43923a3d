package mirrors

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	mirrorsv1 "forge/gen/forge/mirrors/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/repos"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/users"
)

// migration is a validated MigrateRepo request.
type migration struct {
	owner    *store.User
	name     string
	remote   *url.URL   // with credentials
	target   git.Remote // remote, pinned to the addresses that passed the host check
	mirror   bool
	interval time.Duration
	private  bool
	desc     string
	synced   int64 // when the clone finished (mirror_updated)
}

// MigrateRepo clones clone_addr into a new repository. It runs inside the
// request, as Gitea's does; on any failure the record and the files are
// removed again.
func (s *Server) MigrateRepo(ctx context.Context, req *mirrorsv1.MigrateRepoRequest) (*mirrorsv1.MigrateRepoResponse, error) {
	caller := auth.FromContext(ctx)
	m, err := s.validateMigration(ctx, req, caller)
	if err != nil {
		return nil, err
	}
	rec, err := s.migrate(ctx, m, caller)
	if err != nil {
		return nil, err
	}
	out := s.render.Repository(&access.Repo{Repository: rec, Owner: m.owner, Mode: store.AccessAdmin}, caller)
	if rec.IsMirror {
		repos.MirrorState(out, m.interval, m.synced)
	}
	return &mirrorsv1.MigrateRepoResponse{Repository: out}, nil
}

func (s *Server) validateMigration(ctx context.Context, req *mirrorsv1.MigrateRepoRequest, caller *auth.Principal) (*migration, error) {
	switch name := req.GetRepoName(); {
	case strings.TrimSpace(req.GetCloneAddr()) == "":
		return nil, status.Error(codes.InvalidArgument, "[CloneAddr]: Required")
	case name == "":
		return nil, status.Error(codes.InvalidArgument, "[RepoName]: Required")
	case utf8.RuneCountInString(name) > 100:
		return nil, status.Error(codes.InvalidArgument, "[RepoName]: MaxSize")
	case !git.ValidName(name):
		return nil, status.Errorf(codes.InvalidArgument, "[RepoName]: invalid repository name %q (letters, digits, '-', '_', '.')", name)
	case utf8.RuneCountInString(req.GetDescription()) > 2048:
		return nil, status.Error(codes.InvalidArgument, "[Description]: MaxSize")
	}
	m := &migration{name: req.GetRepoName(), mirror: req.GetMirror(), private: req.GetPrivate(), desc: req.GetDescription()}
	if m.mirror {
		m.interval = DefaultInterval
		if v := req.GetMirrorInterval(); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, status.Errorf(codes.InvalidArgument, "[MirrorInterval]: invalid duration %q", v)
			}
			if d != 0 && d < MinInterval {
				return nil, status.Errorf(codes.InvalidArgument, "[MirrorInterval]: interval %s is below the minimum interval of %s", d, MinInterval)
			}
			m.interval = d
		}
	}
	owner, err := s.migrationOwner(ctx, req, caller)
	if err != nil {
		return nil, err
	}
	m.owner = owner
	user, password := req.GetAuthUsername(), req.GetAuthPassword()
	if tok := req.GetAuthToken(); tok != "" && password == "" {
		// A token is sent as the password (user "oauth2" unless given), as
		// git hosts accept it.
		if user == "" {
			user = "oauth2"
		}
		password = tok
	}
	remote, err := parseRemote(req.GetCloneAddr(), user, password)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "Invalid clone address: only http://, https:// and git:// URLs are allowed")
	}
	target, err := s.hosts.remote(ctx, remote)
	if err != nil {
		return nil, hostError(err)
	}
	m.remote, m.target = remote, target
	return m, nil
}

// migrationOwner is repo_owner (or the deprecated uid), default the caller.
// Only site administrators migrate into another account. Organizations'
// owners will be allowed once organizations exist.
func (s *Server) migrationOwner(ctx context.Context, req *mirrorsv1.MigrateRepoRequest, caller *auth.Principal) (*store.User, error) {
	var (
		u   *store.User
		err error
	)
	switch {
	case req.GetRepoOwner() != "":
		u, err = s.store.UserByName(ctx, req.GetRepoOwner())
	case req.GetUid() > 0:
		u, err = s.store.UserByID(ctx, req.GetUid())
	default:
		return caller.User, nil
	}
	if err == nil {
		// An account the caller may not see is as unknown as a missing one.
		var visible bool
		if visible, err = users.CanSee(ctx, s.store, u, caller); err == nil && !visible {
			err = store.ErrNotFound
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, status.Errorf(codes.InvalidArgument, "user does not exist [name: %s]", req.GetRepoOwner())
	}
	if err != nil {
		return nil, rpcerr.Internal(err)
	}
	if u.ID == caller.User.ID || caller.IsAdmin() {
		return u, nil
	}
	if u.Type == store.UserTypeOrganization {
		return nil, status.Error(codes.PermissionDenied, "Given user is not owner of organization.")
	}
	return nil, status.Error(codes.PermissionDenied, "Given user is not an organization.")
}

// migrate creates the record, clones the git data, records the branches
// and, for a mirror, its state. On failure it removes what it made.
func (s *Server) migrate(ctx context.Context, m *migration, caller *auth.Principal) (*store.Repository, error) {
	path, err := s.git.RepoPath(m.owner.Name, m.name)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "[RepoName]: invalid repository name")
	}
	rec := repos.NewRecord(m.owner, m.name, m.desc, "main", m.private)
	rec.IsMirror = m.mirror
	rec.OriginalURL = git.RedactURL(m.remote.String())
	if err := s.access.CreateRepository(ctx, rec, m.owner, caller); err != nil {
		return nil, err
	}
	undo := func() {
		if err := s.git.Delete(path); err != nil && !errors.Is(err, git.ErrNotFound) {
			slog.Error("roll back migrated files", "repo", rec.ID, "err", err)
		}
		if err := s.store.DeleteRepository(context.WithoutCancel(ctx), rec.ID); err != nil {
			slog.Error("roll back migrated repository record", "repo", rec.ID, "err", err)
		}
	}
	if err := s.cloneInto(ctx, m, path); err != nil {
		undo()
		return nil, err
	}
	done, err := s.recordClone(ctx, m, rec, path, caller)
	if err != nil {
		undo()
		return nil, rpcerr.Internal(errors.New(redact(err.Error(), m.remote)))
	}
	return done, nil
}

// cloneInto clones the source to path. A pull mirror keeps the source as
// its origin remote, to fetch from. Any other migration must not keep the
// remote (nor its credentials) in the repository's configuration, so it is
// cloned to a scratch repository first and pushed into a fresh one.
func (s *Server) cloneInto(ctx context.Context, m *migration, path string) error {
	if m.mirror || m.remote.User == nil {
		return s.cloneError(ctx, s.git.CloneMirror(ctx, m.target, path), m, path)
	}
	scratch, err := scratchPath(path)
	if err != nil {
		return rpcerr.Internal(err)
	}
	defer s.git.Delete(scratch)
	if err := s.git.CloneMirror(ctx, m.target, scratch); err != nil {
		return s.cloneError(ctx, err, m, scratch)
	}
	branch, err := s.git.DefaultBranch(ctx, scratch)
	if err != nil || !git.ValidRefName(branch) {
		branch = "main"
	}
	if err := s.git.Init(ctx, path, branch); err != nil {
		return s.cloneError(ctx, err, m, path)
	}
	empty, err := s.git.IsEmpty(ctx, scratch)
	if err != nil {
		return rpcerr.Internal(err)
	}
	if empty {
		return nil // nothing to copy (and git push --mirror would fail)
	}
	if err := s.git.PushMirror(ctx, scratch, git.Remote{URL: path}); err != nil {
		return rpcerr.Internal(errors.New(redact(err.Error(), m.remote)))
	}
	return nil
}

// scratchPath is a temporary repository path beside path; its name cannot
// be a repository's ("@" is not allowed in names).
func scratchPath(path string) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return strings.TrimSuffix(path, ".git") + "@migrating-" + hex.EncodeToString(b) + ".git", nil
}

// cloneError maps a failed clone to Gitea's answers, with credentials and
// local paths removed from git's message.
func (s *Server) cloneError(ctx context.Context, err error, m *migration, path string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, git.ErrAlreadyExists) {
		return errs.New(errs.AlreadyExists, "The repository files already exist.").WithHTTPStatus(http.StatusConflict)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return status.FromContextError(ctxErr).Err()
	}
	text := err.Error()
	var ge *git.Error
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
		text = strings.TrimSpace(ge.Stderr)
	}
	text = redact(strings.ReplaceAll(text, path, m.owner.Name+"/"+m.name), m.remote)
	if strings.Contains(text, "Authentication failed") || strings.Contains(text, "could not read Username") {
		return status.Error(codes.InvalidArgument, "Authentication failed: "+text)
	}
	return status.Error(codes.InvalidArgument, "Migration failed: "+text)
}

// recordClone records the cloned branches and default branch and, for a
// mirror, the mirror state, and returns the updated record.
func (s *Server) recordClone(ctx context.Context, m *migration, rec *store.Repository, path string, caller *auth.Principal) (*store.Repository, error) {
	if branch, err := s.git.DefaultBranch(ctx, path); err == nil && branch != rec.DefaultBranch && git.ValidRefName(branch) {
		updated, err := s.store.UpdateRepository(ctx, rec.ID, func(r *store.Repository) error {
			r.DefaultBranch = branch
			return nil
		})
		if err != nil {
			return nil, err
		}
		rec = updated
	}
	branches, err := s.git.ListBranches(ctx, path)
	if err != nil {
		return nil, err
	}
	if len(branches) > 0 {
		updates := make([]git.RefUpdate, len(branches))
		for i, b := range branches {
			updates[i] = git.RefUpdate{Name: "refs/heads/" + b.Name, OldSHA: git.ZeroSHA, NewSHA: b.Commit.SHA}
		}
		if err := s.syncer.Apply(ctx, rec, caller.ID(), updates); err != nil {
			return nil, err
		}
	}
	m.synced = time.Now().Unix()
	if m.mirror {
		err := s.store.CreateMirror(ctx, &store.Mirror{
			RepoID:        rec.ID,
			IntervalSecs:  int64(m.interval / time.Second),
			RemoteAddress: rec.OriginalURL,
			RemoteSealed:  s.box.Seal([]byte(m.remote.String())),
			UpdatedUnix:   m.synced,
		})
		if err != nil {
			return nil, err
		}
	}
	return s.store.RepositoryByID(ctx, rec.ID)
}
