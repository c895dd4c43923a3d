package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"forge/services/config"
	"forge/services/store"
)

// stackedPulls is a parent pull request (parent into main) and a child
// stacked on it (child into parent) in owner/proj, cloned in work: the
// child adds c.txt, and main then gets a c.txt of its own, so the child
// merges into parent but conflicts with main.
type stackedPulls struct {
	work          string
	parent, child int64
}

func openStacked(t *testing.T, s *testServer, c *gitea.Client, user, password, prefix string) stackedPulls {
	t.Helper()
	work := s.clone(t, user, password, user, "proj")
	parent, child := prefix+"parent", prefix+"child"
	gitCmd(t, work, "checkout", "-q", "-b", parent, "origin/main")
	commitFile(t, work, prefix+"p.txt", "parent\n", "parent work")
	gitCmd(t, work, "checkout", "-q", "-b", child)
	commitFile(t, work, prefix+"c.txt", "child\n", "child work")
	gitCmd(t, work, "push", "-q", "origin", parent, child)
	gitCmd(t, work, "checkout", "-q", "-B", "base", "origin/main")
	commitFile(t, work, prefix+"c.txt", "main\n", "main's own c.txt")
	gitCmd(t, work, "push", "-q", "origin", "base:main")
	p, _, err := c.CreatePullRequest(user, "proj", gitea.CreatePullRequestOption{Head: parent, Base: "main", Title: "Parent"})
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err := c.CreatePullRequest(user, "proj", gitea.CreatePullRequestOption{Head: child, Base: parent, Title: "Child"})
	if err != nil {
		t.Fatal(err)
	}
	waitPull(t, c, user, "proj", ch.Index, "the child mergeable into its parent", func(pr *gitea.PullRequest) bool { return pr.Mergeable })
	return stackedPulls{work: work, parent: p.Index, child: ch.Index}
}

func mergeDeleting(t *testing.T, c *gitea.Client, owner string, index int64) {
	t.Helper()
	del := true
	ok, resp, err := c.MergePullRequest(owner, "proj", index, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge, DeleteBranchAfterMerge: &del})
	if err != nil || !ok || resp.StatusCode != http.StatusOK {
		t.Fatalf("merge %d: %v %v", index, resp, err)
	}
}

// branchGone checks that the branch API no longer lists branch.
func branchGone(t *testing.T, c *gitea.Client, owner, repo, branch string) {
	t.Helper()
	if _, resp, err := c.GetRepoBranch(owner, repo, branch); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Fatalf("branch %s after the merge: %v %v", branch, resp, err)
	}
}

// targetChanges is the change-target-branch comments (Gitea's type 25)
// of a pull request's issue, as old->new by poster.
func targetChanges(t *testing.T, s *testServer, owner string, index int64) []string {
	t.Helper()
	ctx := context.Background()
	var rows []store.Comment
	err := s.App.Store.DB().WithContext(ctx).
		Where("type = ? AND issue_id = (SELECT issues.id FROM issues JOIN repositories ON repositories.id = issues.repo_id WHERE repositories.owner_name = ? AND repositories.name = ? AND issues.\"index\" = ?)",
			store.CommentTypeChangeTargetBranch, owner, "proj", index).
		Order("id").Find(&rows).Error
	if err != nil {
		t.Fatal(err)
	}
	users := map[int64]string{}
	var out []string
	for _, r := range rows {
		if _, ok := users[r.PosterID]; !ok {
			found, err := s.App.Store.UsersByID(ctx, []int64{r.PosterID})
			if err != nil || found[r.PosterID] == nil {
				t.Fatalf("poster %d: %v", r.PosterID, err)
			}
			users[r.PosterID] = found[r.PosterID].Name
		}
		out = append(out, r.OldRef+"->"+r.NewRef+" by "+users[r.PosterID])
	}
	return out
}

// stillThen reads the pull request for a while and fails when ok stops
// holding (what happens asynchronously must not undo it).
func stillThen(t *testing.T, c *gitea.Client, owner string, index int64, what string, ok func(*gitea.PullRequest) bool) {
	t.Helper()
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		pr, _, err := c.GetPullRequest(owner, "proj", index)
		if err != nil || !ok(pr) {
			t.Fatalf("%s: %+v base %+v %v", what, pr, pr.Base, err)
		}
	}
}

