package tokens

import (
	"google.golang.org/grpc"

	tokensv1 "forge/gen/forge/tokens/v1"
	"forge/services/area"
)

// Area declares the tokens area to the server (see package area): its
// service, policies and REST routes, and the tables it owns.
var Area = area.Area{
	Name:     "tokens",
	Services: []*grpc.ServiceDesc{&tokensv1.TokenService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(tokensv1.RegisterTokenServiceHandlerClient, tokensv1.NewTokenServiceClient)},
	// A token belongs to its user (access_tokens.uid).
	UserTables: []area.Column{{Table: "access_tokens", Column: "uid"}},
}
