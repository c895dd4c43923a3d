package rpcerr

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"forge/services/errs"
	"forge/services/store"
)

// Domain is the ErrorInfo domain of forge's own error details.
const Domain = "forge"

// HTTPStatusKey is the ErrorInfo metadata key carrying the HTTP status the
// REST gateway must answer with, for Gitea statuses that differ from the
// code's default (a taken repository name is 409, 423 Locked).
const HTTPStatusKey = "http_status"

// httpStatusOfCode is Gitea's default status for each canonical code.
// Services use InvalidArgument (errs.Invalid) for malformed input, Gitea's
// 422 binding errors, and FailedPrecondition for requests that break a rule
// (Gitea's 400).
var httpStatusOfCode = map[codes.Code]int{
	codes.OK:                 http.StatusOK,
	codes.Canceled:           499,
	codes.InvalidArgument:    http.StatusUnprocessableEntity,
	codes.FailedPrecondition: http.StatusBadRequest,
	codes.NotFound:           http.StatusNotFound,
	codes.AlreadyExists:      http.StatusUnprocessableEntity,
	codes.PermissionDenied:   http.StatusForbidden,
	codes.Unauthenticated:    http.StatusUnauthorized,
	codes.ResourceExhausted:  http.StatusTooManyRequests,
	codes.Aborted:            http.StatusConflict,
	codes.OutOfRange:         http.StatusBadRequest,
	codes.Unimplemented:      http.StatusNotImplemented,
	codes.Unavailable:        http.StatusServiceUnavailable,
	codes.DeadlineExceeded:   http.StatusGatewayTimeout,
}

// httpStatusOfKind is Gitea's status for the kinds whose status no gRPC
// code maps to.
var httpStatusOfKind = map[errs.Kind]int{
	errs.Locked: http.StatusLocked,
}

// storeHTTPStatus is Gitea's status for the store's outcomes it answers
// otherwise than their kind's default. The store says what happened (a
// kind and a message); which status Gitea picks for it is the edge's
// business, so it is stated here, once for every caller.
var storeHTTPStatus = []struct {
	sentinel *errs.Error
	status   int
}{
	// Gitea answers 409 on every path that names a taken repository.
	{store.ErrRepoExists, http.StatusConflict},
	{store.ErrForkExists, http.StatusConflict},
	{store.ErrVariableExists, http.StatusConflict},
	{store.ErrAutoMergeScheduled, http.StatusConflict},
	{store.ErrTokenNameUsed, http.StatusBadRequest},
	// A second rule of one name: 403, not 409 (Gitea 1.22).
	{store.ErrBranchProtectionExists, http.StatusForbidden},
	{store.ErrTagProtectionExists, http.StatusForbidden},
	// A second merge of a pull request: 405 with an empty message.
	{store.ErrPullRequestMerged, http.StatusMethodNotAllowed},
	// Gitea 1.22 answers 500 for these; forge a client error.
	{store.ErrDependencyExists, http.StatusConflict},
	{store.ErrLastOrgOwner, http.StatusUnprocessableEntity},
	{store.ErrOrgOwnsRepos, http.StatusUnprocessableEntity},
	{store.ErrOwnersTeam, http.StatusUnprocessableEntity},
	{store.ErrRepoNotInOrg, http.StatusUnprocessableEntity},
	{store.ErrDependenciesOpen, http.StatusPreconditionFailed},
	{store.ErrStopwatchRunning, http.StatusConflict},
	{store.ErrStopwatchMissing, http.StatusConflict},
}

// domainHTTPStatus is the HTTP status e declares for the gateway, 0 for
// its code's default: its own (WithHTTPStatus at the call), else its
// store sentinel's, else its kind's.
func domainHTTPStatus(e *errs.Error) int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	for _, s := range storeHTTPStatus {
		// e.Is, not errors.Is: only e's own sentinels count, not its cause.
		if e.Is(s.sentinel) {
			return s.status
		}
	}
	return httpStatusOfKind[e.Kind]
}

// withInfo is a status of code with msg and a forge ErrorInfo with reason
// and, unless it is 0, the HTTP status for the gateway; a positive
// retryAfter adds a RetryInfo.
func withInfo(code codes.Code, msg, reason string, httpStatus int, retryAfter time.Duration) error {
	st := status.New(code, msg)
	info := &errdetails.ErrorInfo{Reason: reason, Domain: Domain}
	if httpStatus != 0 {
		info.Metadata = map[string]string{HTTPStatusKey: strconv.Itoa(httpStatus)}
	}
	details := []protoadapt.MessageV1{info}
	if retryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter)})
	}
	detailed, err := st.WithDetails(details...)
	if err != nil {
		// Only a marshalling failure of the detail; the code still holds.
		return st.Err()
	}
	return detailed.Err()
}

// HTTPStatusOf is the HTTP status Gitea answers err with, the one table of
// every HTTP transport (the REST gateway, the git endpoint): a status (what
// the gateway receives from the services) answers with the status its
// forge ErrorInfo declares, else its code's default; any other error is
// first translated as Status translates it. nil is 200.
func HTTPStatusOf(err error) int {
	st := statusOf(err)
	if s, ok := HTTPStatus(st); ok {
		return s
	}
	if s, ok := httpStatusOfCode[st.Code()]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// RetryAfter is the delay, in whole seconds, that err suggests before a
// retry (a throttled sign-in), from its RetryInfo; ok is false when it
// suggests none.
func RetryAfter(err error) (secs int64, ok bool) {
	for _, d := range statusOf(err).Details() {
		if ri, isRI := d.(*errdetails.RetryInfo); isRI && ri.GetRetryDelay() != nil {
			return int64(math.Ceil(ri.GetRetryDelay().AsDuration().Seconds())), true
		}
	}
	return 0, false
}

// statusOf is err as a status: a status as it is, anything else
// translated (without Status's log: the caller decides what to log).
func statusOf(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if _, isStatus := outermost(err); isStatus {
		return status.Convert(err)
	}
	out, _ := translate(err)
	return status.Convert(out)
}

// HTTPStatus is the HTTP status a forge ErrorInfo on st declares, if any
// (HTTPStatusOf adds the code's default).
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
