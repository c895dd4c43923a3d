package orgs

import (
	"google.golang.org/grpc"

	orgsv1 "forge/gen/forge/orgs/v1"
	"forge/services/area"
)

// Area declares the organizations area to the server (see package area):
// its services and REST routes (policies are declared in the proto) and
// the tables it owns. Teams, their units and organization memberships
// also go with their organization (store.DeleteOrganization).
var Area = area.Area{
	Name:     "orgs",
	Services: []*grpc.ServiceDesc{&orgsv1.OrganizationService_ServiceDesc, &orgsv1.TeamService_ServiceDesc},
	Gateways: []area.Gateway{
		area.Handlers(orgsv1.RegisterOrganizationServiceHandlerClient, orgsv1.NewOrganizationServiceClient),
		area.Handlers(orgsv1.RegisterTeamServiceHandlerClient, orgsv1.NewTeamServiceClient),
	},
	// A team's grant of a repository goes with the repository; a user's
	// team and organization memberships with the user.
	RepoTables: []string{"team_repos"},
	UserTables: []area.Column{{Table: "team_users", Column: "uid"}, {Table: "org_users", Column: "uid"}},
}
