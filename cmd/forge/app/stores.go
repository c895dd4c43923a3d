package app

import (
	"forge/services/access"
	"forge/services/admin"
	"forge/services/attachments"
	"forge/services/auth"
	"forge/services/code"
	"forge/services/issuedeps"
	"forge/services/issues"
	"forge/services/labels"
	"forge/services/mirrors"
	"forge/services/notify"
	"forge/services/orgs"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/tokens"
	"forge/services/users"
	"forge/services/watch"
)

// Every service depends on a narrow store interface declared in its own
// package, never on *store.Store (TestServicesUseNarrowStores); the
// database implements each of them, checked here at compile time so a
// method added to an interface but not to the store fails the build.
var (
	_ access.Store      = (*store.Store)(nil)
	_ admin.Store       = (*store.Store)(nil)
	_ auth.Store        = (*store.Store)(nil)
	_ code.Store        = (*store.Store)(nil)
	_ issues.Store      = (*store.Store)(nil)
	_ issuedeps.Store   = (*store.Store)(nil)
	_ labels.Store      = (*store.Store)(nil)
	_ mirrors.Store     = (*store.Store)(nil)
	_ orgs.Store        = (*store.Store)(nil)
	_ notify.Store      = (*store.Store)(nil)
	_ notify.QueueStore = (*store.Store)(nil)
	_ releases.Store    = (*store.Store)(nil)
	_ repos.Store       = (*store.Store)(nil)
	_ repos.SyncStore   = (*store.Store)(nil)
	_ repos.PurgeStore  = (*store.Store)(nil)
	_ tokens.Store      = (*store.Store)(nil)
	_ users.Store       = (*store.Store)(nil)
	_ watch.Store       = (*store.Store)(nil)
	_ attachments.Store = (*store.Store)(nil)
)
