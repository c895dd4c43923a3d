// Package notify serves forge.notifications.v1.NotificationService, the
// caller's notification threads, and runs the notifier (Worker) that turns
// the activity queue the issue writes fill into threads.
package notify

import (
	"google.golang.org/grpc"

	notificationsv1 "forge/gen/forge/notifications/v1"
	"forge/services/area"
)

// Area declares the notifications area to the server (see package area).
// Its policies are declared in the proto.
var Area = area.Area{
	Name:     "notifications",
	Services: []*grpc.ServiceDesc{&notificationsv1.NotificationService_ServiceDesc},
	Gateways: []area.Gateway{area.Handlers(notificationsv1.RegisterNotificationServiceHandlerClient, notificationsv1.NewNotificationServiceClient)},
	// A thread belongs to its repository and to its user.
	RepoTables: []string{"notifications"},
	UserTables: []area.Column{{Table: "notifications", Column: "user_id"}},
}
