package keys

import (
	"google.golang.org/grpc"

	keysv1 "forge/gen/forge/keys/v1"
	"forge/services/area"
)

// Area declares the SSH keys area to the server: its service, policies
// and REST routes, and the tables it owns (a user's keys go with the
// user, a repository's deploy keys with the repository).
var Area = area.Area{
	Name:       "keys",
	Services:   []*grpc.ServiceDesc{&keysv1.KeyService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(keysv1.RegisterKeyServiceHandlerClient, keysv1.NewKeyServiceClient)},
	RepoTables: []string{"deploy_keys"},
	UserTables: []area.Column{{Table: "public_keys", Column: "owner_id"}},
}
