package misc

import (
	"google.golang.org/grpc"

	miscv1 "forge/gen/forge/misc/v1"
	"forge/services/area"
)

// Area declares the misc area to the server (see package area): its
// service, policies and REST routes.
var Area = area.Area{
	Name:     "misc",
	Services: []*grpc.ServiceDesc{&miscv1.MiscService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(miscv1.RegisterMiscServiceHandlerClient, miscv1.NewMiscServiceClient)},
}
