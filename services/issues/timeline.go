package issues

import (
	"context"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
	"forge/services/users"
)

// TimelineStore is what the timeline reads. *store.Store implements it.
type TimelineStore interface {
	Store
	// ListTimeline returns a page of an issue's comment rows, events
	// included, and their total.
	ListTimeline(ctx context.Context, o store.TimelineOptions) ([]store.Comment, int64, error)
	// LabelsByID loads the labels among ids; unknown ids are absent.
	LabelsByID(ctx context.Context, ids []int64) (map[int64]*store.Label, error)
}

// commentTypeNames are Gitea's names of its comment types, by number.
var commentTypeNames = []string{
	"comment", "reopen", "close", "issue_ref", "commit_ref", "comment_ref", "pull_ref", "label", "milestone",
	"assignees", "change_title", "delete_branch", "start_tracking", "stop_tracking", "add_time_manual",
	"cancel_tracking", "added_deadline", "modified_deadline", "removed_deadline", "add_dependency",
	"remove_dependency", "code", "review", "lock", "unlock", "change_target_branch", "delete_time_manual",
	"review_request", "merge_pull", "pull_push", "project", "project_board", "dismiss_review",
	"change_issue_ref", "pull_scheduled_merge", "pull_cancel_scheduled_merge", "pin", "unpin",
}

func commentTypeName(t int) string {
	if t < 0 || t >= len(commentTypeNames) {
		return ""
	}
	return commentTypeNames[t]
}

// TimelineServer implements issuesv1.IssueTimelineServiceServer. The
// repository was resolved and authorized by the interceptor.
type TimelineServer struct {
	issuesv1.UnimplementedIssueTimelineServiceServer
	store  TimelineStore
	view   view
	limits paging.Limits
}

var _ issuesv1.IssueTimelineServiceServer = (*TimelineServer)(nil)

// NewTimelineServer builds the timeline service; rootURL ends with "/".
func NewTimelineServer(s TimelineStore, u users.Renderer, rootURL string, limits paging.Limits) *TimelineServer {
	return &TimelineServer{store: s, view: view{root: rootURL, users: u, store: s}, limits: limits}
}

func (s *TimelineServer) ListIssueTimeline(ctx context.Context, req *issuesv1.ListIssueTimelineRequest) (*issuesv1.ListIssueTimelineResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	o := store.TimelineOptions{}
	if o.Since, err = unixArg(req.GetSince()); err != nil {
		return nil, err
	}
	if o.Before, err = unixArg(req.GetBefore()); err != nil {
		return nil, err
	}
	is, err := s.store.IssueByIndex(ctx, r.ID, req.GetIndex())
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	o.IssueID, o.Offset, o.Limit = is.ID, page.Offset(), page.Size
	list, total, err := s.store.ListTimeline(ctx, o)
	if err != nil {
		return nil, err
	}
	var labelIDs, mileIDs []int64
	for i := range list {
		if list[i].LabelID != 0 {
			labelIDs = append(labelIDs, list[i].LabelID)
		}
		mileIDs = append(mileIDs, list[i].OldMilestoneID, list[i].MilestoneID)
	}
	miles, err := s.store.MilestonesByID(ctx, mileIDs)
	if err != nil {
		return nil, err
	}
	labels, err := s.store.LabelsByID(ctx, labelIDs)
	if err != nil {
		return nil, err
	}
	out, err := s.view.timeline(ctx, auth.FromContext(ctx), list, labels, ref(r), is)
	if err != nil {
		return nil, err
	}
	// A milestone event names its milestones (null when none, or deleted).
	for i := range list {
		out[i].OldMilestone = Milestone(miles[list[i].OldMilestoneID])
		out[i].Milestone = Milestone(miles[list[i].MilestoneID])
	}
	return &issuesv1.ListIssueTimelineResponse{Comments: out, TotalCount: total}, nil
}

// timeline renders a page of is's timeline with the labels its events
// name; its people are loaded for the whole page at once.
func (v view) timeline(ctx context.Context, viewer *auth.Principal, list []store.Comment, labels map[int64]*store.Label, r repoRef, is *store.Issue) ([]*issuesv1.TimelineComment, error) {
	people := make([]int64, 0, len(list))
	for i := range list {
		people = append(people, list[i].PosterID)
		if list[i].AssigneeID != 0 {
			people = append(people, list[i].AssigneeID)
		}
	}
	found, err := v.people(ctx, viewer, people)
	if err != nil {
		return nil, err
	}
	kind := "/issues/"
	if is.IsPull {
		kind = "/pulls/"
	}
	out := make([]*issuesv1.TimelineComment, len(list))
	for i := range list {
		c := &list[i]
		t := &issuesv1.TimelineComment{
			Id:              c.ID,
			Type:            commentTypeName(c.Type),
			HtmlUrl:         v.root + r.full() + kind + itoa(is.Index) + "#issuecomment-" + itoa(c.ID),
			IssueUrl:        v.root + "api/v1/repos/" + r.full() + "/issues/" + itoa(is.Index),
			User:            v.user(found, c.PosterID),
			Body:            c.Content,
			CreatedAt:       ts(c.CreatedUnix),
			UpdatedAt:       ts(c.UpdatedUnix),
			OldTitle:        c.OldTitle,
			NewTitle:        c.NewTitle,
			OldRef:          c.OldRef,
			NewRef:          c.NewRef,
			RefAction:       "none",
			RefCommitSha:    c.CommitSHA,
			ReviewId:        c.ReviewID,
			RemovedAssignee: c.RemovedAssignee,
		}
		if is.IsPull {
			t.PullRequestUrl = v.root + r.full() + "/pulls/" + itoa(is.Index)
		}
		if l := labels[c.LabelID]; l != nil {
			t.Label = v.label(l, r)
		}
		if c.AssigneeID != 0 {
			t.Assignee = v.user(found, c.AssigneeID)
		}
		out[i] = t
	}
	return out, nil
}
