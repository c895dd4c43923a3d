// Package reactions serves reactions on issues, pull requests and their
// comments: GET/POST/DELETE /repos/{o}/{r}/issues/{index}/reactions and
// .../issues/comments/{id}/reactions, over forge.issues.v1.ReactionService.
package reactions

import (
	"google.golang.org/grpc"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/area"
)

// Area declares the reactions area to the server (see package area). Its
// policies are declared in proto/forge/issues/v1/reactions.proto.
var Area = area.Area{
	Name:       "reactions",
	Services:   []*grpc.ServiceDesc{&issuesv1.ReactionService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(issuesv1.RegisterReactionServiceHandlerClient, issuesv1.NewReactionServiceClient)},
	RepoTables: []string{"reactions"},
	UserTables: []area.Column{{Table: "reactions", Column: "user_id"}},
}
