package protection

import (
	"context"

	"sort"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	protectionv1 "forge/gen/forge/protection/v1"
	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// Server is the gRPC adapter of the branch protection use cases.
type Server struct {
	protectionv1.UnimplementedBranchProtectionServiceServer
	svc *Service
}

var _ protectionv1.BranchProtectionServiceServer = (*Server)(nil)

// NewServer serves the rules kept in st.
func NewServer(svc *Service) *Server { return &Server{svc: svc} }

func repoOf(ctx context.Context) (Repo, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return Repo{}, err
	}
	return Repo{ID: r.ID, OwnerID: r.OwnerID, Org: r.Owner.Type == store.UserTypeOrganization}, nil
}

func (s *Server) ListBranchProtections(ctx context.Context, _ *protectionv1.ListBranchProtectionsRequest) (*protectionv1.ListBranchProtectionsResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := s.svc.List(ctx, r)
	if err != nil {
		return nil, err
	}
	names, err := s.svc.Names(ctx, r, rules)
	if err != nil {
		return nil, err
	}
	out := make([]*protectionv1.BranchProtection, len(rules))
	for i := range rules {
		out[i] = render(&rules[i], names)
	}
	return &protectionv1.ListBranchProtectionsResponse{Protections: out}, nil
}

func (s *Server) one(ctx context.Context, r Repo, p *store.BranchProtection) (*protectionv1.BranchProtection, error) {
	names, err := s.svc.Names(ctx, r, []store.BranchProtection{*p})
	if err != nil {
		return nil, err
	}
	return render(p, names), nil
}

func (s *Server) CreateBranchProtection(ctx context.Context, req *protectionv1.CreateBranchProtectionRequest) (*protectionv1.CreateBranchProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	l, err := lists(req.GetPushWhitelistUsernames(), req.GetPushWhitelistTeams(), req.GetMergeWhitelistUsernames(),
		req.GetMergeWhitelistTeams(), req.GetApprovalsWhitelistUsername(), req.GetApprovalsWhitelistTeams(), req.GetStatusCheckContexts())
	if err != nil {
		return nil, err
	}
	p := &store.BranchProtection{
		RuleName:                      req.GetRuleName(),
		EnablePush:                    req.GetEnablePush(),
		EnablePushWhitelist:           req.GetEnablePushWhitelist(),
		PushWhitelistDeployKeys:       req.GetPushWhitelistDeployKeys(),
		EnableMergeWhitelist:          req.GetEnableMergeWhitelist(),
		EnableStatusCheck:             req.GetEnableStatusCheck(),
		RequiredApprovals:             req.GetRequiredApprovals(),
		EnableApprovalsWhitelist:      req.GetEnableApprovalsWhitelist(),
		BlockOnRejectedReviews:        req.GetBlockOnRejectedReviews(),
		BlockOnOfficialReviewRequests: req.GetBlockOnOfficialReviewRequests(),
		BlockOnOutdatedBranch:         req.GetBlockOnOutdatedBranch(),
		DismissStaleApprovals:         req.GetDismissStaleApprovals(),
		IgnoreStaleApprovals:          req.GetIgnoreStaleApprovals(),
		RequireSignedCommits:          req.GetRequireSignedCommits(),
		ProtectedFilePatterns:         req.GetProtectedFilePatterns(),
		UnprotectedFilePatterns:       req.GetUnprotectedFilePatterns(),
	}
	p, err = s.svc.Create(ctx, r, req.GetBranchName(), p, l)
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.CreateBranchProtectionResponse{Protection: out}, nil
}

func (s *Server) GetBranchProtection(ctx context.Context, req *protectionv1.GetBranchProtectionRequest) (*protectionv1.GetBranchProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.Get(ctx, r, req.GetName())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.GetBranchProtectionResponse{Protection: out}, nil
}

func (s *Server) EditBranchProtection(ctx context.Context, req *protectionv1.EditBranchProtectionRequest) (*protectionv1.EditBranchProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	l, err := lists(req.PushWhitelistUsernames, req.PushWhitelistTeams, req.MergeWhitelistUsernames,
		req.MergeWhitelistTeams, req.ApprovalsWhitelistUsername, req.ApprovalsWhitelistTeams, req.StatusCheckContexts)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.Edit(ctx, r, req.GetName(), Edit{
		EnablePush: req.EnablePush, EnablePushWhitelist: req.EnablePushWhitelist,
		PushWhitelistDeployKeys: req.PushWhitelistDeployKeys, EnableMergeWhitelist: req.EnableMergeWhitelist,
		EnableStatusCheck: req.EnableStatusCheck, EnableApprovalsWhitelist: req.EnableApprovalsWhitelist,
		BlockOnRejectedReviews: req.BlockOnRejectedReviews, BlockOnOfficialReviewRequests: req.BlockOnOfficialReviewRequests,
		BlockOnOutdatedBranch: req.BlockOnOutdatedBranch, DismissStaleApprovals: req.DismissStaleApprovals,
		IgnoreStaleApprovals: req.IgnoreStaleApprovals, RequireSignedCommits: req.RequireSignedCommits,
		RequiredApprovals: req.RequiredApprovals, ProtectedFilePatterns: req.ProtectedFilePatterns,
		UnprotectedFilePatterns: req.UnprotectedFilePatterns, Lists: l,
	})
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, r, p)
	if err != nil {
		return nil, err
	}
	return &protectionv1.EditBranchProtectionResponse{Protection: out}, nil
}

