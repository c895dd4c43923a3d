// Package pulls serves forge.pulls.v1.PullService: a repository's pull
// requests. A pull request is an issue (numbers, labels, assignees and
// comments are the issue tracker's) plus a pull_requests row naming its
// head and base, and its head commit kept in the base repository under
// refs/pull/<index>/head. Who may call what is declared in the proto.
package pulls

import (
	"google.golang.org/grpc"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/area"
)

// Area declares the pull requests area to the server (see package area).
var Area = area.Area{
	Name: "pulls",
	Services: []*grpc.ServiceDesc{
		&pullsv1.PullService_ServiceDesc,
		&pullsv1.PullEditService_ServiceDesc,
		&pullsv1.PullDiffService_ServiceDesc,
		&pullsv1.PullMergeService_ServiceDesc,
		&pullsv1.PullUpdateService_ServiceDesc,
		&pullsv1.PullByBranchService_ServiceDesc,
	},
	// The by-branch route (/pulls/{base}/{head...}) matches the paths of
	// the others (/pulls/{index}/files): listed first, it is tried last.
	Gateways: []area.Gateway{
		area.Handlers(pullsv1.RegisterPullByBranchServiceHandlerClient, pullsv1.NewPullByBranchServiceClient),
		area.Handlers(pullsv1.RegisterPullServiceHandlerClient, pullsv1.NewPullServiceClient),
		area.Handlers(pullsv1.RegisterPullEditServiceHandlerClient, pullsv1.NewPullEditServiceClient),
		area.Handlers(pullsv1.RegisterPullDiffServiceHandlerClient, pullsv1.NewPullDiffServiceClient),
		area.Handlers(pullsv1.RegisterPullMergeServiceHandlerClient, pullsv1.NewPullMergeServiceClient),
		area.Handlers(pullsv1.RegisterPullUpdateServiceHandlerClient, pullsv1.NewPullUpdateServiceClient),
	},
	RepoTables: []string{"pull_requests", "pull_auto_merges"},
	// A scheduled merge goes with the account that scheduled it.
	UserTables: []area.Column{{Table: "pull_auto_merges", Column: "doer_id"}},
}
