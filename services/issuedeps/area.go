// Package issuedeps serves issue dependencies ("depends on") and blocks:
// GET/POST/DELETE /repos/{o}/{r}/issues/{index}/dependencies and
// .../blocks, over forge.issues.v1.DependencyService.
package issuedeps

import (
	"google.golang.org/grpc"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/area"
)

// Area declares the dependencies area to the server (see package area).
// Its policies are declared in proto/forge/issues/v1/dependencies.proto.
var Area = area.Area{
	Name:       "issuedeps",
	Services:   []*grpc.ServiceDesc{&issuesv1.DependencyService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(issuesv1.RegisterDependencyServiceHandlerClient, issuesv1.NewDependencyServiceClient)},
	RepoTables: []string{"issue_dependencies"},
}
