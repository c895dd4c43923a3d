package pulls

import (
	"context"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	issuesv1 "forge/gen/forge/issues/v1"
	pullsv1 "forge/gen/forge/pulls/v1"
	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/issues"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// view renders pull requests.
type view struct {
	root   string // ROOT_URL, ends with "/"
	users  users.Renderer
	repos  repos.Renderer
	labels issues.Renderer
	store  Store
	git    Git
	modes  Modes
}

// ghost stands in for a poster whose account is gone or hidden.
var ghost = &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}

// wipPrefixes are Gitea's default work-in-progress title prefixes.
var wipPrefixes = []string{"WIP:", "[WIP]"}

func draft(title string) bool {
	t := strings.ToUpper(strings.TrimSpace(title))
	for _, p := range wipPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func ts(unix int64) *timestamppb.Timestamp { return timestamppb.New(time.Unix(unix, 0)) }

// page renders pull requests of base (their issues list), loading what
// they show for the whole page at once: the pull request rows, assignees,
// labels, people, head repositories and base branches.
func (v view) page(ctx context.Context, viewer *auth.Principal, base *access.Repo, list []store.Issue) ([]*pullsv1.PullRequest, error) {
	ids := make([]int64, len(list))
	people := make([]int64, 0, len(list))
	for i := range list {
		ids[i] = list[i].ID
		people = append(people, list[i].PosterID)
	}
	prs, err := v.store.PullRequestsOfIssues(ctx, ids)
	if err != nil {
		return nil, err
	}
	assignees, err := v.store.IssueAssignees(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, as := range assignees {
		people = append(people, as...)
	}
	reviewers, err := v.store.RequestedReviewersOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, rs := range reviewers {
		people = append(people, rs...)
	}
	for _, pr := range prs {
		if pr.HasMerged {
			people = append(people, pr.MergerID)
		}
	}
	labels, err := v.store.LabelsOfIssues(ctx, ids)
	if err != nil {
		return nil, err
	}
	mids := make([]int64, 0, len(list))
	for i := range list {
		mids = append(mids, list[i].MilestoneID)
	}
	miles, err := v.store.MilestonesByID(ctx, mids)
	if err != nil {
		return nil, err
	}
	found, err := v.store.UsersByID(ctx, people)
	if err != nil {
		return nil, err
	}
	if err := access.DropHidden(ctx, v.store, viewer, found); err != nil {
		return nil, err
	}
	heads, err := v.headRepos(ctx, viewer, base, prs)
	if err != nil {
		return nil, err
	}
	baseSHAs, err := v.baseTips(ctx, base, prs)
	if err != nil {
		return nil, err
	}
	baseRepo := v.repos.Repository(base, viewer)
	out := make([]*pullsv1.PullRequest, 0, len(list))
	for i := range list {
		is := &list[i]
		pr := prs[is.ID]
		if pr == nil {
			continue // a row being created or deleted concurrently
		}
		one := v.pull(is, pr, base, baseRepo, heads[pr.HeadRepoID], baseSHAs[pr.BaseBranch],
			found, assignees[is.ID], labels[is.ID], reviewers[is.ID])
		one.Milestone = issues.Milestone(miles[is.MilestoneID])
		out = append(out, one)
	}
	return out, nil
}

// headRepos renders the page's head repositories other than base, those
// the viewer may read (a hidden fork is null), in three queries at most.
func (v view) headRepos(ctx context.Context, viewer *auth.Principal, base *access.Repo, prs map[int64]*store.PullRequest) (map[int64]*reposv1.Repository, error) {
	out := map[int64]*reposv1.Repository{base.ID: v.repos.Repository(base, viewer)}
	var ids []int64
	for _, pr := range prs {
		if pr.HeadRepoID != base.ID {
			ids = append(ids, pr.HeadRepoID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	found, err := v.store.RepositoriesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	list := make([]store.Repository, 0, len(found))
	owners := make([]int64, 0, len(found))
	for _, r := range found {
		list = append(list, *r)
		owners = append(owners, r.OwnerID)
	}
	modes, err := v.modes.Modes(ctx, list, viewer)
	if err != nil {
		return nil, err
	}
	people, err := v.store.UsersByID(ctx, owners)
	if err != nil {
		return nil, err
	}
	for i := range list {
		r := &list[i]
		if owner := people[r.OwnerID]; owner != nil && modes[r.ID] >= store.AccessRead {
			out[r.ID] = v.repos.Repository(&access.Repo{Repository: r, Owner: owner, Mode: modes[r.ID]}, viewer)
		}
	}
	return out, nil
}

// baseTips reads the page's base branches' commits (ref files and pooled
// object reads, no process per item); a deleted branch has no sha.
func (v view) baseTips(ctx context.Context, base *access.Repo, prs map[int64]*store.PullRequest) (map[string]string, error) {
	out := map[string]string{}
	var names []string
	for _, pr := range prs {
		if _, ok := out[pr.BaseBranch]; !ok {
			out[pr.BaseBranch] = ""
			names = append(names, pr.BaseBranch)
		}
	}
	if len(names) == 0 {
		return out, nil
	}
	path, err := v.git.RepoPath(base.Owner.Name, base.Name)
	if err != nil {
		return nil, err
	}
	bs, err := v.git.BranchesByName(ctx, path, names)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		out[b.Name] = b.Commit.SHA
	}
	return out, nil
}

func (v view) user(m map[int64]*store.User, id int64) *usersv1.User {
	u := m[id]
	if u == nil {
		u = ghost
	}
	return v.users.User(u, nil)
}

func (v view) pull(is *store.Issue, pr *store.PullRequest, base *access.Repo, baseRepo, headRepo *reposv1.Repository, baseSHA string,
	people map[int64]*store.User, assignees []int64, labels []store.Label, reviewers []int64) *pullsv1.PullRequest {
	full := base.Owner.Name + "/" + base.Name
	html := v.root + full + "/pulls/" + strconv.FormatInt(is.Index, 10)
	out := &pullsv1.PullRequest{
		Id:                  pr.ID,
		Url:                 html,
		Number:              is.Index,
		User:                v.user(people, is.PosterID),
		Title:               is.Title,
		Body:                is.Content,
		Labels:              make([]*issuesv1.Label, 0, len(labels)),
		State:               "open",
		Draft:               draft(is.Title),
		IsLocked:            is.IsLocked,
		PinOrder:            int64(is.PinOrder),
		Comments:            int64(is.NumComments),
		Additions:           int64(pr.Additions),
		Deletions:           int64(pr.Deletions),
		ChangedFiles:        int64(pr.ChangedFiles),
		HtmlUrl:             html,
		DiffUrl:             html + ".diff",
		PatchUrl:            html + ".patch",
		Merged:              pr.HasMerged,
		AllowMaintainerEdit: pr.AllowMaintainerEdit,
		Base:                &pullsv1.PRBranchInfo{Label: pr.BaseBranch, Ref: pr.BaseBranch, Sha: baseSHA, RepoId: base.ID, Repo: baseRepo},
		Head:                &pullsv1.PRBranchInfo{Label: pr.HeadBranch, Ref: pr.HeadBranch, Sha: pr.HeadSHA, RepoId: pr.HeadRepoID, Repo: headRepo},
		MergeBase:           pr.MergeBase,
		CreatedAt:           ts(is.CreatedUnix),
		UpdatedAt:           ts(is.UpdatedUnix),
	}
	// Mergeable tells conflicts only, and a work in progress is not.
	out.Mergeable = pr.Mergeable && !out.Draft
	if is.IsClosed {
		out.State = "closed"
		out.ClosedAt = ts(is.ClosedUnix)
	}
	if is.DeadlineUnix != 0 {
		out.DueDate = ts(is.DeadlineUnix)
	}
	if pr.HasMerged {
		// A merge closes the issue in the same commit, but the issue row and
		// the pull row are two reads, which may straddle that commit: a
		// merged pull request is never answered open.
		if !is.IsClosed {
			out.State = "closed"
			out.ClosedAt = ts(pr.MergedUnix)
		}
		out.MergedAt = ts(pr.MergedUnix)
		out.MergeCommitSha = pr.MergedSHA
		if pr.MergerID != 0 { // 0: merged by a plain push, pusher unknown
			out.MergedBy = v.user(people, pr.MergerID)
		}
	}
	for _, id := range assignees {
		if people[id] != nil {
			out.Assignees = append(out.Assignees, v.user(people, id))
		}
	}
	if len(out.Assignees) > 0 {
		out.Assignee = out.Assignees[0]
	}
	for _, id := range reviewers {
		if people[id] != nil {
			out.RequestedReviewers = append(out.RequestedReviewers, v.user(people, id))
		}
	}
	for i := range labels {
		out.Labels = append(out.Labels, v.labels.Label(&labels[i], base.Owner.Name, base.Name))
	}
	return out
}
