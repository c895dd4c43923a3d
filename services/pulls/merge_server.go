package pulls

import (
	"context"
	"forge/services/protection"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// MergeServer implements pullsv1.PullMergeServiceServer.
type MergeServer struct {
	pullsv1.UnimplementedPullMergeServiceServer
	merger *Merger
	store  MergeStore
	// auto runs scheduled merges (nil: none run).
	auto *AutoMerger
}

var _ pullsv1.PullMergeServiceServer = (*MergeServer)(nil)

// NewMergeServer builds the merge service.
func NewMergeServer(s MergeStore, g MergeGit, records BranchRecords, p *protection.Service) *MergeServer {
	return &MergeServer{merger: NewMerger(s, g, records).WithProtection(p), store: s}
}

// WithReviews counts the pull request's reviews in the merge checks (see
// Merger.WithReviews).
func (s *MergeServer) WithReviews(r *protection.Reviews) *MergeServer {
	s.merger.WithReviews(r.Facts)
	return s
}

// WithAutoMerges runs the scheduled merges (see AutoMerger), deciding
// their doers' access with checker.
func (s *MergeServer) WithAutoMerges(st AutoMergeStore, checker RepoResolver) *MergeServer {
	s.auto = NewAutoMerger(st, checker, s.merger)
	return s
}

// AutoMerges is the runner of scheduled merges (nil without
// WithAutoMerges); its Changed is the hook of what may let one run.
func (s *MergeServer) AutoMerges() *AutoMerger { return s.auto }

// RunAutoMerger runs scheduled merges until ctx is done.
func (s *MergeServer) RunAutoMerger(ctx context.Context) {
	if s.auto != nil {
		s.auto.Run(ctx)
	}
}

// IsPullRequestMerged is 204 for a merged pull request, 404 otherwise
// (also for a number that is no pull request).
func (s *MergeServer) IsPullRequestMerged(ctx context.Context, req *pullsv1.IsPullRequestMergedRequest) (*pullsv1.IsPullRequestMergedResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	pr, _, err := s.store.PullRequestByIndex(ctx, r.ID, req.GetIndex())
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	if !pr.HasMerged {
		return nil, errPullNotFound
	}
	return &pullsv1.IsPullRequestMergedResponse{}, nil
}

// MergePullRequest merges; the rule pull-merger admitted the caller.
func (s *MergeServer) MergePullRequest(ctx context.Context, req *pullsv1.MergePullRequestRequest) (*pullsv1.MergePullRequestResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := access.ObjectFrom(ctx); err != nil {
		return nil, err
	}
	caller := auth.FromContext(ctx)
	scheduled, err := s.merger.Merge(ctx, r, caller.User, MergeRequest{
		Index: req.GetIndex(), Style: req.GetDo(), Title: req.GetMergeTitleField(), Body: req.GetMergeMessageField(),
		HeadCommitID: req.GetHeadCommitId(), MergeCommitID: req.GetMergeCommitId(), DeleteBranch: req.GetDeleteBranchAfterMerge(),
		WhenChecksSucceed: req.GetMergeWhenChecksSucceed(), ForceMerge: req.GetForceMerge(),
	})
	if err != nil {
		return nil, err
	}
	return &pullsv1.MergePullRequestResponse{Created: scheduled}, nil
}

// CancelScheduledAutoMerge cancels the pull request's scheduled merge;
// the rule auto-merge-canceller found one and admitted the caller.
func (s *MergeServer) CancelScheduledAutoMerge(ctx context.Context, req *pullsv1.CancelScheduledAutoMergeRequest) (*pullsv1.CancelScheduledAutoMergeResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := access.ObjectFrom(ctx); err != nil {
		return nil, err
	}
	pr, _, err := s.store.PullRequestByIndex(ctx, r.ID, req.GetIndex())
	if err == nil {
		err = s.store.CancelAutoMerge(ctx, pr.ID, pr.IssueID, auth.FromContext(ctx).ID())
	}
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	return &pullsv1.CancelScheduledAutoMergeResponse{}, nil
}
