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
	Gateways: []area.Gateway{area.Handlers(adminv1.RegisterAdminServiceHandlerClient, adminv1.NewAdminServiceClient)},
	// TOTP enrolment has no Gitea API; operators use it over gRPC (and the
	// CLI calls the same use cases).
	GRPCOnly: []string{
		adminv1.AdminService_EnableUserTOTP_FullMethodName,
		adminv1.AdminService_DisableUserTOTP_FullMethodName,
	},
}
