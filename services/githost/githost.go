// Package githost decides who may fetch from and push to a repository over
// git's smart HTTP protocol, runs the git side, and records what a push
// changed. The gateway mounts it; the rules are here, beside the API's.
package githost

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"google.golang.org/grpc/metadata"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/repos"
	"forge/services/store"
)

// OTPMessage is the refusal for a TOTP-enrolled user who sends a password:
// git cannot send the one-time code, so such users push with a token.
const OTPMessage = "Users with two-factor authentication enabled cannot perform HTTP/HTTPS operations via plain username and password. Please create and use a personal access token on the user settings page"

// Gitea's git endpoint's refusals.
var (
	errAuthRequired = errs.New(errs.Unauthenticated, "authentication required")
	errRepoNotFound = errs.New(errs.NotFound, "Repository not found")
)

// Service serves git's smart HTTP protocol.
type Service struct {
	authn  *auth.Authenticator
	access *access.Checker
	git    *git.Store
	sync   *repos.Syncer
}

func New(authn *auth.Authenticator, c *access.Checker, g *git.Store, sy *repos.Syncer) *Service {
	return &Service{authn: authn, access: c, git: g, sync: sy}
}

// Session is an authorised git operation on one repository.
type Session struct {
	svc     *Service
	repo    *access.Repo
	path    string
	service git.Service
	caller  *auth.Principal
}

// Open authenticates the request (md carries the HTTP credentials as the
// REST gateway passes them) and checks access for service on owner/name.
// Errors are Unauthenticated (ask for credentials), NotFound or
// PermissionDenied; the endpoint answers them through rpcerr.HTTPStatusOf.
func (s *Service) Open(ctx context.Context, md metadata.MD, owner, name string, service git.Service) (*Session, error) {
	ctx = metadata.NewIncomingContext(ctx, md)
	caller, err := s.authn.Authenticate(ctx)
	if err != nil {
		var otp *auth.OTPError
		if errors.As(err, &otp) {
			return nil, errs.New(errs.Unauthenticated, OTPMessage)
		}
		return nil, err
	}
	write := service == git.ServiceReceivePack
	r, err := s.access.Resolve(ctx, owner, name, caller)
	if err != nil {
		notFound := errs.KindOf(err) == errs.NotFound
		if caller == nil && notFound {
			// Anonymous: the repository may be private; ask for credentials.
			return nil, errAuthRequired
		}
		if notFound {
			return nil, errRepoNotFound
		}
		return nil, err
	}
	if caller != nil && caller.Token != nil {
		level := auth.LevelRead
		if write {
			level = auth.LevelWrite
		}
		if !caller.Scopes.Has(auth.CategoryRepository, level) {
			return nil, errs.New(errs.PermissionDenied, "token does not have the required repository scope")
		}
	}
	if write && caller == nil {
		return nil, errAuthRequired
	}
	// The API's rule after resolution: the level (write for a push), then
	// the read-only states, which fetches do not meet.
	if err := access.Authorize(r, gitResource(write), gitWrites(write)); err != nil {
		return nil, err
	}
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return nil, errRepoNotFound
	}
	return &Session{svc: s, repo: r, path: path, service: service, caller: caller}, nil
}

// gitResource is what a fetch (read) or a push (write) needs, as a
// method's policy would declare it.
func gitResource(write bool) auth.Resource {
	need := store.AccessRead
	if write {
		need = store.AccessWrite
	}
	return auth.Resource{Kind: auth.RepositoryResource, Unit: auth.UnitCode, Need: need}
}

// gitWrites is what a push writes, for the read-only rule; a fetch
// writes nothing.
func gitWrites(write bool) auth.RepoWrite {
	if write {
		return access.WritesPush
	}
	return auth.WritesNothing
}

// AdvertiseRefs writes the info/refs answer.
func (ss *Session) AdvertiseRefs(ctx context.Context, gitProtocol string, w io.Writer) error {
	return ss.svc.git.AdvertiseRefs(ctx, ss.path, ss.service, gitProtocol, w)
}

// Run serves the upload-pack or receive-pack request, streaming body in and
// the result out. After a push it records the changed branches before
// returning, so the API shows the push immediately.
func (ss *Session) Run(ctx context.Context, body io.Reader, w io.Writer, gitProtocol string) error {
	if ss.service == git.ServiceUploadPack {
		return ss.svc.git.UploadPack(ctx, ss.path, body, w, gitProtocol)
	}
	updates, err := ss.svc.git.ReceivePack(ctx, ss.path, body, w, gitProtocol)
	if err != nil {
		return err
	}
	if len(updates) == 0 {
		return nil
	}
	if err := ss.svc.sync.Apply(context.WithoutCancel(ctx), ss.repo.Repository, ss.caller.ID(), updates); err != nil {
		// The push itself succeeded and git journaled its refs: the
		// reconciler (woken by Apply) records them once the database answers.
		slog.Error("record pushed branches", "repo", ss.repo.ID, "err", err)
	}
	return nil
}
