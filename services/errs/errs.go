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
	"time"
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

// defaultMessages is each kind's generic text, what an error declared
// without a message of its own says: Gitea's where it has one (its
// not-found helper's "The target couldn't be found.", and forge's 500
// text), else a plain statement of the kind.
var defaultMessages = [...]string{
	Internal:           "internal server error",
	NotFound:           "The target couldn't be found.",
	Invalid:            "invalid argument",
	AlreadyExists:      "already exists",
	Conflict:           "conflict",
	FailedPrecondition: "failed precondition",
	PermissionDenied:   "permission denied",
	Unauthenticated:    "unauthenticated",
	Locked:             "locked",
	Unavailable:        "unavailable; try again later",
	ResourceExhausted:  "too many requests; try again later",
}

// DefaultMessage is the kind's generic text (New with an empty message).
func (k Kind) DefaultMessage() string {
	if k >= 0 && int(k) < len(defaultMessages) {
		return defaultMessages[k]
	}
	return ""
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
	// RetryAfter, if set, tells the caller when to try again (a throttled
	// sign-in); gRPC clients get it as RetryInfo, REST clients as
	// Retry-After.
	RetryAfter time.Duration
	// Fields are members Gitea adds to its JSON error body beside the
	// message (a topics request's "invalidTopics"): JSON values, encoded
	// with encoding/json. Nil for most errors.
	Fields map[string]any
	Cause  error
	// sentinel is the value this error was derived from (With...), so that
	// errors.Is(derived, sentinel) holds.
	sentinel *Error
}

// New is an error of kind with msg; an empty msg is the kind's default
// message (errs.New(errs.NotFound, "") is Gitea's "The target couldn't be
// found.").
func New(kind Kind, msg string) *Error {
	if msg == "" {
		msg = kind.DefaultMessage()
	}
	return &Error{Kind: kind, Message: msg}
}

// Newf is New with a formatted message.
func Newf(kind Kind, format string, args ...any) *Error {
	return New(kind, fmt.Sprintf(format, args...))
}

// Wrap is an Internal error carrying cause for the log; its message says
// nothing about the cause. A nil cause is nil. A cause that is Unavailable
// (git's ErrBusy: too many git processes) stays Unavailable, with its own
// message, so the caller may retry.
func Wrap(cause error, context string) error {
	if cause == nil {
		return nil
	}
	wrapped := fmt.Errorf("%s: %w", context, cause)
	if e, ok := As(cause); ok && e.Kind == Unavailable {
		return e.WithCause(wrapped)
	}
	return &Error{Kind: Internal, Message: Internal.DefaultMessage(), Cause: wrapped}
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

// WithRetryAfter is e advising the caller to retry after d; it still
// matches e.
func (e *Error) WithRetryAfter(d time.Duration) *Error {
	c := e.derive()
	c.RetryAfter = d
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

// Replace is with when err is target (errors.Is), else err unchanged (nil
// stays nil): a caller answers, in Gitea's words, an outcome another
// package reports in general ones, e.g.
// errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, "user does not exist")).
func Replace(err, target, with error) error {
	if errors.Is(err, target) {
		return with
	}
	return err
}

// KindOf is the kind of err: the kind of its outermost *Error, Internal for
// anything else.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}
