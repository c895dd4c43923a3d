package milestones

import (
	"google.golang.org/grpc"

	milestonesv1 "forge/gen/forge/milestones/v1"
	"forge/services/area"
)

// Area declares the milestones area to the server (see package area). Its
// policies are declared in the proto (forge.options.v1.policy).
var Area = area.Area{
	Name:     "milestones",
	Services: []*grpc.ServiceDesc{&milestonesv1.MilestoneService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(milestonesv1.RegisterMilestoneServiceHandlerClient, milestonesv1.NewMilestoneServiceClient)},
	// Issue subscriptions (issue_watches) are declared by the watch area.
	RepoTables: []string{"milestones"},
}
