package admin

import (
	"google.golang.org/grpc"

	adminv1 "forge/gen/forge/admin/v1"
	"forge/services/area"
)

// Area declares the admin area to the server (see package area): its
// service, policies and REST routes.
var Area = area.Area{
	Name:     "admin",
	Services: []*grpc.ServiceDesc{&adminv1.AdminService_ServiceDesc},
	Policies: Policies,
	Gateways: []area.Gateway{area.Handlers(adminv1.RegisterAdminServiceHandlerClient, adminv1.NewAdminServiceClient)},
}
