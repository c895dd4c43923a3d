// Package app wires forge together by explicit constructors: store,
// authentication, gRPC services, the in-process channel and the REST
// gateway. `forge serve` and the integration tests both start it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fullstorydev/grpchan/inprocgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/proto"

	"forge/gateway"
	"forge/gateway/apidocs"
	"forge/gateway/giteajson"
	"forge/services/access"
	"forge/services/accesslog"
	"forge/services/area"
	"forge/services/area/all"
	"forge/services/attachments"
	"forge/services/auth"
	"forge/services/blob"
	"forge/services/config"
	"forge/services/cron"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/githost"
	"forge/services/issues"
	"forge/services/ldapauth"
	"forge/services/metrics"
	"forge/services/mirrors"
	"forge/services/misc"
	"forge/services/notify"
	"forge/services/paging"
	"forge/services/protection"
	"forge/services/pulls"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/rpcerr"
	"forge/services/secretbox"
	"forge/services/sshd"
	"forge/services/store"
	"forge/services/users"
	"forge/services/validate"
	"forge/services/webhooks"
)

// App is a configured forge instance.
type App struct {
	cfg     *config.Config
	Store   *store.Store
	Git     *git.Store
	Mirrors *mirrors.Server // migrations, mirrors and their scheduler
	// Attachments serves stored files; its Sweep runs with the others.
	Attachments *attachments.Server
	// PullUpdates edits pull requests and runs the refresher that keeps
	// open ones in step with their branches.
	PullUpdates *pulls.EditServer
	// PullMerges merges pull requests and runs the scheduled merges.
	PullMerges *pulls.MergeServer
	checker    *access.Checker
	syncer     *repos.Syncer
	authn      *auth.Authenticator
	usage      *auth.UsageRecorder
	grpc       *grpc.Server
	handler    http.Handler
	// notifier fans the activity queue out into notification threads.
	notifier *notify.Worker
	// cron runs the scheduled tasks (tasks), which the admin area lists
	// and starts.
	cron *cron.Registry
	// webhooks renders queued webhook events and delivers them.
	webhooks *webhooks.Worker
	// sources are the LDAP login sources: sign-in, and the synchronization
	// of their users (sync_external_users).
	sources *ldapauth.Sources

	// policies is the per-method table the areas declare in their protos
	// (Policies).
	policies auth.Policies

	// sshd is the built-in SSH server for git ([server] START_SSH_SERVER),
	// nil when off; sshLn its listener, opened by New so that its address
	// (SSHAddr) is known before Serve, and served by Serve.
	sshd  *sshd.Server
	sshLn net.Listener

	// accessLog receives the access log's lines ([log]
	// ENABLE_ACCESS_LOG); nil: slog's default. access records every
	// request (lines and metrics), metrics is /metrics' registry, nil when
	// [metrics] ENABLED is off.
	accessLog *slog.Logger
	access    *accesslog.Recorder
	metrics   *metrics.Metrics
	// refWatch stands in for the git store's ref watch in the answer
	// mark (WithRefWatch); nil: the git store's.
	refWatch func() (uint64, bool)
}

// Option adjusts New.
type Option func(*App)

// WithAccessLog sends the access log's lines to l (when [log]
// ENABLE_ACCESS_LOG is on) instead of slog's default logger.
func WithAccessLog(l *slog.Logger) Option { return func(a *App) { a.accessLog = l } }

// WithRefWatch makes the answer mark read this machine's ref moves from
// watch instead of the git store's watch. A watch that never moves runs
// forge as a process on another machine would see this one's ref moves:
// only through the database. Tests use it.
func WithRefWatch(watch func() (uint64, bool)) Option { return func(a *App) { a.refWatch = watch } }

// New opens and migrates the database and builds every component.
func New(ctx context.Context, cfg *config.Config, opts ...Option) (*App, error) {
	if err := cfg.EnsureSecretKey(); err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, Store: st}
	for _, o := range opts {
		o(a)
	}
	if err := a.build(); err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

