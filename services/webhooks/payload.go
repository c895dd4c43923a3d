package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	pullsv1 "forge/gen/forge/pulls/v1"
	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	webhooksv1 "forge/gen/forge/webhooks/v1"
	"forge/services/access"
	"forge/services/git"
	"forge/services/issues"
	"forge/services/pulls"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// PayloadStore is what rendering an event reads.
type PayloadStore interface {
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	IssuesByID(ctx context.Context, ids []int64) (map[int64]*store.Issue, error)
	// CommentByID: store.ErrNotFound when the repository has no such
	// comment.
	CommentByID(ctx context.Context, repoID, id int64) (*store.Comment, error)
	// ReviewByID: store.ErrNotFound when there is no such review.
	ReviewByID(ctx context.Context, id int64) (*store.Review, error)
	// ReleaseByID: store.ErrNotFound when there is no such release.
	ReleaseByID(ctx context.Context, repoID, id int64) (*store.Release, error)
	AttachmentsOf(ctx context.Context, repoID int64, column string, ids []int64) (map[int64][]store.Attachment, error)
}

// Renderers turn an event into Gitea's payload with the renderers the
// areas answer the API with: repositories, issues, comments and users
// look in a payload exactly as the API shows them.
type Renderers struct {
	Store   PayloadStore
	Git     *git.Store
	RootURL string
	Users   users.Renderer
	Repos   repos.Renderer
	Issues  issues.Renderer
	Pulls   pulls.Renderer
	// Releases renders releases.
	Releases releases.Renderer
}

// rendered is an event ready to be queued: its Gitea event type
// (X-Gitea-Event-Type, what hooks choose), its payload, and the branch a
// branch filter checks ("" for events without one).
type rendered struct {
	typ     string
	payload proto.Message
	branch  string
}

// Outbox kinds of the activity the issue tracker records (store.Activity
// kinds) map to Gitea's event types and actions, for issues and for pull
// requests.
var issueActions = map[string]struct{ typ, pullTyp, action string }{
	store.ActivityIssueCreated:  {evIssues, evPullRequest, "opened"},
	store.ActivityIssueClosed:   {evIssues, evPullRequest, "closed"},
	store.ActivityIssueReopened: {evIssues, evPullRequest, "reopened"},
	store.ActivityTitleChanged:  {evIssues, evPullRequest, "edited"},
	store.ActivityLabeled:       {evIssueLabel, evPullRequestLabel, "label_updated"},
	store.ActivityAssigned:      {evIssueAssign, evPullRequestAssign, "assigned"},
	store.HookKindUnassigned:    {evIssueAssign, evPullRequestAssign, "unassigned"},
	store.ActivityCommented:     {evIssueComment, evPullRequestComment, "created"},
}

// errSkip: the event has nothing to send (its issue or repository is
// gone, or it is of a kind forge does not deliver yet).
var errSkip = fmt.Errorf("webhooks: nothing to send")

