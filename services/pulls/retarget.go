package pulls

import (
	"context"

	"forge/services/access"
	"forge/services/failpoint"
	"forge/services/store"
)

// FailpointAfterRetarget is the test-only failpoint (see package
// failpoint) between retargeting a merged pull request's children and
// deleting its head branch.
const FailpointAfterRetarget = "after-retarget-children"

// RetargetChildren sets [repository.pull-request]
// RETARGET_CHILDREN_ON_MERGE on the merge service; changed is told about
// the repository whose pull requests were retargeted (the refresher,
// which recomputes their state against the new base).
func (s *MergeServer) RetargetChildren(on bool, changed func(ctx context.Context, repoID int64)) *MergeServer {
	s.merger.retarget = on
	s.merger.changed = changed
	return s
}

// retargetChildren runs before the merged head branch of pr is deleted:
// with RETARGET_CHILDREN_ON_MERGE, and only for a pull request from a
// branch of its own repository, the open pull requests whose base is that
// branch move onto pr's base (store.RetargetChildPullRequests).
//
// Retargeting comes first so that a crash between it and the deletion
// leaves every open pull request on a branch that exists: the children
// are already on the new base and the head branch is still there. Had
// the branch gone first, the refresher would close the children (the rule
// for a branch deleted any other way). An error means the branch must not
// be deleted, for the same reason.
func (m *Merger) retargetChildren(ctx context.Context, base *access.Repo, pr *store.PullRequest, doer *store.User) error {
	if !m.retarget || pr.HeadRepoID != base.ID {
		return nil
	}
	moved, err := m.store.RetargetChildPullRequests(ctx, store.ChildRetarget{
		RepoID: base.ID, From: pr.HeadBranch, To: pr.BaseBranch, DoerID: doer.ID,
	})
	if err != nil {
		return err
	}
	failpoint.Hit(FailpointAfterRetarget)
	if len(moved) > 0 && m.changed != nil {
		m.changed(ctx, base.ID)
	}
	return nil
}
