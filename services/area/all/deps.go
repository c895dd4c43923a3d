package all

import (
	"context"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/blob"
	"forge/services/code"
	"forge/services/config"
	"forge/services/cron"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/protection"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// Deps is what the areas' constructors take: the settings, the database
// and the components the server builds once and shares with its own
// machinery (the authenticator, the git host, the reconciler, the sweeps).
type Deps struct {
	Config *config.Config
	// Store is the database; each constructor takes it as its area's
	// narrow Store interface.
	Store  *store.Store
	Git    *git.Store
	Blobs  blob.Store
	Access *access.Checker
	// Syncer records ref changes; the mirrors area hooks its push
	// mirrors onto it (OnChange).
	Syncer *repos.Syncer
	TOTP   *auth.TOTP
	Paging paging.Limits
	// Cron is the registry of the server's scheduled tasks, which the
	// admin area lists and starts (nil: none).
	Cron *cron.Registry
	// events passes notices between areas (set by Servers).
	events *events
}

// events are the hooks by which one area tells another that something
// happened, where the teller is built before the listener: each area's
// constructor adds its listeners, and the tellers call them at run time.
type events struct {
	// checksChanged: a repository's merge checks may pass now (a commit
	// status created, a review submitted).
	checksChanged []func(ctx context.Context, repoID int64)
}

// checks tells the listeners of checksChanged.
func (e *events) checks(ctx context.Context, repoID int64) {
	for _, f := range e.checksChanged {
		f(ctx, repoID)
	}
}

// users renders accounts.
func (d Deps) users() users.Renderer {
	r := users.Renderer{RootURL: d.Config.Server.RootURL, Domain: d.Config.Server.Domain(), Gravatar: !d.Config.Picture.DisableGravatar}
	if d.Store != nil {
		r.Counts = d.Store
	}
	return r
}

// repos renders repositories.
func (d Deps) repos() repos.Renderer {
	tt := d.Config.TimeTracking
	r := repos.Renderer{RootURL: d.Config.Server.RootURL, Users: d.users(),
		NoTimeTracker: !tt.Enabled || !tt.DefaultEnabled, AnyoneTracksTime: !tt.DefaultContributorsOnly}
	if ssh := d.Config.Server.SSH; ssh.Start {
		domain := ssh.Domain
		if domain == "" {
			domain = d.Config.Server.Domain()
		}
		r.SSH = &repos.SSHAddress{User: ssh.CloneUser(), Domain: domain, Port: ssh.Port}
	}
	return r
}

// repoService is the repositories' use cases, which the organizations
// area also calls (an organization's repositories). It holds no state.
func (d Deps) repoService() *repos.Service {
	return repos.NewService(d.Store, d.Git, d.Access)
}

// code is what the code area's servers are built from; the pull requests
// area renders its commits through the same commit server.
func (d Deps) code() code.Deps {
	return code.Deps{Store: d.Store, Git: d.Git, Sync: d.Syncer,
		Render: code.Renderer{RootURL: d.Config.Server.RootURL, Users: d.users()}, Limits: d.Paging,
		Protection: protection.NewService(d.Store)}
}
