package statuses

import (
	"google.golang.org/grpc"

	statusesv1 "forge/gen/forge/statuses/v1"
	"forge/services/area"
)

// Area declares the commit statuses area to the server (see package
// area): its service, policies and REST routes, and the tables a
// repository delete clears.
var Area = area.Area{
	Name:       "statuses",
	Services:   []*grpc.ServiceDesc{&statusesv1.CommitStatusService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(statusesv1.RegisterCommitStatusServiceHandlerClient, statusesv1.NewCommitStatusServiceClient)},
	RepoTables: []string{"commit_statuses", "commit_status_index", "commit_status_latest"},
}
