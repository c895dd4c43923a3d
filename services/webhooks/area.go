package webhooks

import (
	"google.golang.org/grpc"

	webhooksv1 "forge/gen/forge/webhooks/v1"
	"forge/services/area"
)

// Area declares the webhooks area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "webhooks",
	Services: []*grpc.ServiceDesc{&webhooksv1.WebhookService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(webhooksv1.RegisterWebhookServiceHandlerClient, webhooksv1.NewWebhookServiceClient)},
	// A repository's hooks have its repo_id, an owner's its owner_id; the
	// queue's rows go with the repository they are about.
	RepoTables: []string{"webhooks", "hook_events", "hook_tasks"},
	UserTables: []area.Column{{Table: "webhooks", Column: "owner_id"}},
}