// render builds the payload of e.
func (r *Renderers) render(ctx context.Context, e *store.HookEvent) (*rendered, error) {
	var repo *store.Repository
	if e.Kind == store.HookKindRepoDeleted {
		// The row is gone; the event holds it as it was.
		repo = new(store.Repository)
		if err := json.Unmarshal([]byte(e.Extra), repo); err != nil {
			return nil, errSkip
		}
	} else {
		repos, err := r.Store.RepositoriesByID(ctx, []int64{e.RepoID})
		if err != nil {
			return nil, err
		}
		if repo = repos[e.RepoID]; repo == nil {
			return nil, errSkip
		}
	}
	people, err := r.Store.UsersByID(ctx, []int64{repo.OwnerID, e.ActorID})
	if err != nil {
		return nil, err
	}
	owner := people[repo.OwnerID]
	if owner == nil {
		return nil, errSkip
	}
	// As Gitea: the repository as its owner sees it.
	repoJSON := r.Repos.Repository(&access.Repo{Repository: repo, Owner: owner, Mode: store.AccessOwner}, nil)
	sender := r.Users.User(ghostUnless(people[e.ActorID]), nil)

	switch e.Kind {
	case KindTest, KindPush:
		return r.push(ctx, e, repo, repoJSON, sender)
	case KindCreate:
		return &rendered{typ: evCreate, branch: e.Ref, payload: &webhooksv1.CreatePayload{Sha: e.NewSHA, Ref: e.Ref,
			RefType: refType(e), Repository: repoJSON, Sender: sender}}, nil
	case KindDelete:
		return &rendered{typ: evDelete, branch: e.Ref, payload: &webhooksv1.DeletePayload{Ref: e.Ref, RefType: refType(e),
			PusherType: "user", Repository: repoJSON, Sender: sender}}, nil
	case store.HookKindRepoCreated, store.HookKindRepoDeleted:
		action := "created"
		if e.Kind == store.HookKindRepoDeleted {
			action = "deleted"
		}
		return &rendered{typ: evRepository, payload: &webhooksv1.RepositoryPayload{Action: action, Repository: repoJSON,
			Organization: r.Users.User(owner, nil), Sender: sender}}, nil
	case store.HookKindReleaseDeleted:
		rel := new(store.Release)
		if err := json.Unmarshal([]byte(e.Extra), rel); err != nil {
			return nil, errSkip
		}
		return r.releaseOf(ctx, rel, "deleted", nil, &access.Repo{Repository: repo, Owner: owner, Mode: store.AccessOwner}, repoJSON, sender)
	case store.HookKindFork:
		return r.fork(ctx, e, repoJSON, sender)
	case store.HookKindReleasePublished, store.HookKindReleaseUpdated:
		return r.release(ctx, e, &access.Repo{Repository: repo, Owner: owner, Mode: store.AccessOwner}, repoJSON, sender)
	}
	act, ok := issueActions[e.Kind]
	switch e.Kind {
	case store.HookKindPullSync:
		act, ok = issueActions[store.ActivityIssueCreated], true
		act.pullTyp, act.action = evPullRequestSync, "synchronized"
	case store.HookKindReview:
		act, ok = issueActions[store.ActivityIssueCreated], true
	case store.HookKindReviewRequested, store.HookKindReviewRequestRemoved:
		act, ok = issueActions[store.ActivityIssueCreated], true
		act.pullTyp, act.action = evPullRequestReviewRequest, e.Kind
	}
	if !ok {
		return nil, errSkip
	}
	found, err := r.Store.IssuesByID(ctx, []int64{e.IssueID})
	if err != nil {
		return nil, err
	}
	is := found[e.IssueID]
	if is == nil {
		return nil, errSkip
	}
	list, err := r.Issues.Issues(ctx, nil, []store.Issue{*is}, func(int64) (string, string) { return owner.Name, repo.Name })
	if err != nil || len(list) == 0 {
		return nil, err
	}
	if is.IsPull && act.typ != evIssueComment {
		pr, err := r.Pulls.Pull(ctx, nil, &access.Repo{Repository: repo, Owner: owner, Mode: store.AccessOwner}, is)
		if err != nil {
			return nil, err
		}
		if pr == nil {
			return nil, errSkip
		}
		if e.Kind == store.HookKindReview {
			return r.review(ctx, e, is, pr, repoJSON, sender)
		}
		out := &webhooksv1.PullRequestPayload{Action: act.action, Number: is.Index,
			PullRequest: pr, Repository: repoJSON, Sender: sender}
		if act.pullTyp == evPullRequestReviewRequest {
			id, _ := strconv.ParseInt(e.Extra, 10, 64)
			found, err := r.Store.UsersByID(ctx, []int64{id})
			if err != nil {
				return nil, err
			}
			out.RequestedReviewer = r.Users.User(ghostUnless(found[id]), nil)
		}
		return &rendered{typ: act.pullTyp, payload: out}, nil
	}
	if act.typ == evIssueComment {
		c, err := r.Store.CommentByID(ctx, repo.ID, e.CommentID)
		if err == store.ErrNotFound {
			return nil, errSkip
		}
		if err != nil {
			return nil, err
		}
		cj, err := r.Issues.Comment(ctx, nil, c, is, owner.Name, repo.Name)
		if err != nil {
			return nil, err
		}
		typ := evIssueComment
		if is.IsPull {
			typ = evPullRequestComment
		}
		return &rendered{typ: typ, payload: &webhooksv1.IssueCommentPayload{Action: act.action, Issue: list[0],
			Comment: cj, Repository: repoJSON, Sender: sender, IsPull: is.IsPull}}, nil
	}
	return &rendered{typ: act.typ, payload: &webhooksv1.IssuePayload{Action: act.action, Number: is.Index, Issue: list[0],
		Repository: repoJSON, Sender: sender}}, nil
}

