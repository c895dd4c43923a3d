package pulls

import (
	"context"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/auth"
)

// UpdateServer implements pullsv1.PullUpdateServiceServer.
type UpdateServer struct {
	pullsv1.UnimplementedPullUpdateServiceServer
	updater *Updater
}

var _ pullsv1.PullUpdateServiceServer = (*UpdateServer)(nil)

// NewUpdateServer builds the update service.
func NewUpdateServer(s UpdateStore, g UpdateGit, records BranchRecords) *UpdateServer {
	return &UpdateServer{updater: NewUpdater(s, g, records)}
}

// UpdatePullRequest updates the head branch; the rule pull-updater
// admitted the caller and loaded the head repository.
func (s *UpdateServer) UpdatePullRequest(ctx context.Context, req *pullsv1.UpdatePullRequestRequest) (*pullsv1.UpdatePullRequestResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	o, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.updater.Update(ctx, r, o.Repo, auth.FromContext(ctx).User, req.GetIndex(), req.GetStyle()); err != nil {
		return nil, err
	}
	return &pullsv1.UpdatePullRequestResponse{}, nil
}
