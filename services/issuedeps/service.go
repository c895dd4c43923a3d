package issuedeps

import (
	"context"

	"forge/services/store"
)

// Store is what the dependencies area reads and writes.
type Store interface {
	// IssueByIndex returns the issue numbered index in a repository;
	// store.ErrNotFound when there is none.
	IssueByIndex(ctx context.Context, repoID, index int64) (*store.Issue, error)
	// AddIssueDependency makes issueID depend on dependencyID; returns
	// store.ErrDependencySelf, ErrDependencyExists (409),
	// ErrDependencyCycle or ErrNotFound (an issue is gone).
	AddIssueDependency(ctx context.Context, issueID, dependencyID int64) error
	// RemoveIssueDependency removes it; store.ErrDependencyNotFound when
	// there is none.
	RemoveIssueDependency(ctx context.Context, issueID, dependencyID int64) error
	// ListIssueDependencies returns a page of related issues the viewer
	// may read (opts.Visible).
	ListIssueDependencies(ctx context.Context, opts store.DependencyListOptions) ([]store.Issue, error)
	// RepositoriesByID names the repositories of listed issues; those
	// gone are absent.
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)
}

// Relation says which way a request links issues.
type Relation int

const (
	// DependsOn: the URL's issue depends on the body's (…/dependencies).
	DependsOn Relation = iota
	// Blocks: the URL's issue blocks the body's, which depends on it
	// (…/blocks).
	Blocks
)

// Service holds the dependency use cases.
type Service struct {
	store Store
}

// NewService returns the use cases. ([service]
// ALLOW_CROSS_REPOSITORY_DEPENDENCIES is the access checker's: the rules
// relating issues apply it.)
func NewService(s Store) *Service {
	return &Service{store: s}
}