// review renders a submitted review of pull request pr.
func (r *Renderers) review(ctx context.Context, e *store.HookEvent, is *store.Issue, pr *pullsv1.PullRequest, repoJSON *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	id, _ := strconv.ParseInt(e.Extra, 10, 64)
	rv, err := r.Store.ReviewByID(ctx, id)
	if err == store.ErrNotFound {
		return nil, errSkip
	}
	if err != nil {
		return nil, err
	}
	var typ string
	switch rv.Type {
	case store.ReviewApprove:
		typ = "pull_request_review_approved"
	case store.ReviewReject:
		typ = "pull_request_review_rejected"
	case store.ReviewComment:
		typ = "pull_request_review_comment"
	default:
		return nil, errSkip
	}
	return &rendered{typ: typ, payload: &webhooksv1.PullRequestReviewPayload{Action: "reviewed", Number: is.Index,
		PullRequest: pr, Repository: repoJSON, Sender: sender, CommitId: rv.CommitID,
		Review: &webhooksv1.ReviewPayload{Type: typ, Content: rv.Content}}}, nil
}

// fork renders a fork of the event's repository; the fork's id is in
// e.Extra.
func (r *Renderers) fork(ctx context.Context, e *store.HookEvent, parent *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	id, _ := strconv.ParseInt(e.Extra, 10, 64)
	found, err := r.Store.RepositoriesByID(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	fork := found[id]
	if fork == nil {
		return nil, errSkip
	}
	owners, err := r.Store.UsersByID(ctx, []int64{fork.OwnerID})
	if err != nil {
		return nil, err
	}
	owner := owners[fork.OwnerID]
	if owner == nil {
		return nil, errSkip
	}
	forkee := r.Repos.Repository(&access.Repo{Repository: fork, Owner: owner, Mode: store.AccessOwner}, nil)
	return &rendered{typ: evFork, payload: &webhooksv1.ForkPayload{Forkee: forkee, Repository: parent, Sender: sender}}, nil
}

// release renders a release event: published (created, or a draft made
// public) or updated.
func (r *Renderers) release(ctx context.Context, e *store.HookEvent, base *access.Repo, repoJSON *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	rel, err := r.Store.ReleaseByID(ctx, e.RepoID, e.ReleaseID)
	if err == store.ErrNotFound {
		return nil, errSkip
	}
	if err != nil {
		return nil, err
	}
	assets, err := r.Store.AttachmentsOf(ctx, e.RepoID, "release_id", []int64{rel.ID})
	if err != nil {
		return nil, err
	}
	action := "published"
	if e.Kind == store.HookKindReleaseUpdated {
		action = "updated"
	}
	return r.releaseOf(ctx, rel, action, assets[rel.ID], base, repoJSON, sender)
}

// releaseOf renders a release event of rel (for a deleted release, the
// release as it was, without its assets).
func (r *Renderers) releaseOf(ctx context.Context, rel *store.Release, action string, assets []store.Attachment, base *access.Repo, repoJSON *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	people, err := r.Store.UsersByID(ctx, []int64{rel.PublisherID})
	if err != nil {
		return nil, err
	}
	return &rendered{typ: evRelease, payload: &webhooksv1.ReleasePayload{Action: action,
		Release: r.Releases.Release(base, rel, people[rel.PublisherID], assets), Repository: repoJSON, Sender: sender}}, nil
}

// refType is a create or delete event's ref_type.
func refType(e *store.HookEvent) string {
	if e.Extra == store.HookRefTag {
		return "tag"
	}
	return "branch"
}

// Outbox kinds of ref changes (store.SyncBranchHeads) and of test
// deliveries.
const (
	KindPush   = store.HookKindPush
	KindCreate = store.HookKindCreate
	KindDelete = store.HookKindDelete
)

// maxPayloadCommits bounds the commits a push payload lists (Gitea's
// default feed limit); total_commits counts them all.
const maxPayloadCommits = 20

const zeroSHA = "0000000000000000000000000000000000000000"

// push renders a push (or a test delivery: the head of e.Ref, the
// default branch when empty, as if just pushed).
func (r *Renderers) push(ctx context.Context, e *store.HookEvent, repo *store.Repository, repoJSON *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	path, err := r.Git.RepoPath(repo.OwnerName, repo.Name)
	if err != nil {
		return nil, err
	}
	ref, before, after := e.Ref, e.OldSHA, e.NewSHA
	if e.Extra == store.HookRefTag {
		return r.tagPush(ctx, path, e, repoJSON, sender)
	}
	if e.Kind == KindTest {
		if ref == "" {
			ref = repo.DefaultBranch
		}
		c, err := r.Git.GetCommit(ctx, path, ref)
		if err != nil {
			return nil, errSkip // an empty repository has nothing to test with
		}
		after = c.SHA
		before = c.SHA
	}
	opts := git.LogOptions{Ref: after, Limit: maxPayloadCommits, Files: true}
	switch {
	case e.Kind == KindTest:
	case before != "" && before != zeroSHA:
		opts.Not = []string{before}
	case ref != repo.DefaultBranch:
		// A new branch lists what the default branch does not have, as
		// Gitea.
		opts.Not = []string{"refs/heads/" + repo.DefaultBranch}
	}
	if e.Kind == KindTest {
		opts.Limit = 1
	}
	var commits []git.Commit
	total := 0
	if after != "" && after != zeroSHA {
		commits, total, err = r.Git.Log(ctx, path, opts)
		if err != nil && len(opts.Not) > 0 {
			// The excluded ref may be gone (a first push, a deleted
			// default branch): list from the head alone.
			opts.Not = nil
			commits, total, err = r.Git.Log(ctx, path, opts)
		}
		if err != nil {
			return nil, err
		}
	}
	if e.Kind == KindTest {
		total = len(commits)
	}
	out := &webhooksv1.PushPayload{Ref: "refs/heads/" + ref, Before: orZero(before), After: orZero(after),
		TotalCommits: int64(total), Repository: repoJSON, Pusher: sender, Sender: sender,
		Commits: []*webhooksv1.PayloadCommit{}}
	if before != "" && before != zeroSHA && after != "" && after != zeroSHA && before != after {
		out.CompareUrl = repoJSON.GetHtmlUrl() + "/compare/" + before + "..." + after
	}
	for i := range commits {
		out.Commits = append(out.Commits, payloadCommit(&commits[i], repoJSON.GetHtmlUrl()))
	}
	// head_commit is the new head, also when the push brought no new
	// commit (a branch made at an existing one), as Gitea.
	switch {
	case len(out.Commits) > 0 && out.Commits[0].Id == after:
		out.HeadCommit = out.Commits[0]
	case after != "" && after != zeroSHA:
		if c, err := r.Git.GetCommit(ctx, path, after); err == nil {
			out.HeadCommit = payloadCommit(&c, repoJSON.GetHtmlUrl())
		}
	}
	return &rendered{typ: evPush, payload: out, branch: ref}, nil
}

// tagPush renders the push of a tag as Gitea does: no commits, the
// tagged commit as head_commit, a compare URL from zero to the new value.
// A branch filter sees refs/tags/<name> (Gitea matches the ref with only
// refs/heads/ taken off).
func (r *Renderers) tagPush(ctx context.Context, path string, e *store.HookEvent, repoJSON *reposv1.Repository, sender *usersv1.User) (*rendered, error) {
	full := "refs/tags/" + e.Ref
	out := &webhooksv1.PushPayload{Ref: full, Before: orZero(e.OldSHA), After: orZero(e.NewSHA),
		Repository: repoJSON, Pusher: sender, Sender: sender, Commits: []*webhooksv1.PayloadCommit{}}
	if e.NewSHA != "" && e.NewSHA != zeroSHA {
		out.CompareUrl = repoJSON.GetHtmlUrl() + "/compare/" + orZero(e.OldSHA) + "..." + e.NewSHA
		// The tagged commit: the value itself (a lightweight tag), else
		// the tag peeled (an annotated one, while it still exists).
		c, err := r.Git.GetCommit(ctx, path, e.NewSHA)
		if err != nil {
			c, err = r.Git.GetCommit(ctx, path, full)
		}
		if err == nil {
			out.HeadCommit = payloadCommit(&c, repoJSON.GetHtmlUrl())
		}
	}
	return &rendered{typ: evPush, payload: out, branch: full}, nil
}

func payloadCommit(c *git.Commit, htmlURL string) *webhooksv1.PayloadCommit {
	pc := &webhooksv1.PayloadCommit{Id: c.SHA, Message: c.Message, Url: htmlURL + "/commit/" + c.SHA,
		Author:    &webhooksv1.PayloadUser{Name: c.Author.Name, Email: c.Author.Email},
		Committer: &webhooksv1.PayloadUser{Name: c.Committer.Name, Email: c.Committer.Email},
		Timestamp: timestamppb.New(c.Author.When), Added: []string{}, Removed: []string{}, Modified: []string{}}
	for _, f := range c.Files {
		switch f.Status {
		case git.FileAdded:
			pc.Added = append(pc.Added, f.Filename)
		case git.FileDeleted:
			pc.Removed = append(pc.Removed, f.Filename)
		default:
			pc.Modified = append(pc.Modified, f.Filename)
		}
	}
	return pc
}

func orZero(sha string) string {
	if sha == "" {
		return zeroSHA
	}
	return sha
}

// ghostUnless is u, or Gitea's ghost user for an account that is gone.
func ghostUnless(u *store.User) *store.User {
	if u != nil {
		return u
	}
	return &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}
}
