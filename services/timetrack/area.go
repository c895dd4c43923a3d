// Package timetrack serves tracked times and stopwatches:
// GET/POST/DELETE /repos/{o}/{r}/issues/{index}/times[/{id}],
// GET /repos/{o}/{r}/times, GET /user/times,
// POST .../issues/{index}/stopwatch/start|stop, DELETE .../stopwatch/delete
// and GET /user/stopwatches, over forge.issues.v1.TimeService.
package timetrack

import (
	"google.golang.org/grpc"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/area"
)

// Area declares the time tracking area to the server (see package area).
// Its policies are declared in proto/forge/issues/v1/times.proto.
var Area = area.Area{
	Name:       "timetrack",
	Services:   []*grpc.ServiceDesc{&issuesv1.TimeService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(issuesv1.RegisterTimeServiceHandlerClient, issuesv1.NewTimeServiceClient)},
	RepoTables: []string{"tracked_times", "stopwatches"},
	UserTables: []area.Column{{Table: "tracked_times", Column: "user_id"}, {Table: "stopwatches", Column: "user_id"}},
}
