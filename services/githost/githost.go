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
	"google.golang.org/protobuf/proto"

	githostv1 "forge/gen/forge/githost/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/protection"
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
	authn *auth.Authenticator
	git   *git.Store
	sync  *repos.Syncer
	guard Guard
}

// Guard gives the pre-receive check of a push by uid (branch protection),
// nil when the repository has nothing to check.
type Guard interface {
	PushCheck(ctx context.Context, g protection.Git, repoID, ownerID int64, org bool, uid int64) (git.PreReceiveFunc, error)
	// DeployKeyPushCheck is PushCheck for a deploy key's push (SSH).
	DeployKeyPushCheck(ctx context.Context, g protection.Git, repoID, ownerID int64, org bool) (git.PreReceiveFunc, error)
}

// WithGuard checks every push with g.
func (s *Service) WithGuard(g Guard) *Service {
	s.guard = g
	return s
}

// New serves git over authn, the interceptor's authenticator, whose
// policy table holds forge.githost.v1's (Area).
func New(authn *auth.Authenticator, g *git.Store, sy *repos.Syncer) *Service {
	return &Service{authn: authn, git: g, sync: sy}
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
// REST gateway passes them) and authorizes service on owner/name with the
// policy forge.githost.v1 declares for it (a fetch: read on the code unit,
// a push: a signed-in caller with write there, not on a read-only
// repository, and a token's repository scope at that level), through the
// interceptor's own check, so git and the API meet one rule. Errors are
// domain errors in git's words where git needs them: an anonymous caller
// who may not see the repository is asked for credentials (401), a
// missing or hidden repository is Gitea's "Repository not found".
func (s *Service) Open(ctx context.Context, md metadata.MD, owner, name string, service git.Service) (*Session, error) {
	method, req := fetchMethod, proto.Message(&githostv1.UploadPackRequest{Owner: owner, Repo: name})
	if service == git.ServiceReceivePack {
		method, req = pushMethod, &githostv1.ReceivePackRequest{Owner: owner, Repo: name}
	}
	ctx, caller, err := s.authn.Authorize(metadata.NewIncomingContext(ctx, md), method, req)
	return s.open(ctx, caller, service, err)
}

// OpenAs is Open for a caller another transport signed in (SSH: the
// owner of a user's key, or a deploy key's principal), through the same
// policy and resource check.
func (s *Service) OpenAs(ctx context.Context, caller *auth.Principal, owner, name string, service git.Service) (*Session, error) {
	method, req := fetchMethod, proto.Message(&githostv1.UploadPackRequest{Owner: owner, Repo: name})
	if service == git.ServiceReceivePack {
		method, req = pushMethod, &githostv1.ReceivePackRequest{Owner: owner, Repo: name}
	}
	ctx, err := s.authn.AuthorizeAs(ctx, caller, method, req)
	return s.open(ctx, caller, service, err)
}

// open finishes Open and OpenAs: git's words for a refusal, the session
// for a granted call.
func (s *Service) open(ctx context.Context, caller *auth.Principal, service git.Service, err error) (*Session, error) {
	if err != nil {
		var otp *auth.OTPError
		switch {
		case errors.As(err, &otp):
			return nil, errs.New(errs.Unauthenticated, OTPMessage)
		case errs.KindOf(err) == errs.NotFound && caller == nil:
			// Anonymous: the repository may be private; ask for credentials.
			return nil, errAuthRequired
		case errs.KindOf(err) == errs.NotFound:
			return nil, errRepoNotFound
		}
		return nil, err
	}
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return nil, errRepoNotFound
	}
	return &Session{svc: s, repo: r, path: path, service: service, caller: caller}, nil
}

// AdvertiseRefs writes the info/refs answer.
func (ss *Session) AdvertiseRefs(ctx context.Context, gitProtocol string, w io.Writer) error {
	return ss.svc.git.AdvertiseRefs(ctx, ss.path, ss.service, gitProtocol, w)
}

// Run serves the upload-pack or receive-pack request, streaming body in and
// the result out. After a push it records the changed branches before
// returning, so the API shows the push immediately.
func (ss *Session) Run(ctx context.Context, body io.Reader, w io.Writer, gitProtocol string) error {
	return ss.run(ctx, body, w, gitProtocol, false)
}

// RunDuplex is Run over a full-duplex connection (SSH): git advertises
// the refs and converses over in and out itself. A push goes through the
// same checks and records as over HTTP.
func (ss *Session) RunDuplex(ctx context.Context, in io.Reader, out io.Writer, gitProtocol string) error {
	return ss.run(ctx, in, out, gitProtocol, true)
}

func (ss *Session) run(ctx context.Context, body io.Reader, w io.Writer, gitProtocol string, duplex bool) error {
	if ss.service == git.ServiceUploadPack {
		if duplex {
			return ss.svc.git.UploadPackDuplex(ctx, ss.path, body, w, gitProtocol)
		}
		return ss.svc.git.UploadPack(ctx, ss.path, body, w, gitProtocol)
	}
	var check git.PreReceiveFunc
	if ss.svc.guard != nil {
		var err error
		org := ss.repo.Owner.Type == store.UserTypeOrganization
		if ss.caller.Deploy != nil {
			check, err = ss.svc.guard.DeployKeyPushCheck(ctx, ss.svc.git, ss.repo.ID, ss.repo.OwnerID, org)
		} else {
			check, err = ss.svc.guard.PushCheck(ctx, ss.svc.git, ss.repo.ID, ss.repo.OwnerID, org, ss.caller.ID())
		}
		if err != nil {
			return err
		}
	}
	receive := ss.svc.git.ReceivePackChecked
	if duplex {
		receive = ss.svc.git.ReceivePackDuplex
	}
	updates, err := receive(ctx, ss.path, body, w, gitProtocol, check)
	if err != nil {
		return err
	}
	if len(updates) == 0 {
		return nil
	}
	if err := ss.svc.sync.Apply(context.WithoutCancel(ctx), ss.repo.Repository, ss.pusher(), updates); err != nil {
		// The push itself succeeded and git journaled its refs: the
		// reconciler (woken by Apply) records them once the database answers.
		slog.Error("record pushed branches", "repo", ss.repo.ID, "err", err)
	}
	// Off the request: pack the refs the push left loose (and gc), so the
	// next push's connectivity check stays cheap with many branches.
	ss.svc.git.HousekeepLater(ss.path)
	return nil
}

// pusher is who the push is recorded as: the caller, or for a deploy key
// the repository's owner, as Gitea.
func (ss *Session) pusher() int64 {
	if ss.caller.Deploy != nil {
		return ss.repo.OwnerID
	}
	return ss.caller.ID()
}
