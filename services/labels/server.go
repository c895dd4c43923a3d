package labels

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	labelsv1 "forge/gen/forge/labels/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/store"
)

// Server implements labelsv1.LabelServiceServer: it decodes requests,
// calls the use cases (Service) and renders labels. The repository comes
// resolved and authorized from the interceptor (access.RepoFrom).
type Server struct {
	labelsv1.UnimplementedLabelServiceServer
	svc    *Service
	root   string
	limits paging.Limits
}

var _ labelsv1.LabelServiceServer = (*Server)(nil)

// NewServer builds the service; rootURL ends with "/".
func NewServer(st Store, rootURL string, limits paging.Limits) *Server {
	return &Server{svc: NewService(st), root: rootURL, limits: limits}
}

// label renders a label; repo is the repository it is seen from (its
// owner names an organization label's URL).
func (s *Server) label(r *access.Repo, l *store.Label) *labelsv1.Label {
	url := fmt.Sprintf("%sapi/v1/repos/%s/%s/labels/%d", s.root, r.Owner.Name, r.Name, l.ID)
	if l.OrgID != 0 {
		url = fmt.Sprintf("%sapi/v1/orgs/%s/labels/%d", s.root, r.Owner.Name, l.ID)
	}
	return &labelsv1.Label{
		Id: l.ID, Name: l.Name, Exclusive: l.Exclusive, IsArchived: l.ArchivedUnix != 0,
		Color: strings.TrimPrefix(l.Color, "#"), Description: l.Description, Url: url,
	}
}

func (s *Server) labels(r *access.Repo, ls []store.Label) []*labelsv1.Label {
	out := make([]*labelsv1.Label, len(ls))
	for i := range ls {
		out[i] = s.label(r, &ls[i])
	}
	return out
}

func repoOwner(r *access.Repo) store.LabelOwner { return store.LabelOwner{RepoID: r.ID} }