// TestPullRetargetChildrenOnMerge: merging a parent pull request with
// delete_branch_after_merge moves its child (whose base was the parent's
// head branch) onto main, as the same pull request: number, comments and
// state kept, a change-target-branch comment by the merger recorded, and
// its mergeability recomputed against main (where it conflicts). A closed
// child keeps its base, and a merge that keeps its branch retargets
// nothing.
func TestPullRetargetChildrenOnMerge(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		st := openStacked(t, s, alice, "alice", "alice-password", "")
		if _, _, err := alice.CreateIssueComment("alice", "proj", st.child, gitea.CreateIssueCommentOption{Body: "looks right"}); err != nil {
			t.Fatal(err)
		}
		// A closed child of the same parent.
		gitCmd(t, st.work, "checkout", "-q", "-b", "closed-child", "parent")
		commitFile(t, st.work, "x.txt", "x\n", "closed child work")
		gitCmd(t, st.work, "push", "-q", "origin", "closed-child")
		closedChild, _, err := alice.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "closed-child", Base: "parent", Title: "Closed child"})
		if err != nil {
			t.Fatal(err)
		}
		closed := gitea.StateClosed
		if _, _, err := alice.EditPullRequest("alice", "proj", closedChild.Index, gitea.EditPullRequestOption{State: &closed}); err != nil {
			t.Fatal(err)
		}

		mergeDeleting(t, alice, "alice", st.parent)
		branchGone(t, alice, "alice", "proj", "parent")
		gitCmd(t, st.work, "fetch", "-q", "origin")
		main := strings.TrimSpace(gitCmd(t, st.work, "rev-parse", "origin/main"))
		child := waitPull(t, alice, "alice", "proj", st.child, "the child retargeted onto main", func(pr *gitea.PullRequest) bool {
			return pr.Base.Ref == "main" && pr.Base.Sha == main && !pr.Mergeable
		})
		if child.State != gitea.StateOpen || child.HasMerged || child.Title != "Child" || child.Comments != 1 || child.Head.Ref != "child" {
			t.Fatalf("the retargeted child: %+v", child)
		}
		stillThen(t, alice, "alice", st.child, "the child stays open on main", func(pr *gitea.PullRequest) bool {
			return pr.State == gitea.StateOpen && pr.Base.Ref == "main"
		})
		comments, _, err := alice.ListIssueComments("alice", "proj", st.child, gitea.ListIssueCommentOptions{})
		if err != nil || len(comments) != 1 || comments[0].Body != "looks right" {
			t.Fatalf("the child's comments: %v %v", comments, err)
		}
		if got := targetChanges(t, s, "alice", st.child); len(got) != 1 || got[0] != "parent->main by alice" {
			t.Fatalf("the child's change-target-branch comments: %v", got)
		}
		// No pull request was created: the parent, the child and the closed one.
		all, _, err := alice.ListRepoPullRequests("alice", "proj", gitea.ListPullRequestsOptions{State: gitea.StateAll})
		if err != nil || len(all) != 3 {
			t.Fatalf("pull requests after the merge: %d %v", len(all), err)
		}
		if pr, _, err := alice.GetPullRequest("alice", "proj", closedChild.Index); err != nil || pr.Base.Ref != "parent" || pr.State != gitea.StateClosed {
			t.Fatalf("the closed child: %+v %v", pr, err)
		}
		if got := targetChanges(t, s, "alice", closedChild.Index); len(got) != 0 {
			t.Fatalf("the closed child's change-target-branch comments: %v", got)
		}

		// A merge that keeps its head branch leaves its children alone.
		kept := openStacked(t, s, alice, "alice", "alice-password", "kept-")
		ok, _, err := alice.MergePullRequest("alice", "proj", kept.parent, gitea.MergePullRequestOption{Style: gitea.MergeStyleMerge})
		if err != nil || !ok {
			t.Fatalf("merge keeping the branch: %v", err)
		}
		stillThen(t, alice, "alice", kept.child, "the child of a kept branch", func(pr *gitea.PullRequest) bool {
			return pr.State == gitea.StateOpen && pr.Base.Ref == "kept-parent"
		})
	})
}

// TestPullRetargetChildrenOff: with RETARGET_CHILDREN_ON_MERGE = false,
// the merge deletes the parent's branch and the child, whose base it was,
// is closed (not merged), its base unchanged.
func TestPullRetargetChildrenOff(t *testing.T) {
	t.Parallel()
	off := func(cfg *config.Config) { cfg.Repository.RetargetChildrenOnMerge = false }
	eachBackend(t, off, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		st := openStacked(t, s, alice, "alice", "alice-password", "")

		mergeDeleting(t, alice, "alice", st.parent)
		branchGone(t, alice, "alice", "proj", "parent")
		waitPull(t, alice, "alice", "proj", st.child, "the child closed with its base", func(pr *gitea.PullRequest) bool {
			return pr.State == gitea.StateClosed && !pr.HasMerged && pr.Base.Ref == "parent" && pr.Closed != nil
		})
		if got := targetChanges(t, s, "alice", st.child); len(got) != 0 {
			t.Fatalf("change-target-branch comments with retargeting off: %v", got)
		}
		if r, _, err := alice.GetRepo("alice", "proj"); err != nil || r.OpenPulls != 0 {
			t.Fatalf("open pull requests: %+v %v", r, err)
		}
	})
}

