// Package labels serves forge.labels.v1.LabelService: the labels of a
// repository and the labels put on its issues.
//
// Rules: who may call is declared per method in the proto and enforced by
// the auth interceptor (reads: read access to the repository's issues;
// writes: write access there). A colour is six hex digits (three are
// doubled), with or without "#", stored lowercase with "#" and answered
// without. An edit leaves every field it does not carry as it is,
// is_archived included (forge differs from Gitea 1.22 there); archiving
// records when. The exclusive-scope rule on issues lives in one store
// function (store.Store.EditIssueLabels).
package labels

import (
	"context"

	"forge/services/store"
)

// Store is what the label use cases read and write. *store.Store
// implements it (checked in cmd/forge/app). Errors other than the ones
// named are internal failures.
type Store interface {
	// CreateLabel stores a new label of l.RepoID or l.OrgID.
	CreateLabel(ctx context.Context, l *store.Label) error
	// LabelByID and LabelByName return store.ErrNotFound when the owner
	// has no such label.
	LabelByID(ctx context.Context, o store.LabelOwner, id int64) (*store.Label, error)
	LabelByName(ctx context.Context, o store.LabelOwner, name string) (*store.Label, error)
	// ListLabels returns a page of an owner's labels and their total.
	ListLabels(ctx context.Context, o store.LabelListOptions) ([]store.Label, int64, error)
	// UpdateLabel applies change to the locked label; store.ErrNotFound
	// when the owner has no such label.
	UpdateLabel(ctx context.Context, o store.LabelOwner, id int64, change func(l *store.Label) error) (*store.Label, error)
	// DeleteLabel returns store.ErrNotFound when the owner has no such
	// label.
	DeleteLabel(ctx context.Context, o store.LabelOwner, id int64) error
	// IssueLabels returns store.ErrNotFound when the issue does not exist.
	IssueLabels(ctx context.Context, repoID, index int64) ([]store.Label, error)
	// EditIssueLabels returns store.ErrNotFound when the issue does not
	// exist and store.LabelScopeConflict's error when the request names
	// two labels of one exclusive scope.
	EditIssueLabels(ctx context.Context, e store.IssueLabelEdit) ([]store.Label, error)
}

// Service holds the label rules apart from any transport: the gRPC
// adapter (Server) decodes a request, calls one of its methods and
// renders the result. Owner labels (repository, later organization) are
// in labels.go, issue labels in issue_labels.go.
type Service struct {
	store Store
}

// NewService builds the use cases on st.
func NewService(st Store) *Service { return &Service{store: st} }