// OpenStore opens the configured database, applies pending migrations and
// declares the tables the areas own (so deletes clear them).
func OpenStore(ctx context.Context, cfg *config.Config) (*store.Store, error) {
	st, err := store.Open(cfg.Database)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	owned, err := all.Owned()
	if err == nil {
		err = st.Own(ctx, owned)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// NewTOTP builds the TOTP helper from SECRET_KEY.
func NewTOTP(cfg *config.Config) (*auth.TOTP, error) {
	box, err := secretbox.New(cfg.Security.SecretKey, "totp")
	if err != nil {
		return nil, err
	}
	return auth.NewTOTP(box, "forge"), nil
}

func (a *App) build() error {
	cfg := a.cfg
	limits := paging.Limits{Default: cfg.API.DefaultPagingNum, Max: cfg.API.MaxResponseItems}
	totp, err := NewTOTP(cfg)
	if err != nil {
		return err
	}

	gitStore, err := git.New(cfg.Repository.Root)
	if err != nil {
		return fmt.Errorf("repository root: %w", err)
	}
	gitStore.LimitProcesses(cfg.Limits.GitMaxProcesses)
	gitStore.SetArchiveCache(filepath.Join(cfg.Server.AppDataPath, "archives"), 0)
	// Every ref move of this process's git commands moves the database's
	// commit count before the write is acknowledged, so forge processes on
	// other machines, which do not see it, stop replaying answers read
	// from git (docs/scale-out.md). A failure leaves it to the reconciler,
	// which counts again before it forgets the journal's entries.
	gitStore.ReportRefMoves(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := a.Store.CountRefMove(ctx); err != nil {
			slog.Warn("count a ref move", "err", err)
		}
	})
	a.Git = gitStore
	blobDir := cfg.Attachment.Path
	if blobDir == "" {
		blobDir = filepath.Join(cfg.Server.AppDataPath, "attachments")
	}
	blobs, err := blob.NewLocal(blobDir)
	if err != nil {
		return fmt.Errorf("attachment path: %w", err)
	}
	checker := access.NewChecker(a.Store).WithMaxCreationLimit(cfg.Repository.MaxCreationLimit).
		WithDisableRegularOrgCreation(cfg.Admin.DisableRegularOrgCreation).
		WithCrossRepositoryDependencies(cfg.Service.AllowCrossRepositoryDependencies).
		WithTimeTracking(cfg.TimeTracking.Enabled && cfg.TimeTracking.DefaultEnabled, cfg.TimeTracking.DefaultContributorsOnly)
	syncer := &repos.Syncer{Store: a.Store, Git: gitStore}
	a.syncer, a.checker = syncer, checker
	a.cron = cron.New()

	// Every area's services get their implementations from the area's
	// constructor in the one list (package all); area.Bind pairs them by
	// the service interface they implement and fails on a gap.
	impls, err := all.Servers(all.Deps{Config: cfg, Store: a.Store, Git: gitStore, Blobs: blobs,
		Access: checker, Syncer: syncer, TOTP: totp, Paging: limits, Cron: a.cron})
	if err != nil {
		return err
	}
	register, err := area.Bind(all.Areas, impls...)
	if err != nil {
		return err
	}
	// The server drives two areas' background work: the mirror scheduler
	// and the sweep of orphaned attachment files.
	if a.Mirrors, err = implementation[*mirrors.Server](impls); err != nil {
		return err
	}
	if a.Attachments, err = implementation[*attachments.Server](impls); err != nil {
		return err
	}
	if a.PullUpdates, err = implementation[*pulls.EditServer](impls); err != nil {
		return err
	}
	if a.PullMerges, err = implementation[*pulls.MergeServer](impls); err != nil {
		return err
	}
	a.sweep(context.Background()) // debris of a previous run that was killed

	// Each method declares its policy in its proto; the areas' declarations
	// are read here, and the interceptor refuses any method without one.
	policies, err := area.Policies(all.Areas)
	if err != nil {
		return err
	}
	a.policies = policies
	a.usage = auth.NewUsageRecorder(a.Store, 10*time.Second)
	// The interceptor resolves the repository a policy declares through the
	// checker (visibility, level, read-only states) before any handler runs.
	// Users of a login source (LDAP) sign in through it (services/ldapauth).
	sources, err := ldapauth.New(a.Store, cfg.Security.SecretKey)
	if err != nil {
		return err
	}
	a.sources = sources
	authn := auth.NewAuthenticator(cfg, a.Store, policies, a.usage, totp).WithResources(checker).WithExternal(sources)
	a.authn = authn

	// Activity recorded by this process wakes the notifier at once; what
	// other processes record is found by its poll.
	a.notifier = notify.NewWorker(a.Store, notify.PollInterval)
	a.Store.OnActivity(a.notifier.Kick)
	if a.webhooks, err = newWebhookWorker(cfg, a.Store, gitStore, checker); err != nil {
		return err
	}
	// Whatever queues a webhook event or delivery in this process wakes
	// the worker (a change nobody's hook hears of does not).
	a.Store.OnHookEvent(a.webhooks.Kick)
	if err := a.tasks(); err != nil {
		return err
	}

	// One interceptor chain, used by both transports. rpcerr, outermost,
	// is the one translator of errors to statuses.
	// Field rules (validate) after authorization: a caller who may not
	// call learns nothing from a 422, as with Gitea's binding after its
	// access middlewares.
	unary := []grpc.UnaryServerInterceptor{rpcerr.Unary, recoverUnary, authn.Unary, validate.Unary}
	stream := []grpc.StreamServerInterceptor{rpcerr.Stream, recoverStream, authn.Stream, validate.Stream}
	if err := a.observe(); err != nil {
		return err
	}
	// The access log and the metrics, outermost, see the status the
	// client gets.
	if a.access != nil {
		unary = append([]grpc.UnaryServerInterceptor{a.access.Unary}, unary...)
		stream = append([]grpc.StreamServerInterceptor{a.access.Stream}, stream...)
	}

	tapHandle := tap.ServerInHandle(authn.Tap)
	if a.access != nil {
		tapHandle = a.access.Tap(tapHandle, func(m string) bool { _, ok := policies[m]; return ok })
	}
	a.grpc = grpc.NewServer(grpc.ChainUnaryInterceptor(unary...), grpc.ChainStreamInterceptor(stream...),
		grpc.MaxRecvMsgSize(cfg.Limits.MaxRequestBodySize), grpc.InTapHandle(tapHandle))
	register(a.grpc)
	reflection.Register(a.grpc)

	inproc := new(inprocgrpc.Channel).
		WithCloner(shallowCloner{}).
		WithServerUnaryInterceptor(chainUnary(unary)).
		WithServerStreamInterceptor(chainStream(stream))
	register(inproc)

	gitHost := githost.New(authn, gitStore, syncer).WithGuard(protection.NewService(a.Store))
	// git over SSH goes through the same githost sessions as git over
	// HTTP: one authorization, one push processing.
	if ssh := cfg.Server.SSH; ssh.Start {
		a.sshd, err = sshd.New(sshd.Options{HostKeyDir: filepath.Join(cfg.Server.AppDataPath, "ssh"), Store: a.Store, Git: gitHost,
			Access: a.access})
		if err != nil {
			return err
		}
		a.sshLn, err = net.Listen("tcp", net.JoinHostPort(ssh.ListenHost, strconv.Itoa(ssh.ListenPort)))
		if err != nil {
			return fmt.Errorf("ssh listener: %w", err)
		}
	}
	refWatch := gitStore.RefMoves
	if a.refWatch != nil {
		refWatch = a.refWatch
	}
	h, err := gateway.NewHandler(gateway.Options{
		Git: gateway.NewGitHandler(gitHost, gateway.GitOptions{RootURL: cfg.Server.RootURL,
			ReverseProxyHeader: cfg.Security.ReverseProxyAuthUser, ProgressTimeout: seconds(cfg.Limits.GitProgressTimeout)}),
		RootURL:            cfg.Server.RootURL,
		Limits:             limits,
		ReverseProxyHeader: cfg.Security.ReverseProxyAuthUser,
		Swagger:            apidocs.Swagger,
		Version:            misc.ReportedVersion(),
		MaxBodySize:        int64(cfg.Limits.MaxRequestBodySize),
		UploadMaxSize:      int64(max(cfg.Attachment.MaxSize, cfg.Attachment.ReleaseMaxSize)) << 20,
		ReadTimeout:        seconds(cfg.Limits.APIReadTimeout),
		Preflight:          authn.Preflight,
		Answers: gateway.AnswerCache{MaxBytes: int64(cfg.API.AnswerCacheSize), Caller: authn.ReplayCaller,
			Mark: func(ctx context.Context) (gateway.AnswerMark, bool) {
				refs, watched := refWatch()
				if count, ok := a.Store.CommitCount(ctx); ok {
					// PostgreSQL: the ref moves of other machines move the
					// count (ReportRefMoves above).
					return gateway.AnswerMark{CommitCount: count, RefMoves: refs, RefsWatched: watched}, true
				}
				commits, ok := a.Store.CommitMark(ctx)
				return gateway.AnswerMark{Commits: commits, RefMoves: refs, RefsWatched: watched}, ok
			}},
		Services: area.Gateways(all.Areas),
	}, inproc)
	if err != nil {
		return err
	}
	if a.metrics != nil {
		h = withMetrics(h, a.metrics.Handler(cfg.Metrics.Token))
	}
	if a.access != nil {
		h = a.access.Handler(h)
	}
	a.handler = h
	return nil
}

// Handler is the HTTP handler (REST API, git, health).
func (a *App) Handler() http.Handler { return a.handler }

// Policies is the merged per-method policy table.
func (a *App) Policies() auth.Policies { return a.policies }

// GRPCServer is the gRPC server.
func (a *App) GRPCServer() *grpc.Server { return a.grpc }

// Authenticator is the interceptor both transports share.
func (a *App) Authenticator() *auth.Authenticator { return a.authn }

// SSHAddr is the address the built-in SSH server listens on ("" when it
// is off): with [server] SSH_LISTEN_PORT = 0, the port picked.
func (a *App) SSHAddr() string {
	if a.sshLn == nil {
		return ""
	}
	return a.sshLn.Addr().String()
}

// Serve serves HTTP on httpLn and gRPC on grpcLn (and SSH, when on, on
// the listener New opened) until ctx is done, then shuts them down
// gracefully.
func (a *App) Serve(ctx context.Context, httpLn, grpcLn net.Listener) error {
	// No server-wide ReadTimeout or WriteTimeout: git transfers may
	// rightly take long. API bodies get a per-request read deadline and
	// git transfers a progress deadline (see gateway).
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout: seconds(a.cfg.Limits.IdleTimeout)}
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(httpLn) }()
	go func() { errc <- a.grpc.Serve(grpcLn) }()
	sshCtx, stopSSH := context.WithCancel(ctx)
	defer stopSSH()
	sshDone := make(chan struct{})
	if a.sshd != nil {
		go func() {
			if err := a.sshd.Serve(sshCtx, a.sshLn); err != nil {
				errc <- err
			}
			close(sshDone)
		}()
	} else {
		close(sshDone)
	}
	// Background work's statements are not a request's
	// (Store.QueryCount).
	schedCtx, stopSched := context.WithCancel(store.Background(ctx))
	// The scheduled tasks (tasks): mirror syncs, sweeps, the branch
	// reconciler, the notifier, webhook delivery.
	cronDone := make(chan struct{})
	go func() { a.cron.Run(schedCtx); close(cronDone) }()
	// Open pull requests follow their branches: at start-up those a
	// previous run left behind, then each recorded ref change.
	refreshDone := make(chan struct{})
	go func() { a.PullUpdates.RunRefresher(schedCtx); close(refreshDone) }()
	// Scheduled merges run when their checks pass: at start-up those
	// waiting already, then on each status, review and refresh.
	autoMergeDone := make(chan struct{})
	go func() { a.PullMerges.RunAutoMerger(schedCtx); close(autoMergeDone) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	drained := srv.Shutdown(shutdown) == nil
	a.grpc.GracefulStop()
	stopSSH()
	<-sshDone
	a.Git.StopHousekeeping() // no git left running in the data directory
	stopSched()
	<-cronDone
	a.webhooks.Wait() // deliveries the task deliver_webhooks started
	<-refreshDone
	<-autoMergeDone
	if drained {
		slog.Info("forge stopped: requests in flight, git transfers, scheduled tasks and webhook deliveries finished")
	} else {
		slog.Warn("forge stopped: HTTP requests still running after 10 s were cut off; scheduled tasks and webhook deliveries finished")
	}
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) {
		err = nil
	}
	return err
}

