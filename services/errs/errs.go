// Package errs is forge's one domain error type. Store, git and the
// services describe an outcome a caller acts on as an *Error: a Kind (what
// happened, which fixes the gRPC code), the message Gitea shows for it, and,
// where Gitea answers another HTTP status than the kind's default, that
// status. rpcerr translates it at the service edge; the REST gateway turns
// the result into Gitea's status and body. Nothing here knows gRPC or HTTP
// beyond the optional status number.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies an outcome. Each kind has one canonical gRPC code and one
// default Gitea HTTP status (see rpcerr).
type Kind int

const (
	// Internal is an unexpected failure: logged with its cause, answered
	// 500 without it.
	Internal Kind = iota
	// NotFound: the object does not exist or is not visible (404).
	NotFound
	// Invalid: malformed input, Gitea's binding and validation errors (422).
	Invalid
	// AlreadyExists: the name is taken (422 unless declared otherwise).
	AlreadyExists
	// Conflict: the request conflicts with the current state (409).
	Conflict
	// FailedPrecondition: the request breaks a rule (400).
	FailedPrecondition
	// PermissionDenied: the caller may not do this (403).
	PermissionDenied
	// Unauthenticated: no or bad credentials (401).
	Unauthenticated
	// Locked: the object refuses changes, archived or mirrored (423).
	Locked
	// Unavailable: try again later (503).
	Unavailable
	// ResourceExhausted: a limit or quota is reached (429 unless declared).
	ResourceExhausted
)

var kindNames = [...]string{
	Internal:           "INTERNAL",
	NotFound:           "NOT_FOUND",
	Invalid:            "INVALID",
	AlreadyExists:      "ALREADY_EXISTS",
	Conflict:           "CONFLICT",
	FailedPrecondition: "FAILED_PRECONDITION",
	PermissionDenied:   "PERMISSION_DENIED",
	Unauthenticated:    "UNAUTHENTICATED",
	Locked:             "LOCKED",
	Unavailable:        "UNAVAILABLE",
	ResourceExhausted:  "RESOURCE_EXHAUSTED",
}

// String is the kind's name, used as the default ErrorInfo reason.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("KIND_%d", int(k))
}

// Error is a domain error. Message is what a person is shown (Gitea's text);
// Cause, if any, is for logs and errors.Is/As only and never reaches a
// caller.
type Error struct {
	Kind    Kind
	Message string
	// HTTPStatus is Gitea's status where it differs from the kind's
	// default (a taken repository name is 409, a used token name 400);
	// zero means the default.
	HTTPStatus int
	// Reason is the ErrorInfo reason gRPC clients may switch on; empty
	// means the kind's name.
	Reason string
	// Fields are members Gitea adds to its JSON error body beside the
	// message (a topics request's "invalidTopics"): JSON values, encoded
	// with encoding/json. Nil for most errors.
	Fields map[string]any
	Cause  error
	// sentinel is the value this error was derived from (With...), so that
	// errors.Is(derived, sentinel) holds.
	sentinel *Error
}

// New is an error of kind with msg.
func New(kind Kind, msg string) *Error { return &Error{Kind: kind, Message: msg} }

// Newf is New with a formatted message.
func Newf(kind Kind, format string, args ...any) *Error {
	return New(kind, fmt.Sprintf(format, args...))
}

// Wrap is an Internal error carrying cause for the log; its message says
// nothing about the cause. A nil cause is nil.
func Wrap(cause error, context string) error {
	if cause == nil {
		return nil
	}
	return &Error{Kind: Internal, Message: "internal server error", Cause: fmt.Errorf("%s: %w", context, cause)}
}

func (e *Error) Error() string {
	if e.Cause != nil && e.Kind == Internal {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// Is makes a derived error (WithMessage, WithHTTPStatus, ...) match the
// sentinel it came from.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	for s := e; s != nil; s = s.sentinel {
		if s == t {
			return true
		}
	}
	return false
}

func (e *Error) derive() *Error {
	c := *e
	c.sentinel = e
	return &c
}

// WithMessage is e with another message; it still matches e.
func (e *Error) WithMessage(msg string) *Error {
	c := e.derive()
	c.Message = msg
	return c
}

// WithHTTPStatus is e answered with Gitea's status code over REST; it still
// matches e.
func (e *Error) WithHTTPStatus(code int) *Error {
	c := e.derive()
	c.HTTPStatus = code
	return c
}

// WithReason is e with an ErrorInfo reason; it still matches e.
func (e *Error) WithReason(reason string) *Error {
	c := e.derive()
	c.Reason = reason
	return c
}

// WithFields is e with members for Gitea's error body (Fields); it still
// matches e.
func (e *Error) WithFields(fields map[string]any) *Error {
	c := e.derive()
	c.Fields = fields
	return c
}

// WithCause is e carrying cause for logs and errors.Is; it still matches e.
func (e *Error) WithCause(cause error) *Error {
	c := e.derive()
	c.Cause = cause
	return c
}

// ReasonOrKind is the ErrorInfo reason: Reason, or the kind's name.
func (e *Error) ReasonOrKind() string {
	if e.Reason != "" {
		return e.Reason
	}
	return e.Kind.String()
}

// As is the outermost *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Detail is As with err's whole text as the message: a sentinel that a
// package wraps with detail (git's "branch x: not found") keeps its kind,
// still matches the sentinel, and shows the detail. Internal errors keep
// their message (the translator hides it anyway).
func Detail(err error) (*Error, bool) {
	e, ok := As(err)
	if !ok || e.Kind == Internal || e == err {
		return e, ok
	}
	if msg := err.Error(); msg != e.Message {
		return e.WithMessage(msg), true
	}
	return e, true
}

// KindOf is the kind of err: the kind of its outermost *Error, Internal for
// anything else.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}
