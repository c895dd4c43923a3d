package notify

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "forge/gen/forge/notifications/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
)

// Server implements notificationsv1.NotificationServiceServer: it decodes
// a request, calls a use case and renders Gitea's NotificationThread.
type Server struct {
	notificationsv1.UnimplementedNotificationServiceServer
	svc    *Service
	store  Store
	repos  repos.Renderer
	limits paging.Limits
}

var _ notificationsv1.NotificationServiceServer = (*Server)(nil)

// NewServer serves the notification use cases on st; a mark answers with
// at most limits.Max threads.
func NewServer(st Store, r repos.Renderer, limits paging.Limits) *Server {
	now := func() int64 { return time.Now().Unix() }
	return &Server{svc: NewService(st, now, limits.Max), store: st, repos: r, limits: limits}
}

func (s *Server) ListNotifications(ctx context.Context, req *notificationsv1.ListNotificationsRequest) (*notificationsv1.ListNotificationsResponse, error) {
	list, total, err := s.list(ctx, 0, req.GetAll(), req.GetStatusTypes(), req.GetSubjectType(), req.GetSince(), req.GetBefore(), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &notificationsv1.ListNotificationsResponse{Notifications: list, TotalCount: total}, nil
}

func (s *Server) ListRepoNotifications(ctx context.Context, req *notificationsv1.ListRepoNotificationsRequest) (*notificationsv1.ListRepoNotificationsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := s.list(ctx, r.ID, req.GetAll(), req.GetStatusTypes(), req.GetSubjectType(), req.GetSince(), req.GetBefore(), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &notificationsv1.ListRepoNotificationsResponse{Notifications: list, TotalCount: total}, nil
}

func (s *Server) list(ctx context.Context, repoID int64, all bool, statusTypes, subjectTypes []string, since, before string, pageNum, limit int32) ([]*notificationsv1.NotificationThread, int64, error) {
	viewer := auth.FromContext(ctx)
	page := s.limits.Normalize(int(pageNum), int(limit))
	list, total, err := s.svc.List(ctx, viewer, ListQuery{RepoID: repoID, All: all, StatusTypes: statusTypes, SubjectTypes: subjectTypes,
		Since: since, Before: before, Offset: page.Offset(), Limit: page.Size})
	if err != nil {
		return nil, 0, err
	}
	out, err := s.render(ctx, list, viewer)
	return out, total, err
}

func (s *Server) ReadNotifications(ctx context.Context, req *notificationsv1.ReadNotificationsRequest) (*notificationsv1.ReadNotificationsResponse, error) {
	out, err := s.mark(ctx, MarkQuery{LastReadAt: req.GetLastReadAt(), All: req.GetAll(), StatusTypes: req.GetStatusTypes(), ToStatus: req.GetToStatus()})
	if err != nil {
		return nil, err
	}
	return &notificationsv1.ReadNotificationsResponse{Notifications: out}, nil
}

func (s *Server) ReadRepoNotifications(ctx context.Context, req *notificationsv1.ReadRepoNotificationsRequest) (*notificationsv1.ReadRepoNotificationsResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.mark(ctx, MarkQuery{RepoID: r.ID, LastReadAt: req.GetLastReadAt(), All: req.GetAll(), StatusTypes: req.GetStatusTypes(), ToStatus: req.GetToStatus()})
	if err != nil {
		return nil, err
	}
	return &notificationsv1.ReadRepoNotificationsResponse{Notifications: out}, nil
}

func (s *Server) mark(ctx context.Context, q MarkQuery) ([]*notificationsv1.NotificationThread, error) {
	viewer := auth.FromContext(ctx)
	list, err := s.svc.Mark(ctx, viewer, q)
	if err != nil {
		return nil, err
	}
	return s.render(ctx, list, viewer)
}

func (s *Server) CountNewNotifications(ctx context.Context, _ *notificationsv1.CountNewNotificationsRequest) (*notificationsv1.CountNewNotificationsResponse, error) {
	n, err := s.svc.CountNew(ctx, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return &notificationsv1.CountNewNotificationsResponse{New: n}, nil
}

func (s *Server) GetThread(ctx context.Context, _ *notificationsv1.GetThreadRequest) (*notificationsv1.GetThreadResponse, error) {
	viewer := auth.FromContext(ctx)
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.svc.Thread(ctx, viewer, on.Thread)
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, t, viewer)
	if err != nil {
		return nil, err
	}
	return &notificationsv1.GetThreadResponse{Thread: out}, nil
}

func (s *Server) ReadThread(ctx context.Context, req *notificationsv1.ReadThreadRequest) (*notificationsv1.ReadThreadResponse, error) {
	viewer := auth.FromContext(ctx)
	on, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.svc.MarkThread(ctx, viewer, on.Thread, req.GetToStatus())
	if err != nil {
		return nil, err
	}
	out, err := s.one(ctx, t, viewer)
	if err != nil {
		return nil, err
	}
	return &notificationsv1.ReadThreadResponse{Thread: out}, nil
}

func (s *Server) one(ctx context.Context, t *store.NotificationThread, viewer *auth.Principal) (*notificationsv1.NotificationThread, error) {
	out, err := s.render(ctx, []store.NotificationThread{*t}, viewer)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, access.ThreadNotFound(t.ID)
	}
	return out[0], nil
}

// render turns threads into Gitea's NotificationThread; a thread whose
// repository owner is gone is left out.
func (s *Server) render(ctx context.Context, list []store.NotificationThread, viewer *auth.Principal) ([]*notificationsv1.NotificationThread, error) {
	ids := make([]int64, 0, len(list))
	for i := range list {
		ids = append(ids, list[i].Repo.OwnerID)
	}
	owners, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, errs.Wrap(err, "load repository owners")
	}
	out := make([]*notificationsv1.NotificationThread, 0, len(list))
	for i := range list {
		t := &list[i]
		owner := owners[t.Repo.OwnerID]
		if owner == nil {
			continue
		}
		out = append(out, s.thread(t, owner, viewer))
	}
	return out, nil
}