// tasks registers the server's scheduled work with its registry, under
// Gitea's task names where Gitea has the task.
func (a *App) tasks() error {
	for _, t := range []cron.Task{
		// Due pull mirrors, at start-up and then every minute (each mirror
		// has its own interval; a round syncs those that are due).
		{Name: "update_mirrors", Every: time.Minute, AtStart: true, Do: a.Mirrors.SyncDue},
		// Branch records converge to git's refs: at start-up (after a
		// crash), every few seconds, and after any failed record write.
		{Name: "reconcile_branches", Every: repos.ReconcileInterval, AtStart: true,
			Wake: a.syncer.Woken(), MaxBackoff: repos.MaxReconcileBackoff, Do: a.syncer.Reconcile},
		// Debris of killed operations (also removed at start-up, in build).
		{Name: "delete_orphaned_attachments", Every: sweepEvery, Do: a.sweepAttachments},
		{Name: "delete_scratch_files", Every: sweepEvery, Do: a.sweepScratch},
		// refs/pull/N/head of pull requests a crash cut short: at start-up
		// and with the other sweeps.
		{Name: "delete_stray_pull_refs", Every: sweepEvery, AtStart: true, Do: a.sweepPullRefs},
		// The notifier delivers what the previous run left queued, then
		// keeps up with new activity: woken by this process's inserts,
		// polling for the other processes'.
		{Name: "deliver_notifications", Every: a.notifier.Poll(), AtStart: true, Wake: a.notifier.Woken(), Do: a.notifier.Round},
		// The users of LDAP sources with synchronize-users on follow their
		// directories: daily, not at start-up (Gitea's defaults).
		{Name: "sync_external_users", Every: 24 * time.Hour, Do: a.sources.SyncUsers},
		// Webhook delivery the same way: what the previous run left
		// queued, then each event this process queues and each freed
		// delivery slot; polling for retries that came due and the other
		// processes' events. A round only claims and dispatches: the
		// deliveries run in the worker's pool, so a slow receiver never
		// holds the registry. A manual run also sends the pending retries
		// now.
		{Name: "deliver_webhooks", Every: a.webhooks.Poll(), AtStart: true, Wake: a.webhooks.Woken(), Do: a.webhooks.Round},
	} {
		if err := a.cron.Add(t); err != nil {
			return err
		}
	}
	return nil
}

