package attachments

import (
	"google.golang.org/grpc"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	"forge/services/area"
)

// Area declares the attachments area to the server: its service (policies
// are declared in attachments.proto), its REST routes (the unary ones by
// option (google.api.http) in attachments.proto, the streaming uploads and
// downloads as the gateway's own routes) and its table.
var Area = area.Area{
	Name:       "attachments",
	Services:   []*grpc.ServiceDesc{&attachmentsv1.AttachmentService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(attachmentsv1.RegisterAttachmentServiceHandlerClient, attachmentsv1.NewAttachmentServiceClient)},
	RepoTables: []string{"attachments"},
}
