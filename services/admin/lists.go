package admin

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "forge/gen/forge/admin/v1"
	usersv1 "forge/gen/forge/users/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/cron"
	"forge/services/errs"
	"forge/services/orgs"
	"forge/services/store"
)

// Tasks is the registry of scheduled tasks the administrator lists and
// starts (cron.Registry).
type Tasks interface {
	List() []cron.State
	Start(name string) bool
}

// WithLists gives the server what the site-wide lists need: the
// organizations' renderer and the scheduled tasks (nil: none).
func (s *Server) WithLists(render orgs.Renderer, tasks Tasks) *Server {
	s.orgs, s.tasks = render, tasks
	return s
}

// ListOrgs lists every organization, by name: private and limited ones
// too for the administrator, the public ones for a public-only token
// (access.UserFilter), as Gitea's GET /admin/orgs.
func (s *Server) ListOrgs(ctx context.Context, req *adminv1.ListOrgsRequest) (*adminv1.ListOrgsResponse, error) {
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	viewer := auth.FromContext(ctx)
	f := access.UserFilter(viewer)
	list, total, err := s.store.ListOrganizations(ctx, store.OrgListOptions{Visible: &f, Offset: page.Offset(), Limit: page.Size})
	if err != nil {
		return nil, errs.Wrap(err, "list organizations")
	}
	return &adminv1.ListOrgsResponse{Organizations: s.orgs.Orgs(list, viewer), TotalCount: total}, nil
}

func (s *Server) ListEmails(ctx context.Context, req *adminv1.ListEmailsRequest) (*adminv1.ListEmailsResponse, error) {
	emails, total, err := s.emails(ctx, "", int(req.GetPage()), int(req.GetLimit()))
	if err != nil {
		return nil, err
	}
	return &adminv1.ListEmailsResponse{Emails: emails, TotalCount: total}, nil
}

func (s *Server) SearchEmails(ctx context.Context, req *adminv1.SearchEmailsRequest) (*adminv1.SearchEmailsResponse, error) {
	emails, total, err := s.emails(ctx, req.GetQ(), int(req.GetPage()), int(req.GetLimit()))
	if err != nil {
		return nil, err
	}
	return &adminv1.SearchEmailsResponse{Emails: emails, TotalCount: total}, nil
}

// emails is a page of the users' addresses in Gitea's Email shape: forge
// keeps one address per account, its primary, as confirmed as the
// account is active (as GET /user/emails).
func (s *Server) emails(ctx context.Context, q string, pageNo, limit int) ([]*usersv1.Email, int64, error) {
	page := s.limits.Normalize(pageNo, limit)
	found, total, err := s.store.ListEmails(ctx, store.EmailListOptions{Query: q, Offset: page.Offset(), Limit: page.Size})
	if err != nil {
		return nil, 0, errs.Wrap(err, "list e-mail addresses")
	}
	out := make([]*usersv1.Email, len(found))
	for i, u := range found {
		out[i] = &usersv1.Email{Email: u.Email, Verified: u.IsActive, Primary: true, UserId: u.ID, Username: u.Name}
	}
	return out, total, nil
}

// ListCronTasks lists the scheduled tasks of this process by name, a page
// of them (Gitea pages the list too, with X-Total-Count only).
func (s *Server) ListCronTasks(_ context.Context, req *adminv1.ListCronTasksRequest) (*adminv1.ListCronTasksResponse, error) {
	var all []cron.State
	if s.tasks != nil {
		all = s.tasks.List()
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	from := min(page.Offset(), len(all))
	to := min(from+page.Size, len(all))
	out := &adminv1.ListCronTasksResponse{Tasks: make([]*adminv1.CronTask, 0, to-from), TotalCount: int64(len(all))}
	for _, t := range all[from:to] {
		out.Tasks = append(out.Tasks, &adminv1.CronTask{Name: t.Name, Schedule: t.Schedule,
			Next: timestamp(t.Next), Prev: timestamp(t.Prev), ExecTimes: t.ExecTimes})
	}
	return out, nil
}

// timestamp keeps Go's zero time (0001-01-01T00:00:00Z), as Gitea writes
// a task that has not run.
func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return timestamppb.New(time.Time{})
	}
	return timestamppb.New(t)
}

// RunCronTask starts a round of the task now, in this process, and
// answers without waiting for it, as Gitea does; a round already running
// is not started twice.
func (s *Server) RunCronTask(_ context.Context, req *adminv1.RunCronTaskRequest) (*adminv1.RunCronTaskResponse, error) {
	if s.tasks == nil || !s.tasks.Start(req.GetTask()) {
		return nil, errs.New(errs.NotFound, "")
	}
	return &adminv1.RunCronTaskResponse{}, nil
}