func (s *Server) ListRepoLabels(ctx context.Context, req *labelsv1.ListRepoLabelsRequest) (*labelsv1.ListRepoLabelsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.List(ctx, store.LabelListOptions{
		Owner: repoOwner(r), Sort: req.GetSort(), Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, err
	}
	return &labelsv1.ListRepoLabelsResponse{Labels: s.labels(r, list), TotalCount: total}, nil
}

func (s *Server) GetRepoLabel(ctx context.Context, req *labelsv1.GetRepoLabelRequest) (*labelsv1.GetRepoLabelResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Get(ctx, repoOwner(r), req.GetId())
	if err != nil {
		return nil, err
	}
	return &labelsv1.GetRepoLabelResponse{Label: s.label(r, l)}, nil
}

func (s *Server) CreateRepoLabel(ctx context.Context, req *labelsv1.CreateRepoLabelRequest) (*labelsv1.CreateRepoLabelResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Create(ctx, repoOwner(r), NewLabel{
		Name: req.GetName(), Color: req.GetColor(), Description: req.GetDescription(),
		Exclusive: req.GetExclusive(), Archived: req.GetIsArchived(),
	})
	if err != nil {
		return nil, err
	}
	return &labelsv1.CreateRepoLabelResponse{Label: s.label(r, l)}, nil
}

func (s *Server) EditRepoLabel(ctx context.Context, req *labelsv1.EditRepoLabelRequest) (*labelsv1.EditRepoLabelResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Edit(ctx, repoOwner(r), req.GetId(), LabelEdit{
		Name: req.Name, Color: req.Color, Description: req.Description,
		Exclusive: req.Exclusive, Archived: req.IsArchived,
	})
	if err != nil {
		return nil, err
	}
	return &labelsv1.EditRepoLabelResponse{Label: s.label(r, l)}, nil
}

func (s *Server) DeleteRepoLabel(ctx context.Context, req *labelsv1.DeleteRepoLabelRequest) (*labelsv1.DeleteRepoLabelResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Delete(ctx, repoOwner(r), req.GetId()); err != nil {
		return nil, err
	}
	return &labelsv1.DeleteRepoLabelResponse{}, nil
}

func (s *Server) ListIssueLabels(ctx context.Context, req *labelsv1.ListIssueLabelsRequest) (*labelsv1.ListIssueLabelsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := s.svc.IssueLabels(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	return &labelsv1.ListIssueLabelsResponse{Labels: s.labels(r, ls)}, nil
}

func (s *Server) AddIssueLabels(ctx context.Context, req *labelsv1.AddIssueLabelsRequest) (*labelsv1.AddIssueLabelsResponse, error) {
	ls, r, err := s.editIssueLabels(ctx, req, store.IssueLabelsAdd)
	if err != nil {
		return nil, err
	}
	return &labelsv1.AddIssueLabelsResponse{Labels: s.labels(r, ls)}, nil
}

func (s *Server) ReplaceIssueLabels(ctx context.Context, req *labelsv1.ReplaceIssueLabelsRequest) (*labelsv1.ReplaceIssueLabelsResponse, error) {
	ls, r, err := s.editIssueLabels(ctx, req, store.IssueLabelsReplace)
	if err != nil {
		return nil, err
	}
	return &labelsv1.ReplaceIssueLabelsResponse{Labels: s.labels(r, ls)}, nil
}

// issueLabelsRequest is what AddIssueLabelsRequest and
// ReplaceIssueLabelsRequest share.
type issueLabelsRequest interface {
	GetIndex() int64
	GetLabels() []*structpb.Value
}

func (s *Server) editIssueLabels(ctx context.Context, req issueLabelsRequest, mode store.IssueLabelMode) ([]store.Label, *access.Repo, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	refs, err := ParseLabelRefs(req.GetLabels())
	if err != nil {
		return nil, nil, err
	}
	ls, err := s.svc.EditIssueLabels(ctx, r, auth.FromContext(ctx).ID(), req.GetIndex(), mode, refs)
	return ls, r, err
}

func (s *Server) ClearIssueLabels(ctx context.Context, req *labelsv1.ClearIssueLabelsRequest) (*labelsv1.ClearIssueLabelsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.ClearIssueLabels(ctx, r, auth.FromContext(ctx).ID(), req.GetIndex()); err != nil {
		return nil, err
	}
	return &labelsv1.ClearIssueLabelsResponse{}, nil
}

func (s *Server) DeleteIssueLabel(ctx context.Context, req *labelsv1.DeleteIssueLabelRequest) (*labelsv1.DeleteIssueLabelResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.RemoveIssueLabel(ctx, r, auth.FromContext(ctx).ID(), req.GetIndex(), req.GetId()); err != nil {
		return nil, err
	}
	return &labelsv1.DeleteIssueLabelResponse{}, nil
}

// orgLabel renders an organization's label.
func (s *Server) orgLabel(o *access.Org, l *store.Label) *labelsv1.Label {
	return &labelsv1.Label{
		Id: l.ID, Name: l.Name, Exclusive: l.Exclusive, IsArchived: l.ArchivedUnix != 0,
		Color: strings.TrimPrefix(l.Color, "#"), Description: l.Description,
		Url: fmt.Sprintf("%sapi/v1/orgs/%s/labels/%d", s.root, o.Name, l.ID),
	}
}

func orgOwner(o *access.Org) store.LabelOwner { return store.LabelOwner{OrgID: o.ID} }

func (s *Server) ListOrgLabels(ctx context.Context, req *labelsv1.ListOrgLabelsRequest) (*labelsv1.ListOrgLabelsResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.svc.List(ctx, store.LabelListOptions{
		Owner: orgOwner(o), Sort: req.GetSort(), Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, err
	}
	out := &labelsv1.ListOrgLabelsResponse{Labels: make([]*labelsv1.Label, len(list)), TotalCount: total}
	for i := range list {
		out.Labels[i] = s.orgLabel(o, &list[i])
	}
	return out, nil
}

func (s *Server) GetOrgLabel(ctx context.Context, req *labelsv1.GetOrgLabelRequest) (*labelsv1.GetOrgLabelResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Get(ctx, orgOwner(o), req.GetId())
	if err != nil {
		return nil, err
	}
	return &labelsv1.GetOrgLabelResponse{Label: s.orgLabel(o, l)}, nil
}

func (s *Server) CreateOrgLabel(ctx context.Context, req *labelsv1.CreateOrgLabelRequest) (*labelsv1.CreateOrgLabelResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Create(ctx, orgOwner(o), NewLabel{
		Name: req.GetName(), Color: req.GetColor(), Description: req.GetDescription(),
		Exclusive: req.GetExclusive(), Archived: req.GetIsArchived(),
	})
	if err != nil {
		return nil, err
	}
	return &labelsv1.CreateOrgLabelResponse{Label: s.orgLabel(o, l)}, nil
}

func (s *Server) EditOrgLabel(ctx context.Context, req *labelsv1.EditOrgLabelRequest) (*labelsv1.EditOrgLabelResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	l, err := s.svc.Edit(ctx, orgOwner(o), req.GetId(), LabelEdit{
		Name: req.Name, Color: req.Color, Description: req.Description,
		Exclusive: req.Exclusive, Archived: req.IsArchived,
	})
	if err != nil {
		return nil, err
	}
	return &labelsv1.EditOrgLabelResponse{Label: s.orgLabel(o, l)}, nil
}

func (s *Server) DeleteOrgLabel(ctx context.Context, req *labelsv1.DeleteOrgLabelRequest) (*labelsv1.DeleteOrgLabelResponse, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Delete(ctx, orgOwner(o), req.GetId()); err != nil {
		return nil, err
	}
	return &labelsv1.DeleteOrgLabelResponse{}, nil
}
