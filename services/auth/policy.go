package auth

import "strings"

// Access is who may call a method at all.
type Access int

const (
	// Public methods accept anonymous callers.
	Public Access = iota
	// SignedIn methods need an authenticated caller ("tok").
	SignedIn
	// SiteAdmin methods need a site administrator.
	SiteAdmin
	// SelfOrAdmin methods act on the user named by the request's username
	// field: the caller must be that user or a site administrator. An
	// anonymous caller is refused with 403, as Gitea does.
	SelfOrAdmin
)

// Policy is the rule for one gRPC method, as its proto declares it
// (option (forge.options.v1.policy), read by Declared).
type Policy struct {
	Access Access
	// BasicOnly requires HTTP Basic (password or token as password) or
	// reverse-proxy authentication, checked after Access.
	BasicOnly bool
	// Scopes are the token scope categories required, all of them, at
	// Level; none means any token works.
	Scopes []Category
	Level  Level
	// Writes says what the method changes inside the repository it acts
	// on, so that archived repositories and pull mirrors refuse it in one
	// place (services/access). Every write whose request names a
	// repository must declare it.
	Writes RepoWrite
	// CallerUnused marks a method whose answer is the same for every
	// caller (the version probe). Credentials are still checked, but a
	// one-time code is not spent, so a client sending the same code on
	// its probe and its next call is not refused.
	CallerUnused bool
	// Resource is what the method acts on and the access it needs there;
	// the interceptor checks it before the handler runs, so no
	// handler decides permissions.
	Resource Resource
	// Rule names an object rule of services/access (access.Rules), run
	// once the resource is resolved; empty for none.
	Rule string
	// WriterFields are request fields cleared for callers without write
	// access to the resource's unit.
	WriterFields []string
}

// Resolves reports whether the interceptor hands the call to the
// ResourceAuthorizer: a declared resource, object rule or writer fields.
func (p Policy) Resolves() bool {
	return p.Resource.Kind != NoResource || p.Rule != "" || len(p.WriterFields) > 0
}

// RepoWrite is what a method changes inside a repository. Archived
// repositories and pull mirrors are read-only: the repository access
// checker refuses a method by what it declares here.
type RepoWrite int

const (
	// WritesUndeclared is the zero value, for reads and methods on no
	// repository. A write left here that resolves a repository is refused
	// on read-only ones as a code write (fail closed), and
	// TestRepositoryWritesAreDeclared reports it.
	WritesUndeclared RepoWrite = iota
	// WritesNothing: the method changes nothing inside the repository
	// (watching it, creating a new one), so read-only states do not matter.
	WritesNothing
	// WritesSettings: the repository record itself (edit, archive and
	// unarchive, delete, collaborators). Allowed on read-only repositories,
	// as in Gitea; otherwise an archived one could never be unarchived.
	WritesSettings
	// WritesCode: git refs and files (contents, branches). Gitea's routes
	// are not-archived: 423 when archived, 403 on a mirror.
	WritesCode
	// WritesReleases: releases and tags. 403 when archived or a mirror.
	WritesReleases
	// WritesMirroring: push mirrors and mirror sync. Gitea's routes are
	// not-archived (423); a pull mirror may keep doing both.
	WritesMirroring
	// WritesIssues: issues, comments, labels, attachments, dependencies.
	// Gitea's routes are not-archived (423); pull mirrors keep their
	// issues writable.
	WritesIssues
	// WritesPush: a git push (forge.githost.v1.GitService/ReceivePack).
	// 403 when archived or a mirror, as Gitea's git endpoint.
	WritesPush
)

// Policies maps full gRPC method names to their policy. Each method
// declares its own in its proto (Declared); area.Policies collects them.
type Policies map[string]Policy

// infrastructure methods (reflection, health) need no policy.
func infrastructure(method string) bool {
	return strings.HasPrefix(method, "/grpc.reflection.") || strings.HasPrefix(method, "/grpc.health.")
}
