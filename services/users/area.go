package users

import (
	"google.golang.org/grpc"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/area"
)

// Area declares the users area to the server (see package area): its
// service, policies and REST routes.
var Area = area.Area{
	Name:     "users",
	Services: []*grpc.ServiceDesc{&usersv1.UserService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(usersv1.RegisterUserServiceHandlerClient, usersv1.NewUserServiceClient)},
}
