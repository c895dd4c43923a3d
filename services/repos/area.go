package repos

import (
	"google.golang.org/grpc"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/area"
)

// Area declares the repos area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "repos",
	Services: []*grpc.ServiceDesc{&reposv1.RepositoryService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(reposv1.RegisterRepositoryServiceHandlerClient, reposv1.NewRepositoryServiceClient)},
	// Collaborations belong to both their repository and their user;
	// branch and tag records mirror a repository's git refs (see Syncer); a
	// repository's topics go with it (topic counts are counted, so
	// nothing else needs correcting); a pending transfer goes with its
	// repository, its recipient and the user who offered it.
	RepoTables: []string{"collaborations", "branches", "tag_refs", "repo_topics", "repo_transfers"},
	UserTables: []area.Column{{Table: "collaborations", Column: "user_id"},
		{Table: "repo_transfers", Column: "recipient_id"}, {Table: "repo_transfers", Column: "doer_id"}},
}
