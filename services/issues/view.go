package issues

import (
	"context"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	issuesv1 "forge/gen/forge/issues/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/attachments"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/users"
)

// view renders issues and comments.
type view struct {
	root  string // ROOT_URL, ends with "/"
	users users.Renderer
	store Store
}

// ghost stands in for a poster whose account is gone or hidden, as in
// Gitea.
var ghost = &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}

// repoRef is what an issue's links need of its repository.
type repoRef struct {
	id          int64
	owner, name string
}

func (r repoRef) full() string { return r.owner + "/" + r.name }

func ts(unix int64) *timestamppb.Timestamp { return timestamppb.New(time.Unix(unix, 0)) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// people loads the accounts among ids the viewer may see.
func (v view) people(ctx context.Context, viewer *auth.Principal, ids []int64) (map[int64]*store.User, error) {
	found, err := v.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	if err := access.DropHidden(ctx, v.store, viewer, found); err != nil {
		return nil, err
	}
	return found, nil
}

// user renders an embedded account as for an anonymous viewer (as Gitea
// does); unknown or hidden ones are the ghost.
func (v view) user(m map[int64]*store.User, id int64) *usersv1.User {
	u := m[id]
	if u == nil {
		u = ghost
	}
	return v.users.User(u, nil)
}

// issues renders list; repoOf names each issue's repository.
func (v view) issues(ctx context.Context, viewer *auth.Principal, list []store.Issue, repoOf func(repoID int64) repoRef) ([]*issuesv1.Issue, error) {
	ids := make([]int64, len(list))
	people := make([]int64, 0, len(list))
	for i := range list {
		ids[i] = list[i].ID
		people = append(people, list[i].PosterID)
	}
	assignees, err := v.store.IssueAssignees(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, as := range assignees {
		people = append(people, as...)
	}
	labels, err := v.store.LabelsOfIssues(ctx, ids)
	if err != nil {
		return nil, err
	}
	mids := make([]int64, 0, len(list))
	for i := range list {
		if list[i].MilestoneID != 0 {
			mids = append(mids, list[i].MilestoneID)
		}
	}
	miles, err := v.store.MilestonesByID(ctx, mids)
	if err != nil {
		return nil, err
	}
	// One query for the whole page; the ids are global, so a list that
	// spans repositories needs no repository filter.
	files, err := v.store.AttachmentsOf(ctx, 0, "issue_id", ids)
	if err != nil {
		return nil, err
	}
	found, err := v.people(ctx, viewer, people)
	if err != nil {
		return nil, err
	}
	out := make([]*issuesv1.Issue, len(list))
	for i := range list {
		out[i] = v.issue(&list[i], repoOf(list[i].RepoID), found, assignees[list[i].ID], labels[list[i].ID])
		out[i].Assets = attachments.Views(v.root, files[list[i].ID])
		out[i].Milestone = Milestone(miles[list[i].MilestoneID])
	}
	return out, nil
}

// created renders an issue that was just created without labels: it has
// no attachments yet and its assignees are the ones it was created with
// (ids in assignment order, without repeats), so only the people are
// read, not the three lists issues reads for a page.
func (v view) created(ctx context.Context, viewer *auth.Principal, is *store.Issue, assignees []int64, r repoRef) (*issuesv1.Issue, error) {
	found, err := v.posterAnd(ctx, viewer, is.PosterID, assignees)
	if err != nil {
		return nil, err
	}
	out := v.issue(is, r, found, assignees, nil)
	out.Assets = attachments.Views(v.root, nil)
	if is.MilestoneID != 0 {
		miles, err := v.store.MilestonesByID(ctx, []int64{is.MilestoneID})
		if err != nil {
			return nil, err
		}
		out.Milestone = Milestone(miles[is.MilestoneID])
	}
	return out, nil
}

// posterAnd is people of the poster and others. The poster of what was
// just created is the viewer, whose row authentication already loaded
// (current as of this request): it is not read again, so a creation
// without assignees reads no user at all (issue 16).
func (v view) posterAnd(ctx context.Context, viewer *auth.Principal, poster int64, others []int64) (map[int64]*store.User, error) {
	if viewer == nil || viewer.User == nil || viewer.Deploy != nil || viewer.User.ID != poster {
		return v.people(ctx, viewer, append([]int64{poster}, others...))
	}
	found := map[int64]*store.User{}
	if len(others) > 0 {
		var err error
		if found, err = v.store.UsersByID(ctx, others); err != nil {
			return nil, err
		}
	}
	found[poster] = viewer.User
	if err := access.DropHidden(ctx, v.store, viewer, found); err != nil {
		return nil, err
	}
	return found, nil
}

func (v view) issue(is *store.Issue, r repoRef, people map[int64]*store.User, assignees []int64, labels []store.Label) *issuesv1.Issue {
	kind := "/issues/"
	if is.IsPull {
		kind = "/pulls/"
	}
	out := &issuesv1.Issue{
		Id:         is.ID,
		Url:        v.root + "api/v1/repos/" + r.full() + "/issues/" + itoa(is.Index),
		HtmlUrl:    v.root + r.full() + kind + itoa(is.Index),
		Number:     is.Index,
		User:       v.user(people, is.PosterID),
		Title:      is.Title,
		Body:       is.Content,
		Ref:        is.Ref,
		Labels:     make([]*issuesv1.Label, 0, len(labels)),
		State:      "open",
		IsLocked:   is.IsLocked,
		PinOrder:   int64(is.PinOrder),
		Comments:   int64(is.NumComments),
		CreatedAt:  ts(is.CreatedUnix),
		UpdatedAt:  ts(is.UpdatedUnix),
		Repository: &issuesv1.RepositoryMeta{Id: r.id, Name: r.name, Owner: r.owner, FullName: r.full()},
	}
	if is.IsClosed {
		out.State = "closed"
		out.ClosedAt = ts(is.ClosedUnix)
	}
	if is.DeadlineUnix != 0 {
		out.DueDate = ts(is.DeadlineUnix)
	}
	for _, id := range assignees {
		// A deleted or hidden assignee is left out (not shown as the ghost).
		if people[id] != nil {
			out.Assignees = append(out.Assignees, v.user(people, id))
		}
	}
	if len(out.Assignees) > 0 {
		out.Assignee = out.Assignees[0]
	}
	for i := range labels {
		out.Labels = append(out.Labels, v.label(&labels[i], r))
	}
	if is.IsPull {
		out.PullRequest = &issuesv1.PullRequestMeta{HtmlUrl: out.HtmlUrl}
	}
	return out
}

// label renders a repository label (or an organization label, whose URL
// is under the organization, the repository's owner).
func (v view) label(l *store.Label, r repoRef) *issuesv1.Label {
	url := v.root + "api/v1/repos/" + r.full() + "/labels/" + itoa(l.ID)
	if l.OrgID != 0 {
		url = v.root + "api/v1/orgs/" + r.owner + "/labels/" + itoa(l.ID)
	}
	return &issuesv1.Label{
		Id: l.ID, Name: l.Name, Exclusive: l.Exclusive, IsArchived: l.ArchivedUnix != 0,
		Color: strings.ToLower(strings.TrimPrefix(l.Color, "#")), Description: l.Description, Url: url,
	}
}

// comments renders comments of r; issueOf gives each comment's issue.
func (v view) comments(ctx context.Context, viewer *auth.Principal, list []store.Comment, r repoRef, issueOf map[int64]*store.Issue) ([]*issuesv1.Comment, error) {
	posters := make([]int64, len(list))
	ids := make([]int64, len(list))
	for i := range list {
		posters[i] = list[i].PosterID
		ids[i] = list[i].ID
	}
	found, err := v.people(ctx, viewer, posters)
	if err != nil {
		return nil, err
	}
	files, err := v.store.AttachmentsOf(ctx, r.id, "comment_id", ids)
	if err != nil {
		return nil, err
	}
	out := make([]*issuesv1.Comment, len(list))
	for i := range list {
		c := &list[i]
		is := issueOf[c.IssueID]
		if is == nil {
			is = &store.Issue{}
		}
		kind := "/issues/"
		if is.IsPull {
			kind = "/pulls/"
		}
		out[i] = &issuesv1.Comment{
			Id:        c.ID,
			HtmlUrl:   v.root + r.full() + kind + itoa(is.Index) + "#issuecomment-" + itoa(c.ID),
			IssueUrl:  v.root + "api/v1/repos/" + r.full() + "/issues/" + itoa(is.Index),
			User:      v.user(found, c.PosterID),
			Body:      c.Content,
			Assets:    attachments.Views(v.root, files[c.ID]),
			CreatedAt: ts(c.CreatedUnix),
			UpdatedAt: ts(c.UpdatedUnix),
		}
		if is.IsPull {
			out[i].PullRequestUrl = v.root + r.full() + "/pulls/" + itoa(is.Index)
		}
	}
	return out, nil
}

// Milestone renders Gitea's Milestone object; nil (JSON null) for none.
func Milestone(m *store.Milestone) *issuesv1.Milestone {
	if m == nil {
		return nil
	}
	out := &issuesv1.Milestone{
		Id: m.ID, Title: m.Name, Description: m.Content, State: "open",
		OpenIssues: m.NumIssues - m.NumClosedIssues, ClosedIssues: m.NumClosedIssues,
		CreatedAt: ts(m.CreatedUnix), UpdatedAt: ts(m.UpdatedUnix),
	}
	if m.IsClosed {
		out.State = "closed"
		out.ClosedAt = ts(m.ClosedUnix)
	}
	if m.DeadlineUnix != 0 {
		out.DueOn = ts(m.DeadlineUnix)
	}
	return out
}
