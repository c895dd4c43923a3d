package protection

import (
	"context"
	"sort"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	protectionv1 "forge/gen/forge/protection/v1"
	"forge/services/errs"
	"forge/services/store"
)

// TagServer is the gRPC adapter of the tag protection use cases.
type TagServer struct {
	protectionv1.UnimplementedTagProtectionServiceServer
	svc *Service
}

var _ protectionv1.TagProtectionServiceServer = (*TagServer)(nil)

// NewTagServer serves the tag rules of svc.
func NewTagServer(svc *Service) *TagServer { return &TagServer{svc: svc} }

func (s *TagServer) ListTagProtections(ctx context.Context, _ *protectionv1.ListTagProtectionsRequest) (*protectionv1.ListTagProtectionsResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := s.svc.ListTags(ctx, r)
	if err != nil {
		return nil, err
	}
	names, err := s.svc.TagNames(ctx, r, rules)
	if err != nil {
		return nil, err
	}
	out := make([]*protectionv1.TagProtection, len(rules))
	for i := range rules {
		out[i] = renderTag(&rules[i], names)
	}
	return &protectionv1.ListTagProtectionsResponse{Protections: out}, nil
}

func (s *TagServer) one(ctx context.Context, r Repo, p *store.TagProtection) (*protectionv1.TagProtection, error) {
	names, err := s.svc.TagNames(ctx, r, []store.TagProtection{*p})
	if err != nil {
		return nil, err
	}
	return renderTag(p, names), nil
}

func (s *TagServer) GetTagProtection(ctx context.Context, req *protectionv1.GetTagProtectionRequest) (*protectionv1.GetTagProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.GetTag(ctx, r, req.GetId())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.GetTagProtectionResponse{Protection: out}, nil
}

func (s *TagServer) CreateTagProtection(ctx context.Context, req *protectionv1.CreateTagProtectionRequest) (*protectionv1.CreateTagProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.CreateTag(ctx, r, req.GetNamePattern(), req.GetWhitelistUsernames(), req.GetWhitelistTeams())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.CreateTagProtectionResponse{Protection: out}, nil
}

func (s *TagServer) EditTagProtection(ctx context.Context, req *protectionv1.EditTagProtectionRequest) (*protectionv1.EditTagProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	users, err := nameList(req.WhitelistUsernames)
	if err != nil {
		return nil, err
	}
	teams, err := nameList(req.WhitelistTeams)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.EditTag(ctx, r, req.GetId(), req.NamePattern, users, teams)
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.EditTagProtectionResponse{Protection: out}, nil
}

func (s *TagServer) DeleteTagProtection(ctx context.Context, req *protectionv1.DeleteTagProtectionRequest) (*protectionv1.DeleteTagProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.DeleteTag(ctx, r, req.GetId()); err != nil {
		return nil, err
	}
	return &protectionv1.DeleteTagProtectionResponse{}, nil
}

// nameList is a JSON array of names; nil stays nil (absent or null).
func nameList(l *structpb.ListValue) ([]string, error) {
	if l == nil {
		return nil, nil
	}
	if len(l.GetValues()) > MaxListItems {
		return nil, errs.Newf(errs.Invalid, "a list holds at most %d entries", MaxListItems)
	}
	out := make([]string, 0, len(l.GetValues()))
	for _, v := range l.GetValues() {
		sv, ok := v.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return nil, errs.New(errs.Invalid, "[]: cannot unmarshal a list entry that is not a string")
		}
		out = append(out, sv.StringValue)
	}
	return out, nil
}

// renderTag is Gitea's TagProtection JSON of p.
func renderTag(p *store.TagProtection, n Names) *protectionv1.TagProtection {
	users := []string{}
	for _, id := range p.WhitelistUserIDs.IDs() {
		if u, ok := n.Users[id]; ok {
			users = append(users, u.Name)
		}
	}
	teams := []string{}
	for _, id := range p.WhitelistTeamIDs.IDs() {
		if t, ok := n.Teams[id]; ok {
			teams = append(teams, t.Name)
		}
	}
	sort.Strings(users)
	sort.Strings(teams)
	return &protectionv1.TagProtection{
		Id: p.ID, NamePattern: p.NamePattern, WhitelistUsernames: users, WhitelistTeams: teams,
		CreatedAt: timestamppb.New(time.Unix(p.CreatedUnix, 0)), UpdatedAt: timestamppb.New(time.Unix(p.UpdatedUnix, 0)),
	}
}
