package rpcerr

import "google.golang.org/grpc/status"

// CodeName is the name of the gRPC code a client gets for err ("OK" for
// nil, "NotFound", ...), for logs and metrics.
func CodeName(err error) string { return status.Code(err).String() }
