// Package git does everything forge needs to do with repositories on disk.
//
// Repositories are bare git repositories laid out as <Root>/<owner>/<name>.git
// (both lower-cased). Every operation runs the real git binary through
// os/exec with a fixed environment (no system or global configuration,
// C locale, no terminal prompts, literal pathspecs), so neither the host's
// git configuration nor the user running forge can change results.
// Process count is bounded per call: listing a page of commits, the branches
// of a repository or the entries of a directory each costs a small fixed
// number of git processes, never one per item.
//
// LimitProcesses caps the processes running at once; beyond the cap an
// operation fails with ErrBusy without starting git.
//
// It needs git 2.32 or newer (GIT_CONFIG_GLOBAL, --diff-merges).
//
// Every git process runs with forge's own hooks directory
// (core.hooksPath): hooks inside repositories never run, and a
// reference-transaction hook journals every ref move (journal.go) so the
// database's records of refs can be reconciled after a crash.
//
// The package knows nothing about HTTP authentication, permissions or the
// database. The smart HTTP entry points (AdvertiseRefs, UploadPack,
// ReceivePack) take an io.Reader and an io.Writer so the HTTP layer can
// authenticate and authorise first and then hand the streams over.
//
// Errors: operations return ErrNotFound, ErrAlreadyExists, ErrConflict,
// ErrInvalid or ErrBusy (test with errors.Is; they are domain errors of
// package errs) for the outcomes callers act on, and
// *Error for a failed git process. The text of an *Error carries git's own
// diagnostics with URL credentials removed; it is meant for logs, not for
// API responses.
package git
