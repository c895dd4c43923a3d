// Package all lists every area forge serves, once, each with the
// constructor of its implementations. The server (cmd/forge/app) and the
// gateway's tests derive everything from this list, so an area added here
// is wired everywhere and one left out is wired nowhere.
//
// This package is wiring, like cmd: it is where the concrete database
// (*store.Store, in Deps) meets each area's narrow Store interface. The
// call to an area's constructor with d.Store is the compile-time check
// that the database implements that interface.
package all

import (
	"fmt"

	"forge/services/actions"
	"forge/services/admin"
	"forge/services/area"
	"forge/services/attachments"
	"forge/services/code"
	"forge/services/githost"
	"forge/services/issuedeps"
	"forge/services/issues"
	"forge/services/keys"
	"forge/services/labels"
	"forge/services/milestones"
	"forge/services/mirrors"
	"forge/services/misc"
	"forge/services/notify"
	"forge/services/orgs"
	"forge/services/protection"
	"forge/services/pulls"
	"forge/services/reactions"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/reviews"
	"forge/services/statuses"
	"forge/services/store"
	"forge/services/timetrack"
	"forge/services/tokens"
	"forge/services/users"
	"forge/services/watch"
	"forge/services/webhooks"
)

// entry is an area's declaration and the constructor of the
// implementations of its services (area.Bind pairs them).
type entry struct {
	area area.Area
	new  func(d Deps) ([]any, error)
}

