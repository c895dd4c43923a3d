package pulls

import (
	"context"
	"strings"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// ByBranchStore finds a pull request by its branches.
type ByBranchStore interface {
	// PullRequestByBranches returns store.ErrNotFound when no pull
	// request of the repository goes from that head into base.
	PullRequestByBranches(ctx context.Context, repoID int64, base, headOwner, headName, head string) (*store.PullRequest, *store.Issue, error)
}

// ByBranchServer implements pullsv1.PullByBranchServiceServer; it renders
// with the pull request server's view.
type ByBranchServer struct {
	pullsv1.UnimplementedPullByBranchServiceServer
	store ByBranchStore
	pulls *Server
}

var _ pullsv1.PullByBranchServiceServer = (*ByBranchServer)(nil)

// NewByBranchServer builds the service.
func NewByBranchServer(s ByBranchStore, pulls *Server) *ByBranchServer {
	return &ByBranchServer{store: s, pulls: pulls}
}

// GetPullRequestByBaseHead finds the pull request from head into base.
// The head repository is named only to pick among the repository's own
// pull requests (whose head repositories the list shows already), so it
// needs no visibility check of its own.
func (s *ByBranchServer) GetPullRequestByBaseHead(ctx context.Context, req *pullsv1.GetPullRequestByBaseHeadRequest) (*pullsv1.GetPullRequestByBaseHeadResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	owner, name, branch := splitHead(r, req.GetHead())
	_, is, err := s.store.PullRequestByBranches(ctx, r.ID, req.GetBase(), owner, name, branch)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	out, err := s.pulls.one(ctx, r, is)
	if err != nil {
		return nil, err
	}
	return &pullsv1.GetPullRequestByBaseHeadResponse{PullRequest: out}, nil
}

// splitHead reads Gitea's head forms: "branch" (the repository itself),
// "owner:branch" (owner's repository of the same name) and
// "owner/name:branch".
func splitHead(r *access.Repo, head string) (owner, name, branch string) {
	repo, branch, forked := strings.Cut(head, ":")
	if !forked {
		return r.Owner.Name, r.Name, head
	}
	owner, name, full := strings.Cut(repo, "/")
	if !full {
		name = r.Name
	}
	return owner, name, branch
}
