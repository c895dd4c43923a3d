package labels

import (
	"google.golang.org/grpc"

	labelsv1 "forge/gen/forge/labels/v1"
	"forge/services/area"
)

// Area declares the labels area to the server (see package area). Its
// policies are declared in the proto (forge.options.v1.policy).
var Area = area.Area{
	Name:       "labels",
	Services:   []*grpc.ServiceDesc{&labelsv1.LabelService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(labelsv1.RegisterLabelServiceHandlerClient, labelsv1.NewLabelServiceClient)},
	RepoTables: []string{"labels", "issue_labels"},
}
