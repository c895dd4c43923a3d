package code

import (
	"google.golang.org/grpc"

	branchesv1 "forge/gen/forge/branches/v1"
	commitsv1 "forge/gen/forge/commits/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/area"
)

// Area declares the code area to the server (see package area): its three
// services, their policies and REST routes. The raw-file routes cannot be
// generated (the body is the file's bytes) and are mounted by the gateway
// itself. Branch records belong to the repos area (its Syncer keeps them).
var Area = area.Area{
	Name: "code",
	Services: []*grpc.ServiceDesc{
		&branchesv1.BranchService_ServiceDesc,
		&contentsv1.ContentService_ServiceDesc,
		&commitsv1.CommitService_ServiceDesc,
		&commitsv1.GitDataService_ServiceDesc,
	},
	Gateways: []area.Gateway{
		area.Handlers(branchesv1.RegisterBranchServiceHandlerClient, branchesv1.NewBranchServiceClient),
		area.Handlers(contentsv1.RegisterContentServiceHandlerClient, contentsv1.NewContentServiceClient),
		area.Handlers(commitsv1.RegisterCommitServiceHandlerClient, commitsv1.NewCommitServiceClient),
		area.Handlers(commitsv1.RegisterGitDataServiceHandlerClient, commitsv1.NewGitDataServiceClient),
	},
}
