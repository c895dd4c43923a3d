package actions

import (
	"google.golang.org/grpc"

	actionsv1 "forge/gen/forge/actions/v1"
	"forge/services/area"
)

// Area declares the Actions settings area to the server (see package
// area): its service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "actions",
	Services: []*grpc.ServiceDesc{&actionsv1.ActionsService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(actionsv1.RegisterActionsServiceHandlerClient, actionsv1.NewActionsServiceClient)},
	// A repository's rows have its repo_id; an owner's (user or
	// organization) its owner_id.
	RepoTables: []string{"action_secrets", "action_variables", "action_runner_tokens"},
	UserTables: []area.Column{
		{Table: "action_secrets", Column: "owner_id"},
		{Table: "action_variables", Column: "owner_id"},
		{Table: "action_runner_tokens", Column: "owner_id"},
	},
}