// entries is the one list: every area, in registration order.
var entries = []entry{
	{misc.Area, func(d Deps) ([]any, error) {
		return serves(misc.NewServer(d.Paging, d.Config.Server.RootURL,
			misc.Settings{Reactions: d.Config.UI.Reactions, TimeTracking: d.Config.TimeTracking.Enabled}))
	}},
	{users.Area, func(d Deps) ([]any, error) {
		return serves(users.NewServer(d.Store, d.users(), d.Paging))
	}},
	{admin.Area, func(d Deps) ([]any, error) {
		var tasks admin.Tasks
		if d.Cron != nil {
			tasks = d.Cron
		}
		return serves(admin.NewServer(d.Store, d.users(), d.Paging, d.Config.Security.MinPasswordLength, d.TOTP,
			repos.Purger{Store: d.Store, Git: d.Git}).
			WithLists(orgs.Renderer{RootURL: d.Config.Server.RootURL, Users: d.users(), Repos: d.repos()}, tasks))
	}},
	{keys.Area, func(d Deps) ([]any, error) {
		ssh := d.Config.Server.SSH
		return serves(keys.NewServer(d.Store, keys.Rules{Check: ssh.MinimumKeySizeCheck, Sizes: ssh.MinimumKeySizes},
			d.users(), d.repos(), d.Config.Server.RootURL, d.Paging))
	}},
	{tokens.Area, func(d Deps) ([]any, error) {
		return serves(tokens.NewServer(d.Store, d.Paging))
	}},
	{repos.Area, func(d Deps) ([]any, error) {
		return serves(repos.NewServer(d.repoService(), d.repos(), d.Paging))
	}},
	{mirrors.Area, func(d Deps) ([]any, error) {
		m, err := mirrors.NewServer(mirrors.Options{Store: d.Store, Git: d.Git, Access: d.Access, Render: d.repos(), Syncer: d.Syncer,
			SecretKey: d.Config.Security.SecretKey, Limits: d.Paging, AllowLocalNetworks: d.Config.Migrations.AllowLocalNetworks})
		if err != nil {
			return nil, err
		}
		// Every recorded ref change (push, API edit, mirror fetch) reaches
		// the push mirrors that sync on commit.
		d.Syncer.OnChange = append(d.Syncer.OnChange, m.AfterPush)
		return serves(m)
	}},
	{releases.Area, func(d Deps) ([]any, error) {
		return serves(releases.NewServer(d.Store, d.Git, d.users(), d.Config.Server.RootURL, d.Paging).WithRecorder(d.Syncer).
			WithTagGuard(protection.NewService(d.Store)))
	}},
	{statuses.Area, func(d Deps) ([]any, error) {
		return serves(statuses.NewServer(d.Store, d.Git, d.repos(), d.Paging).OnCreated(d.events.checks))
	}},
	{watch.Area, func(d Deps) ([]any, error) {
		return serves(watch.NewServer(d.Store, d.Access, d.repos(), d.Paging))
	}},
	{code.Area, func(d Deps) ([]any, error) {
		return code.Servers(d.code()), nil
	}},
	{issues.Area, func(d Deps) ([]any, error) {
		return serves(issues.NewServer(d.Store, d.Access, d.users(), d.Config.Server.RootURL, d.Paging).WithMaxPinned(d.Config.Repository.MaxPinned),
			issues.NewTimelineServer(d.Store, d.users(), d.Config.Server.RootURL, d.Paging))
	}},
	{pulls.Area, func(d Deps) ([]any, error) {
		o := pulls.Options{Store: d.Store, Git: d.Git, Access: d.Access, Users: d.users(),
			Repos: d.repos(), Labels: issues.NewRenderer(d.Store, d.users(), d.Config.Server.RootURL),
			RootURL: d.Config.Server.RootURL, Limits: d.Paging, History: code.NewCommitServer(d.code())}
		// Every recorded ref change (push, API edit, mirror fetch) brings
		// the open pull requests of its branches up to date.
		refresher := pulls.NewRefresher(d.Store, d.Git)
		d.Syncer.OnChange = append(d.Syncer.OnChange, refresher.Changed)
		pullServer := pulls.NewServer(o)
		// Scheduled merges are tried when a status or a review comes, and
		// when the refresher recomputed the pull requests of a repository.
		merges := pulls.NewMergeServer(d.Store, d.Git, d.Syncer, protection.NewService(d.Store)).
			WithReviews(protection.NewReviews(d.Store, d.Access)).RetargetChildren(d.Config.Repository.RetargetChildrenOnMerge, refresher.Changed).
			WithAutoMerges(d.Store, d.Access)
		d.events.checksChanged = append(d.events.checksChanged, merges.AutoMerges().Changed)
		refresher.OnRefreshed(merges.AutoMerges().Changed)
		return serves(pullServer, pulls.NewEditServer(pulls.EditOptions{Options: o, Store: d.Store,
			Issues: issues.NewService(d.Store, d.Access, d.Paging), Refresher: refresher}),
			pulls.NewDiffServer(pulls.DiffOptions{Store: d.Store, Git: d.Git, RootURL: d.Config.Server.RootURL, Limits: d.Paging}),
			merges,
			pulls.NewUpdateServer(d.Store, d.Git, d.Syncer),
			pulls.NewByBranchServer(d.Store, pullServer))
	}},
	{reviews.Area, func(d Deps) ([]any, error) {
		// A rule's approvals whitelist decides who is official.
		officials := protection.NewReviews(d.Store, d.Access).Official
		return serves(reviews.NewServer(reviews.Options{Store: d.Store, Git: d.Git, Access: d.Access, Users: d.users(),
			Officials: officials,
			Teams:     orgs.Renderer{RootURL: d.Config.Server.RootURL, Users: d.users(), Repos: d.repos()},
			RootURL:   d.Config.Server.RootURL, Limits: d.Paging}).OnSubmitted(d.events.checks))
	}},
	{issuedeps.Area, func(d Deps) ([]any, error) {
		return serves(issuedeps.NewServer(issuedeps.NewService(d.Store),
			d.Store, issues.NewRenderer(d.Store, d.users(), d.Config.Server.RootURL), d.Paging))
	}},
	{reactions.Area, func(d Deps) ([]any, error) {
		return serves(reactions.NewServer(d.Store, d.Config.UI.Reactions, d.users(), d.Paging))
	}},
	{timetrack.Area, func(d Deps) ([]any, error) {
		return serves(timetrack.NewServer(d.Store, issues.NewRenderer(d.Store, d.users(), d.Config.Server.RootURL), d.Paging))
	}},
	{labels.Area, func(d Deps) ([]any, error) {
		return serves(labels.NewServer(d.Store, d.Config.Server.RootURL, d.Paging))
	}},
	{milestones.Area, func(d Deps) ([]any, error) {
		return serves(milestones.NewServer(d.Store, d.Paging))
	}},
	{orgs.Area, func(d Deps) ([]any, error) {
		svc := orgs.NewService(d.Store, d.Access, d.repoService())
		render := orgs.Renderer{RootURL: d.Config.Server.RootURL, Users: d.users(), Repos: d.repos()}
		return serves(orgs.NewServer(svc, render, d.Paging), orgs.NewTeamServer(svc, render, d.Paging))
	}},
	{attachments.Area, func(d Deps) ([]any, error) {
		cfg := d.Config.Attachment
		return serves(attachments.NewServer(attachments.Options{Store: d.Store, Blobs: d.Blobs, Access: d.Access,
			RootURL: d.Config.Server.RootURL, Paging: d.Paging, Limits: attachments.Limits{
				MaxBytes: int64(cfg.MaxSize) << 20, AllowedTypes: cfg.AllowedTypes,
				ReleaseMaxBytes: int64(cfg.ReleaseMaxSize) << 20, ReleaseAllowedTypes: cfg.ReleaseAllowedTypes,
			}}))
	}},
	{notify.Area, func(d Deps) ([]any, error) {
		return serves(notify.NewServer(d.Store, d.repos(), d.Paging))
	}},
	{protection.Area, func(d Deps) ([]any, error) {
		svc := protection.NewService(d.Store)
		return serves(protection.NewServer(svc), protection.NewTagServer(svc))
	}},
	{actions.Area, func(d Deps) ([]any, error) {
		svc, err := actions.NewService(d.Store, d.Config.Security.SecretKey, d.Paging)
		if err != nil {
			return nil, err
		}
		return serves(actions.NewServer(svc))
	}},
	{webhooks.Area, func(d Deps) ([]any, error) {
		svc, err := webhooks.NewService(d.Store, d.Config.Security.SecretKey, d.Paging, d.Config.Webhook.Disabled)
		if err != nil {
			return nil, err
		}
		return serves(webhooks.NewServer(svc))
	}},
	// git's smart HTTP: policies only (Area.Surfaces); the app builds the
	// git host on the authenticator and the gateway mounts it.
	{githost.Area, func(Deps) ([]any, error) { return serves() }},
}

