package releases

import (
	"google.golang.org/grpc"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/area"
)

// Area declares the releases area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:       "releases",
	Services:   []*grpc.ServiceDesc{&releasesv1.ReleaseService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(releasesv1.RegisterReleaseServiceHandlerClient, releasesv1.NewReleaseServiceClient)},
	RepoTables: []string{"releases"},
}
