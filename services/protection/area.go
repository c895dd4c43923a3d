package protection

import (
	"google.golang.org/grpc"

	protectionv1 "forge/gen/forge/protection/v1"
	"forge/services/area"
)

// Area declares the branch and tag protection area to the server (see package
// area): its service, policies and REST routes, and the tables a
// repository delete clears.
var Area = area.Area{
	Name:     "protection",
	Services: []*grpc.ServiceDesc{&protectionv1.BranchProtectionService_ServiceDesc, &protectionv1.TagProtectionService_ServiceDesc},
	Gateways: []area.Gateway{
		area.Handlers(protectionv1.RegisterBranchProtectionServiceHandlerClient, protectionv1.NewBranchProtectionServiceClient),
		area.Handlers(protectionv1.RegisterTagProtectionServiceHandlerClient, protectionv1.NewTagProtectionServiceClient),
	},
	RepoTables: []string{"branch_protections", "tag_protections"},
}
