package rpcerr

import (
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Domain is the ErrorInfo domain of forge's own error details.
const Domain = "forge"

// HTTPStatusKey is the ErrorInfo metadata key carrying the HTTP status the
// REST gateway must answer with, for Gitea statuses that no gRPC code maps
// to (423 Locked).
const HTTPStatusKey = "http_status"

// WithHTTPStatus is a status of code with msg whose ErrorInfo (reason,
// domain forge) tells the gateway to answer httpStatus. gRPC clients see
// code and the reason; REST clients see Gitea's status.
func WithHTTPStatus(code codes.Code, httpStatus int, reason, msg string) error {
	return withInfo(code, msg, reason, httpStatus)
}

// withInfo is a status of code with msg and a forge ErrorInfo with reason
// and, unless it is 0, the HTTP status for the gateway.
func withInfo(code codes.Code, msg, reason string, httpStatus int) error {
	st := status.New(code, msg)
	info := &errdetails.ErrorInfo{Reason: reason, Domain: Domain}
	if httpStatus != 0 {
		info.Metadata = map[string]string{HTTPStatusKey: strconv.Itoa(httpStatus)}
	}
	detailed, err := st.WithDetails(info)
	if err != nil {
		// Only a marshalling failure of the detail; the code still holds.
		return st.Err()
	}
	return detailed.Err()
}

// HTTPStatus is the HTTP status a forge ErrorInfo on st asks for, if any.
func HTTPStatus(st *status.Status) (int, bool) {
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != Domain {
			continue
		}
		if v, ok := info.GetMetadata()[HTTPStatusKey]; ok {
			if code, err := strconv.Atoi(v); err == nil && code >= 400 && code <= 599 {
				return code, true
			}
		}
	}
	return 0, false
}
