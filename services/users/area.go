package users

import (
	"google.golang.org/grpc"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/area"
)

// Area declares the users area to the server (see package area): its
// service, policies and REST routes, and the table it owns.
var Area = area.Area{
	Name:     "users",
	Services: []*grpc.ServiceDesc{&usersv1.UserService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(usersv1.RegisterUserServiceHandlerClient, usersv1.NewUserServiceClient)},
	// follows: user_id follows follow_id; a user's go when either does;
	// secondary e-mail addresses go with their user.
	UserTables: []area.Column{{Table: "follows", Column: "user_id"}, {Table: "follows", Column: "follow_id"},
		{Table: "email_addresses", Column: "uid"}},
}
