package app

import (
	"forge/services/admin"
	"forge/services/area"
	"forge/services/attachments"
	"forge/services/code"
	"forge/services/issuedeps"
	"forge/services/issues"
	"forge/services/labels"
	"forge/services/mirrors"
	"forge/services/misc"
	"forge/services/notify"
	"forge/services/orgs"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/tokens"
	"forge/services/users"
	"forge/services/watch"
)

// Areas lists every area forge serves, once. Policies, gRPC registration
// on both transports, REST registration and the tables deletes clear all
// come from this list (see package area and docs/adding-an-area.md).
var Areas = []area.Area{
	misc.Area,
	users.Area,
	admin.Area,
	tokens.Area,
	repos.Area,
	mirrors.Area,
	releases.Area,
	watch.Area,
	code.Area,
	issues.Area,
	issuedeps.Area,
	labels.Area,
	orgs.Area,
	attachments.Area,
	notify.Area,
}

// Owned is what the areas declare as owned by repositories and users, in
// the store's terms.
func Owned(areas []area.Area) (store.Owned, error) {
	repoTables, err := area.RepoTables(areas)
	if err != nil {
		return store.Owned{}, err
	}
	userTables, err := area.UserTables(areas)
	if err != nil {
		return store.Owned{}, err
	}
	o := store.Owned{Repository: repoTables}
	for _, c := range userTables {
		o.User = append(o.User, store.OwnedColumn{Table: c.Table, Column: c.Column})
	}
	return o, nil
}