// TestPullRetargetNotAcrossForks: bob forks alice's repository, where
// child is stacked on parent, and offers his copy of parent (the same
// commit) to alice's main; alice merges it with delete_branch_after_merge.
// Nothing is retargeted: not alice's child (her parent branch is not the
// merged head, however alike), nor bob's child in his fork stacked on his
// parent, whose branch stays.
func TestPullRetargetNotAcrossForks(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		mine := openStacked(t, s, alice, "alice", "alice-password", "")
		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		theirs, _, err := bob.CreatePullRequest("bob", "proj", gitea.CreatePullRequestOption{Head: "child", Base: "parent", Title: "Bob's child"})
		if err != nil {
			t.Fatal(err)
		}
		fromFork, _, err := bob.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "bob:parent", Base: "main", Title: "From the fork"})
		if err != nil {
			t.Fatal(err)
		}

		mergeDeleting(t, alice, "alice", fromFork.Index)
		waitPull(t, alice, "alice", "proj", fromFork.Index, "merged", func(pr *gitea.PullRequest) bool { return pr.HasMerged })
		stillThen(t, alice, "alice", mine.child, "alice's child", func(pr *gitea.PullRequest) bool {
			return pr.State == gitea.StateOpen && pr.Base.Ref == "parent"
		})
		stillThen(t, bob, "bob", theirs.Index, "bob's child in his fork", func(pr *gitea.PullRequest) bool {
			return pr.State == gitea.StateOpen && pr.Base.Ref == "parent"
		})
		for _, owner := range []string{"alice", "bob"} {
			if _, _, err := alice.GetRepoBranch(owner, "proj", "parent"); err != nil {
				t.Fatalf("%s's parent branch: %v", owner, err)
			}
		}
		if got := targetChanges(t, s, "alice", mine.child); len(got) != 0 {
			t.Fatalf("alice's change-target-branch comments: %v", got)
		}
		if got := targetChanges(t, s, "bob", theirs.Index); len(got) != 0 {
			t.Fatalf("bob's change-target-branch comments: %v", got)
		}
	})
}

// TestPullBranchDeletionClosesPulls: deleting a branch closes (never
// retargets, never merges) the open pull requests whose head or base it
// was, however it is deleted: through the branch API, by git push
// --delete, and by a push deleting a fork's branch that a pull request
// into the parent repository comes from. Other pull requests stay open.
func TestPullBranchDeletionClosesPulls(t *testing.T) {
	t.Parallel()
	eachBackend(t, nil, func(t *testing.T, s *testServer) {
		aliceTok := s.seedUser("alice", "alice-password", false)
		bobTok := s.seedUser("bob", "bob-password", false)
		alice := s.sdk(gitea.SetToken(aliceTok))
		bob := s.sdk(gitea.SetToken(bobTok))
		s.createRepo(t, aliceTok, "proj", true, false)
		api := openStacked(t, s, alice, "alice", "alice-password", "api-")
		push := openStacked(t, s, alice, "alice", "alice-password", "push-")
		other := openStacked(t, s, alice, "alice", "alice-password", "other-")
		closedNow := func(index int64, base string) func(pr *gitea.PullRequest) bool {
			return func(pr *gitea.PullRequest) bool {
				return pr.State == gitea.StateClosed && !pr.HasMerged && pr.Base.Ref == base && pr.Closed != nil
			}
		}

		// Through the branch API: the parent (its head) and the child (its
		// base) are closed.
		if ok, resp, err := alice.DeleteRepoBranch("alice", "proj", "api-parent"); err != nil || !ok || resp.StatusCode != 204 {
			t.Fatalf("delete api-parent: %v %v", resp, err)
		}
		waitPull(t, alice, "alice", "proj", api.parent, "the branch's pull request (API)", closedNow(api.parent, "main"))
		waitPull(t, alice, "alice", "proj", api.child, "the pull request into the branch (API)", closedNow(api.child, "api-parent"))

		// By git push --delete.
		gitCmd(t, push.work, "push", "-q", "origin", "--delete", "push-parent")
		waitPull(t, alice, "alice", "proj", push.parent, "the branch's pull request (push)", closedNow(push.parent, "main"))
		waitPull(t, alice, "alice", "proj", push.child, "the pull request into the branch (push)", closedNow(push.child, "push-parent"))

		// A pull request from a fork's branch, deleted by a push to the fork.
		if _, _, err := bob.CreateFork("alice", "proj", gitea.CreateForkOption{}); err != nil {
			t.Fatal(err)
		}
		fw := s.clone(t, "bob", "bob-password", "bob", "proj")
		gitCmd(t, fw, "checkout", "-q", "-b", "fix")
		commitFile(t, fw, "fix.txt", "fixed\n", "fix it")
		gitCmd(t, fw, "push", "-q", "origin", "fix")
		fromFork, _, err := bob.CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "bob:fix", Base: "main", Title: "Fix"})
		if err != nil {
			t.Fatal(err)
		}
		gitCmd(t, fw, "push", "-q", "origin", "--delete", "fix")
		waitPull(t, alice, "alice", "proj", fromFork.Index, "the fork branch's pull request", closedNow(fromFork.Index, "main"))

		for _, index := range []int64{other.parent, other.child} {
			stillThen(t, alice, "alice", index, "a pull request of other branches", func(pr *gitea.PullRequest) bool {
				return pr.State == gitea.StateOpen
			})
		}
		if r, _, err := alice.GetRepo("alice", "proj"); err != nil || r.OpenPulls != 2 {
			t.Fatalf("open pull requests: %+v %v", r, err)
		}
	})
}
