package rpcerr

import (
	"errors"
	"regexp"
	"strings"

	"google.golang.org/grpc/status"
)

// wrapper is the text grpc-go puts around a status message when a status
// error is printed ("rpc error: code = NotFound desc = ...").
var wrapper = regexp.MustCompile(`rpc error: code = [A-Za-z]+ desc = `)

// Message is the text a person is shown for err: a status error's own
// message, never grpc-go's "rpc error: code = ... desc = ..." wrapper, also
// when the status is wrapped in other errors or printed into another
// message. Every transport that turns an error into words (the REST
// gateway, the git endpoint, the CLI) goes through it.
func Message(err error) string {
	if err == nil {
		return ""
	}
	var text string
	if st, ok := status.FromError(err); ok && !isWrapped(err) {
		text = st.Message()
	} else {
		text = err.Error()
	}
	return strings.TrimSpace(wrapper.ReplaceAllString(text, ""))
}

// isWrapped reports whether err is not itself a status error but wraps one
// (status.FromError then returns the whole wrapped text as the message).
func isWrapped(err error) bool {
	_, direct := err.(interface{ GRPCStatus() *status.Status })
	var inner interface{ GRPCStatus() *status.Status }
	return !direct && errors.As(err, &inner)
}
