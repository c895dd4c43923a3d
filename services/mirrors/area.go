package mirrors

import (
	"google.golang.org/grpc"

	mirrorsv1 "forge/gen/forge/mirrors/v1"
	"forge/services/area"
)

// Area declares the mirrors area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "mirrors",
	Services: []*grpc.ServiceDesc{&mirrorsv1.MirrorService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(mirrorsv1.RegisterMirrorServiceHandlerClient, mirrorsv1.NewMirrorServiceClient)},
	// A pull mirror's state and a repository's push mirrors.
	RepoTables: []string{"mirrors", "push_mirrors"},
}
