package app

import (
	"forge/services/area"
	"forge/services/area/all"
	"forge/services/store"
)

// Areas is every area forge serves (package all keeps the list).
var Areas = all.Areas

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
