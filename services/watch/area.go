package watch

import (
	"google.golang.org/grpc"

	watchv1 "forge/gen/forge/watch/v1"
	"forge/services/area"
)

// Area declares the watch area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "watch",
	Services: []*grpc.ServiceDesc{&watchv1.WatchService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(watchv1.RegisterWatchServiceHandlerClient, watchv1.NewWatchServiceClient)},
	// A watch belongs to both the watched repository and the watcher (the
	// store keeps the repositories' counters right when a user goes).
	// issue_watches: a user's explicit subscription to (or from) one issue.
	// stars: a user starred a repository (repositories.num_stars counts
	// them, kept right as for watches).
	RepoTables: []string{"watches", "issue_watches", "stars"},
	UserTables: []area.Column{{Table: "watches", Column: "user_id"}, {Table: "issue_watches", Column: "user_id"}, {Table: "stars", Column: "user_id"}},
}