// thread renders one thread. The repository is rendered for a reader and
// without permissions, as Gitea does (the thread's user may not be the
// viewer: a site administrator reading another user's thread).
func (s *Server) thread(t *store.NotificationThread, owner *store.User, viewer *auth.Principal) *notificationsv1.NotificationThread {
	repo := s.repos.Repository(&access.Repo{Repository: t.Repo, Owner: owner, Mode: store.AccessRead}, viewer)
	repo.Permissions = nil
	full := owner.Name + "/" + t.Repo.Name
	api := s.repos.RootURL + "api/v1/repos/" + full
	subject := &notificationsv1.NotificationSubject{Type: subjectType(t.Source)}
	if is := t.Issue; is != nil {
		index := strconv.FormatInt(is.Index, 10)
		html := s.repos.RootURL + full + "/issues/" + index
		subject.Url = api + "/issues/" + index
		if is.IsPull {
			html = s.repos.RootURL + full + "/pulls/" + index
			subject.Url = api + "/pulls/" + index
		}
		subject.Title = is.Title
		subject.HtmlUrl = html
		subject.State = "open"
		switch {
		case t.Merged:
			subject.State = "merged"
		case is.IsClosed:
			subject.State = "closed"
		}
		if t.LastCommentID != 0 {
			c := strconv.FormatInt(t.LastCommentID, 10)
			subject.LatestCommentUrl = api + "/issues/comments/" + c
			subject.LatestCommentHtmlUrl = html + "#issuecomment-" + c
		}
	}
	return &notificationsv1.NotificationThread{
		Id:         t.ID,
		Repository: repo,
		Subject:    subject,
		Unread:     t.Status == store.NotificationUnread,
		Pinned:     t.Status == store.NotificationPinned,
		UpdatedAt:  timestamppb.New(time.Unix(t.UpdatedUnix, 0)),
		Url:        s.repos.RootURL + "api/v1/notifications/threads/" + strconv.FormatInt(t.ID, 10),
	}
}

// subjectType is Gitea's capitalised subject type of a thread source.
func subjectType(source int) string {
	switch source {
	case store.NotificationSourcePull:
		return "Pull"
	case store.NotificationSourceCommit:
		return "Commit"
	case store.NotificationSourceRepository:
		return "Repository"
	}
	return "Issue"
}