// implementation finds the implementation of type T among impls.
func implementation[T any](impls []any) (T, error) {
	for _, impl := range impls {
		if t, ok := impl.(T); ok {
			return t, nil
		}
	}
	var none T
	return none, fmt.Errorf("no %T among the areas' implementations", none)
}

// Close flushes pending token usage and closes the database.
func (a *App) Close() error {
	if a.sshLn != nil {
		a.sshLn.Close() // when Serve never ran
	}
	a.Mirrors.Close()
	return errors.Join(a.usage.Close(), a.Store.Close())
}

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// recoverUnary turns a handler's panic into an Internal error, which
// rpcerr (outside it in the chain) logs with the panic and answers 500.
func recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(info.FullMethod, r)
		}
	}()
	return handler(ctx, req)
}

func recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(info.FullMethod, r)
		}
	}()
	return handler(srv, ss)
}

func panicError(method string, r any) error {
	return errs.Wrap(fmt.Errorf("panic in handler: %v", r), method)
}

// newWebhookWorker builds the webhook delivery worker: payloads rendered
// with the areas' renderers and written as Gitea's JSON, [webhook]
// settings for the connections.
func newWebhookWorker(cfg *config.Config, st *store.Store, g *git.Store, checker *access.Checker) (*webhooks.Worker, error) {
	root := cfg.Server.RootURL
	u := users.Renderer{RootURL: root, Domain: cfg.Server.Domain()}
	rr := repos.Renderer{RootURL: root, Users: u}
	ir := issues.NewRenderer(st, u, root)
	enc := giteajson.New(nil) // local time, as the API answers
	return webhooks.NewWorker(webhooks.WorkerOptions{
		Store: st,
		Render: &webhooks.Renderers{Store: st, Git: g, RootURL: root, Users: u, Repos: rr, Issues: ir,
			Pulls:    pulls.NewRenderer(pulls.Options{Store: st, Git: g, Access: checker, Users: u, Repos: rr, Labels: ir, RootURL: root}),
			Releases: releases.NewRenderer(u, root)},
		Marshal:       func(m proto.Message) ([]byte, error) { return enc.Marshal(m) },
		SecretKey:     cfg.Security.SecretKey,
		Hosts:         webhooks.ParseHostList(cfg.Webhook.AllowedHostList),
		Timeout:       seconds(cfg.Webhook.DeliverTimeout),
		SkipTLSVerify: cfg.Webhook.SkipTLSVerify,
		Workers:       cfg.Webhook.Workers,
		Disabled:      cfg.Webhook.Disabled,
	})
}
