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
// Reads start no process per request once warm (every git read of forge
// goes through this package, and the pull-request work does too):
//   - objects (blobs, trees, commits, tags) are read through long-lived
//     `git cat-file --batch-command` processes pooled per repository
//     (catfile.go; LimitReaders: at most 32, stopped after 30 s idle); a
//     reader whose read was cancelled or left unfinished is discarded,
//     objects over 1 MiB are streamed, and a repository that is deleted or
//     renamed loses its readers;
//   - refs are read from the loose ref files and packed-refs (refsfile.go),
//     afresh on every call, so pushes, branch creation and deletes are
//     seen at once;
//   - results keyed by object ids (small objects, a commit's diff stats and
//     files, the number of commits below a commit, the last commit that
//     touched a path below a commit) are kept in one LRU cache bounded in
//     bytes (cache.go; SetCacheSize, 64 MiB by default);
//   - a page of history without a path filter is walked over those objects
//     (logwalk.go), so its cost does not grow with the length of history;
//     getting a branch or tag costs the same with 10 or 10,000 refs.
//
// Language statistics (languages.go) are computed over those objects and
// cached per commit id; produced archives are cached on disk per
// repository, commit and format (archivecache.go), so a repeated archive
// request starts no process either.
//
// Only work that is not a lookup of immutable data starts git: writes,
// transfers, listing all tags, history filtered by path, and the first
// computation of a cached result.
//
// LimitProcesses caps the processes running at once; beyond the cap an
// operation fails with ErrBusy without starting git. Pooled readers are
// capped separately (an idle reader must not make other commands busy).
//
// It needs git 2.32 or newer (GIT_CONFIG_GLOBAL, --diff-merges).
//
// Every git process runs with forge's own hooks directory
// (core.hooksPath): hooks inside repositories never run, and a
// reference-transaction hook journals every ref move (journal.go) so the
// database's records of refs can be reconciled after a crash.
//
// A push costs forge work proportional to the refs it changed, not to the
// refs the repository holds: receive-pack's post-receive hook hands over
// git's own list of updated refs (ReceivePack), the branch records are
// brought in step by reading just those refs (BranchesByName, from the
// ref files), and the reconciler re-reads only journaled refs. What still
// grows with the number of refs is git's own: the ref advertisement the
// client asks for and receive-pack's connectivity check (`--not --all`),
// which reads every loose ref file; so after each push HousekeepLater
// packs the refs it left loose (and runs `git gc --auto`) in the
// background, one run per repository at a time, without forge's hooks
// (packing moves no ref; with them git journaled every pruned ref). The
// ref advertisement goes out in 64 KiB pieces, not one HTTP chunk per
// ref. cmd/forge/app BenchmarkPush measures a push with 10 and 10,000
// branches and reports forge's own time: its handlers' time minus that of
// plain git receive-pack serving the same push to a copy of the
// repository in the same run.
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