func (s *Server) DeleteBranchProtection(ctx context.Context, req *protectionv1.DeleteBranchProtectionRequest) (*protectionv1.DeleteBranchProtectionResponse, error) {
	r, err := repoOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Delete(ctx, r, req.GetName()); err != nil {
		return nil, err
	}
	return &protectionv1.DeleteBranchProtectionResponse{}, nil
}

// lists turns the request's JSON arrays into names; nil stays nil
// (absent or null), entries must be strings.
func lists(pu, pt, mu, mt, au, at, ctxs *structpb.ListValue) (Lists, error) {
	var l Lists
	for _, f := range []struct {
		in  *structpb.ListValue
		out *[]string
	}{{pu, &l.PushUsers}, {pt, &l.PushTeams}, {mu, &l.MergeUsers}, {mt, &l.MergeTeams}, {au, &l.ApprovalUsers}, {at, &l.ApprovalTeams}, {ctxs, &l.Contexts}} {
		if f.in == nil {
			continue
		}
		if len(f.in.GetValues()) > MaxListItems {
			return l, errs.Newf(errs.Invalid, "a list holds at most %d entries", MaxListItems)
		}
		names := make([]string, 0, len(f.in.GetValues()))
		for _, v := range f.in.GetValues() {
			sv, ok := v.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return l, errs.New(errs.Invalid, "[]: cannot unmarshal a list entry that is not a string")
			}
			names = append(names, sv.StringValue)
		}
		*f.out = names
	}
	return l, nil
}

// render is Gitea's BranchProtection JSON of p.
func render(p *store.BranchProtection, n Names) *protectionv1.BranchProtection {
	users := func(l store.IDList) []string {
		out := []string{}
		for _, id := range l.IDs() {
			if u, ok := n.Users[id]; ok {
				out = append(out, u.Name)
			}
		}
		sort.Strings(out)
		return out
	}
	teams := func(l store.IDList) []string {
		out := []string{}
		for _, id := range l.IDs() {
			if t, ok := n.Teams[id]; ok {
				out = append(out, t.Name)
			}
		}
		sort.Strings(out)
		return out
	}
	branch := p.RuleName
	if IsGlob(p.RuleName) {
		branch = ""
	}
	var contexts *structpb.ListValue
	if c, set := p.Contexts(); set {
		contexts = &structpb.ListValue{Values: make([]*structpb.Value, 0, len(c))}
		for _, x := range c {
			contexts.Values = append(contexts.Values, structpb.NewStringValue(x))
		}
	}
	return &protectionv1.BranchProtection{
		BranchName:                    branch,
		RuleName:                      p.RuleName,
		EnablePush:                    p.EnablePush,
		EnablePushWhitelist:           p.EnablePushWhitelist,
		PushWhitelistUsernames:        users(p.PushWhitelistUserIDs),
		PushWhitelistTeams:            teams(p.PushWhitelistTeamIDs),
		PushWhitelistDeployKeys:       p.PushWhitelistDeployKeys,
		EnableMergeWhitelist:          p.EnableMergeWhitelist,
		MergeWhitelistUsernames:       users(p.MergeWhitelistUserIDs),
		MergeWhitelistTeams:           teams(p.MergeWhitelistTeamIDs),
		EnableStatusCheck:             p.EnableStatusCheck,
		StatusCheckContexts:           contexts,
		RequiredApprovals:             p.RequiredApprovals,
		EnableApprovalsWhitelist:      p.EnableApprovalsWhitelist,
		ApprovalsWhitelistUsername:    users(p.ApprovalsWhitelistUserIDs),
		ApprovalsWhitelistTeams:       teams(p.ApprovalsWhitelistTeamIDs),
		BlockOnRejectedReviews:        p.BlockOnRejectedReviews,
		BlockOnOfficialReviewRequests: p.BlockOnOfficialReviewRequests,
		BlockOnOutdatedBranch:         p.BlockOnOutdatedBranch,
		DismissStaleApprovals:         p.DismissStaleApprovals,
		IgnoreStaleApprovals:          p.IgnoreStaleApprovals,
		RequireSignedCommits:          p.RequireSignedCommits,
		ProtectedFilePatterns:         p.ProtectedFilePatterns,
		UnprotectedFilePatterns:       p.UnprotectedFilePatterns,
		CreatedAt:                     timestamppb.New(time.Unix(p.CreatedUnix, 0)),
		UpdatedAt:                     timestamppb.New(time.Unix(p.UpdatedUnix, 0)),
	}
}
