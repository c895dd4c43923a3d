package labels

import (
	"context"
	"errors"
	"math"

	"google.golang.org/protobuf/types/known/structpb"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// errMixedLabels is Gitea's 400 for a labels array that is neither all
// numbers nor all strings.
var errMixedLabels = errs.New(errs.FailedPrecondition, "labels should be an array of strings or integers")

// LabelRefs are the labels an IssueLabelsOption names: ids or names.
type LabelRefs struct {
	IDs   []int64
	Names []string
}

// ParseLabelRefs reads Gitea's IssueLabelsOption.labels: all integers
// (label ids) or all strings (label names); anything else is 400.
func ParseLabelRefs(values []*structpb.Value) (LabelRefs, error) {
	var r LabelRefs
	for _, v := range values {
		switch k := v.GetKind().(type) {
		case *structpb.Value_NumberValue:
			n := k.NumberValue
			if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return r, errMixedLabels
			}
			r.IDs = append(r.IDs, int64(n))
		case *structpb.Value_StringValue:
			r.Names = append(r.Names, k.StringValue)
		default:
			return r, errMixedLabels
		}
	}
	if len(r.IDs) > 0 && len(r.Names) > 0 {
		return r, errMixedLabels
	}
	return r, nil
}

// IssueLabels lists the labels of issue index of r.
func (s *Service) IssueLabels(ctx context.Context, r *access.Repo, index int64) ([]store.Label, error) {
	ls, err := s.store.IssueLabels(ctx, r.ID, index)
	return ls, errs.Replace(err, store.ErrNotFound, errNotFound)
}

// EditIssueLabels adds (store.IssueLabelsAdd) or sets
// (store.IssueLabelsReplace) the labels of issue index of r; the rules
// (exclusive scopes, the labels that apply) are the store's one function.
func (s *Service) EditIssueLabels(ctx context.Context, r *access.Repo, actorID, index int64, mode store.IssueLabelMode, refs LabelRefs) ([]store.Label, error) {
	ls, err := s.store.EditIssueLabels(ctx, store.IssueLabelEdit{
		RepoID: r.ID, OrgID: r.OwnerID, Index: index, ActorID: actorID, Mode: mode,
		IDs: refs.IDs, Names: refs.Names,
	})
	return ls, errs.Replace(err, store.ErrNotFound, errNotFound)
}

// RemoveIssueLabel takes one label off issue index of r. The label must
// be one of the repository's or its organization's (else Gitea's 422);
// an issue without it is no error.
func (s *Service) RemoveIssueLabel(ctx context.Context, r *access.Repo, actorID, index, labelID int64) error {
	// The issue first: Gitea answers 404 for it before judging the label.
	if _, err := s.store.IssueLabels(ctx, r.ID, index); err != nil {
		return errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if _, err := s.labelOfRepo(ctx, r, labelID); err != nil {
		return err
	}
	_, err := s.store.EditIssueLabels(ctx, store.IssueLabelEdit{
		RepoID: r.ID, OrgID: r.OwnerID, Index: index, ActorID: actorID, Mode: store.IssueLabelsRemove,
		IDs: []int64{labelID},
	})
	return errs.Replace(err, store.ErrNotFound, errNotFound)
}

// labelOfRepo finds a label that applies to r's issues.
func (s *Service) labelOfRepo(ctx context.Context, r *access.Repo, id int64) (*store.Label, error) {
	l, err := s.store.LabelByID(ctx, store.LabelOwner{RepoID: r.ID}, id)
	if errors.Is(err, store.ErrNotFound) {
		l, err = s.store.LabelByID(ctx, store.LabelOwner{OrgID: r.OwnerID}, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Newf(errs.Invalid, "label does not exist [label_id: %d]", id)
	}
	return l, err
}

// ClearIssueLabels takes every label off issue index of r.
func (s *Service) ClearIssueLabels(ctx context.Context, r *access.Repo, actorID, index int64) error {
	_, err := s.store.EditIssueLabels(ctx, store.IssueLabelEdit{
		RepoID: r.ID, OrgID: r.OwnerID, Index: index, ActorID: actorID, Mode: store.IssueLabelsReplace,
	})
	return errs.Replace(err, store.ErrNotFound, errNotFound)
}
