package githost

import (
	"google.golang.org/grpc"

	githostv1 "forge/gen/forge/githost/v1"
	"forge/services/area"
)

// Area declares git's smart HTTP protocol to the server: not a gRPC
// service, but the policies of fetching and pushing
// (forge.githost.v1.GitService), which Open applies with the
// interceptor's own check. cmd/forge/app builds the Service, which needs
// the authenticator, and the gateway mounts it.
var Area = area.Area{
	Name:     "githost",
	Surfaces: []*grpc.ServiceDesc{&githostv1.GitService_ServiceDesc},
}

// The methods whose policies a fetch and a push meet.
var (
	fetchMethod = "/" + githostv1.GitService_ServiceDesc.ServiceName + "/UploadPack"
	pushMethod  = "/" + githostv1.GitService_ServiceDesc.ServiceName + "/ReceivePack"
)
