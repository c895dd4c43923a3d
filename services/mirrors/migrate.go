package mirrors

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	mirrorsv1 "forge/gen/forge/mirrors/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/repos"
	"forge/services/store"
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
// request, as Gitea's does, and is all or nothing (see migrate).
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
	m := &migration{name: req.GetRepoName(), mirror: req.GetMirror(), private: req.GetPrivate(), desc: req.GetDescription()}
	if m.mirror {
		m.interval = DefaultInterval
		if v := req.GetMirrorInterval(); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, errs.Newf(errs.Invalid, "[MirrorInterval]: invalid duration %q", v)
			}
			if d != 0 && d < MinInterval {
				return nil, errs.Newf(errs.Invalid, "[MirrorInterval]: interval %s is below the minimum interval of %s", d, MinInterval)
			}
			m.interval = d
		}
	}
	// The policy's rule migration-owner loaded the account migrated into
	// and allowed the caller to create there.
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	m.owner = on.User
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
		return nil, errs.New(errs.Invalid, "Invalid clone address: only http://, https:// and git:// URLs are allowed")
	}
	target, err := s.hosts.remote(ctx, remote)
	if err != nil {
		return nil, hostError(err)
	}
	m.remote, m.target = remote, target
	return m, nil
}

// migrate clones the source into scratch space and then records the
// repository (its branches and, for a mirror, its mirror state) and puts
// the clone in place in one step, all or nothing (repos.CreateStaged).
func (s *Server) migrate(ctx context.Context, m *migration, caller *auth.Principal) (*store.Repository, error) {
	path, err := s.git.RepoPath(m.owner.Name, m.name)
	if err != nil {
		return nil, errs.New(errs.Invalid, "[RepoName]: invalid repository name")
	}
	limit := s.access.RepoLimit(m.owner, caller)
	// Refuse a taken name or an owner at their limit before the clone,
	// which may be long; CreateStaged decides for good.
	if err := repos.CheckCreatable(ctx, s.store, m.owner.ID, m.name, limit); err != nil {
		return nil, err
	}
	rec := repos.NewRecord(m.owner, m.name, m.desc, "main", m.private)
	rec.IsMirror = m.mirror
	rec.OriginalURL = git.RedactURL(m.remote.String())
	staged, err := s.stageClone(ctx, m)
	if err != nil {
		return nil, err
	}
	n := store.NewRepository{Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Limit: limit}
	err = repos.CreateStaged(ctx, s.git, s.store, staged, path, n, func(n *store.NewRepository) error {
		if err := s.describeClone(ctx, m, staged, n); err != nil {
			return errs.Wrap(errors.New(redact(err.Error(), m.remote)), "describe clone")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// stageClone clones the source into scratch space (see
// git.Store.CloneStaged). A pull mirror keeps the source as its origin
// remote, to fetch from. Any other migration must not keep the remote
// (nor its credentials) in the repository's configuration, so it is
// cloned to a second scratch repository first and pushed into a fresh one.
func (s *Server) stageClone(ctx context.Context, m *migration) (string, error) {
	if m.mirror || m.remote.User == nil {
		staged, err := s.git.CloneStaged(ctx, m.target)
		return staged, s.cloneError(ctx, err, m)
	}
	scratch, err := s.git.CloneStaged(ctx, m.target)
	if err != nil {
		return "", s.cloneError(ctx, err, m)
	}
	defer s.git.Discard(scratch)
	branch, err := s.git.DefaultBranch(ctx, scratch)
	if err != nil || !git.ValidRefName(branch) {
		branch = "main"
	}
	staged, err := s.git.InitStaged(ctx, branch)
	if err != nil {
		return "", errs.Wrap(err, "stage repository")
	}
	empty, err := s.git.IsEmpty(ctx, scratch)
	if err == nil && !empty { // an empty source has nothing to copy (and git push --mirror would fail)
		err = s.git.PushMirror(ctx, scratch, git.Remote{URL: staged})
	}
	if err != nil {
		s.git.Discard(staged)
		return "", errs.Wrap(errors.New(redact(err.Error(), m.remote)), "copy clone")
	}
	return staged, nil
}

// cloneError maps a failed clone to Gitea's answers, with credentials and
// local paths removed from git's message.
func (s *Server) cloneError(ctx context.Context, err error, m *migration) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr // rpcerr answers it with its own code
	}
	text := err.Error()
	var ge *git.Error
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
		text = strings.TrimSpace(ge.Stderr)
	}
	text = redact(strings.ReplaceAll(text, git.StagedPlaceholder, m.owner.Name+"/"+m.name), m.remote)
	if strings.Contains(text, "Authentication failed") || strings.Contains(text, "could not read Username") {
		return errs.New(errs.Invalid, "Authentication failed: "+text)
	}
	return errs.New(errs.Invalid, "Migration failed: "+text)
}

// describeClone completes n from the staged clone: the default branch
// (the source's, when it is a branch the clone has), the branch records
// and, for a mirror, the mirror state.
func (s *Server) describeClone(ctx context.Context, m *migration, staged string, n *store.NewRepository) error {
	rec := n.Repo
	if branch, err := s.git.DefaultBranch(ctx, staged); err == nil && git.ValidRefName(branch) {
		rec.DefaultBranch = branch
	}
	branches, err := s.git.ListBranches(ctx, staged)
	if err != nil {
		return err
	}
	if len(branches) > 0 && !slices.ContainsFunc(branches, func(b git.Branch) bool { return b.Name == rec.DefaultBranch }) {
		// HEAD names a branch the source does not have: the first branch
		// becomes the default, as after a first push.
		rec.DefaultBranch = branches[0].Name
		if err := s.git.SetDefaultBranch(ctx, staged, rec.DefaultBranch); err != nil {
			return err
		}
	}
	n.Branches = repos.BranchUpdates(branches)
	m.synced = time.Now().Unix()
	if m.mirror {
		n.Mirror = &store.Mirror{
			IntervalSecs:  int64(m.interval / time.Second),
			RemoteAddress: rec.OriginalURL,
			RemoteSealed:  s.box.Seal([]byte(m.remote.String())),
			UpdatedUnix:   m.synced,
		}
	}
	return nil
}