// serves is a constructor's answer: the implementations it built.
func serves(impls ...any) ([]any, error) { return impls, nil }

// Areas lists every area forge serves, once. Policies, gRPC registration
// on both transports, REST registration and the tables deletes clear all
// come from this list (see package area and docs/adding-an-area.md).
var Areas = declarations(entries)

func declarations(list []entry) []area.Area {
	out := make([]area.Area, len(list))
	for i, e := range list {
		out[i] = e.area
	}
	return out
}

// Servers builds the implementations of every area's services, for
// area.Bind, in area order.
func Servers(d Deps) ([]any, error) {
	d.events = &events{}
	var out []any
	for _, e := range entries {
		impls, err := e.new(d)
		if err != nil {
			return nil, fmt.Errorf("area %s: %w", e.area.Name, err)
		}
		out = append(out, impls...)
	}
	return out, nil
}

// Owned is what the areas declare as owned by repositories and users
// (Area.RepoTables, Area.UserTables), in the store's terms (store.Own).
func Owned() (store.Owned, error) {
	repoTables, err := area.RepoTables(Areas)
	if err != nil {
		return store.Owned{}, err
	}
	userTables, err := area.UserTables(Areas)
	if err != nil {
		return store.Owned{}, err
	}
	o := store.Owned{Repository: repoTables}
	for _, c := range userTables {
		o.User = append(o.User, store.OwnedColumn{Table: c.Table, Column: c.Column})
	}
	return o, nil
}
