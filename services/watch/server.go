// Package watch serves forge.watch.v1.WatchService: who watches
// (subscribes to) and who starred which repository. Stars follow the
// watches' rules: only a repository the caller can read can be starred or
// checked, lists show only what the viewer can see, and starring keeps
// repositories.num_stars (stars_count) exact (see store.Star).
//
// Subscription endpoints need a signed-in caller who can see the
// repository. Issue subscriptions (Gitea's issue_watch) are a user's
// explicit choice to follow an issue or not; without one, watching the
// repository or taking part decides (store.IssueFollowed), and the
// notification fan-out follows the same rule. Gitea's WatchInfo is a fixed shape: subscribed true, ignored
// false, reason null, created_at the repository's creation time; "not
// watching" is a 404. Watching and unwatching are idempotent and keep
// repositories.num_watches exact (see store.Watch).
package watch

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	reposv1 "forge/gen/forge/repos/v1"
	usersv1 "forge/gen/forge/users/v1"
	watchv1 "forge/gen/forge/watch/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
)

// Store is what the watch service needs. Watch returns store.ErrNotFound
// for a missing repository.
type Store interface {
	access.VisibilityStore
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	Watch(ctx context.Context, userID, repoID int64) (bool, error)
	Unwatch(ctx context.Context, userID, repoID int64) (bool, error)
	IsWatching(ctx context.Context, userID, repoID int64) (bool, error)
	ListWatchers(ctx context.Context, repoID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
	ListWatchedRepositories(ctx context.Context, o store.WatchedListOptions) ([]store.Repository, int64, error)
	Star(ctx context.Context, userID, repoID int64) (bool, error)
	Unstar(ctx context.Context, userID, repoID int64) (bool, error)
	IsStarring(ctx context.Context, userID, repoID int64) (bool, error)
	ListStargazers(ctx context.Context, repoID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
	ListStarredRepositories(ctx context.Context, o store.WatchedListOptions) ([]store.Repository, int64, error)
	// IssueByIndex returns store.ErrNotFound when the repository has no
	// issue with that index.
	IssueByIndex(ctx context.Context, repoID, index int64) (*store.Issue, error)
	// SetIssueWatch returns store.ErrNotFound when the issue is gone.
	SetIssueWatch(ctx context.Context, is *store.Issue, userID int64, watching bool) error
	IssueFollowed(ctx context.Context, is *store.Issue, userID int64) (bool, error)
	ListIssueSubscribers(ctx context.Context, issueID int64, visible store.UserFilter, offset, limit int) ([]store.User, int64, error)
}

// Access gives a caller's mode on listed repositories (access.Checker);
// the repository a method acts on is resolved by the auth interceptor.
type Access interface {
	// Modes reads them for the whole page at once.
	Modes(ctx context.Context, repos []store.Repository, viewer *auth.Principal) (map[int64]store.AccessMode, error)
}

// Server implements watchv1.WatchServiceServer.
type Server struct {
	watchv1.UnimplementedWatchServiceServer
	store  Store
	access Access
	repos  repos.Renderer
	limits paging.Limits
}

var _ watchv1.WatchServiceServer = (*Server)(nil)

func NewServer(s Store, a Access, r repos.Renderer, limits paging.Limits) *Server {
	return &Server{store: s, access: a, repos: r, limits: limits}
}

// errNotWatching is Gitea's bare 404 for a repository the caller does not
// watch.
var errNotWatching = errs.New(errs.NotFound, "")

func (s *Server) info(r *access.Repo) *watchv1.WatchInfo {
	api := s.repos.RootURL + "api/v1/repos/" + r.Owner.Name + "/" + r.Name
	return &watchv1.WatchInfo{
		Subscribed:    true,
		CreatedAt:     timestamppb.New(time.Unix(r.CreatedUnix, 0)),
		Url:           api + "/subscription",
		RepositoryUrl: api,
	}
}

func (s *Server) GetSubscription(ctx context.Context, req *watchv1.GetSubscriptionRequest) (*watchv1.GetSubscriptionResponse, error) {
	p := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	watching, err := s.store.IsWatching(ctx, p.ID(), r.ID)
	if err != nil {
		return nil, errs.Wrap(err, "check watch")
	}
	if !watching {
		return nil, errNotWatching
	}
	return &watchv1.GetSubscriptionResponse{Subscription: s.info(r)}, nil
}

func (s *Server) Watch(ctx context.Context, req *watchv1.WatchRequest) (*watchv1.WatchResponse, error) {
	p := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.Watch(ctx, p.ID(), r.ID); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return &watchv1.WatchResponse{Subscription: s.info(r)}, nil
}

func (s *Server) Unwatch(ctx context.Context, req *watchv1.UnwatchRequest) (*watchv1.UnwatchResponse, error) {
	p := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.Unwatch(ctx, p.ID(), r.ID); err != nil {
		return nil, errs.Wrap(err, "unwatch")
	}
	return &watchv1.UnwatchResponse{}, nil
}

func (s *Server) ListSubscribers(ctx context.Context, req *watchv1.ListSubscribersRequest) (*watchv1.ListSubscribersResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListWatchers(ctx, r.ID, access.UserFilter(viewer), page.Offset(), page.Size)
	if err != nil {
		return nil, errs.Wrap(err, "list watchers")
	}
	out := &watchv1.ListSubscribersResponse{Users: make([]*usersv1.User, len(list)), TotalCount: total}
	for i := range list {
		out.Users[i] = s.repos.Users.User(&list[i], viewer)
	}
	if err := s.repos.Users.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) ListMySubscriptions(ctx context.Context, req *watchv1.ListMySubscriptionsRequest) (*watchv1.ListMySubscriptionsResponse, error) {
	p := auth.FromContext(ctx)
	list, total, err := s.watched(ctx, s.store.ListWatchedRepositories, p.User, p, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &watchv1.ListMySubscriptionsResponse{Repositories: list, TotalCount: total}, nil
}

func (s *Server) ListUserSubscriptions(ctx context.Context, req *watchv1.ListUserSubscriptionsRequest) (*watchv1.ListUserSubscriptionsResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	list, total, err := s.watched(ctx, s.store.ListWatchedRepositories, u, viewer, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &watchv1.ListUserSubscriptionsResponse{Repositories: list, TotalCount: total}, nil
}

// repoLister lists a page of the repositories a user watches or starred.
type repoLister func(ctx context.Context, o store.WatchedListOptions) ([]store.Repository, int64, error)

// watched lists the repositories watcher watches (or starred: list says
// which) that viewer can see, rendered for viewer.
func (s *Server) watched(ctx context.Context, list repoLister, watcher *store.User, viewer *auth.Principal, pageNum, limit int32) ([]*reposv1.Repository, int64, error) {
	page := s.limits.Normalize(int(pageNum), int(limit))
	repos, total, err := list(ctx, store.WatchedListOptions{
		UserID: watcher.ID, RepoFilter: access.Filter(viewer), Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, 0, errs.Wrap(err, "list watched repositories")
	}
	ids := make([]int64, len(repos))
	for i := range repos {
		ids[i] = repos[i].OwnerID
	}
	owners, err := s.store.UsersByID(ctx, ids)
	if err != nil {
		return nil, 0, errs.Wrap(err, "load owners")
	}
	modes, err := s.access.Modes(ctx, repos, viewer)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*reposv1.Repository, 0, len(repos))
	for i := range repos {
		r := &repos[i]
		owner := owners[r.OwnerID]
		if owner == nil {
			continue
		}
		out = append(out, s.repos.Repository(&access.Repo{Repository: r, Owner: owner, Mode: modes[r.ID]}, viewer))
	}
	return out, total, nil
}

// issue loads the issue the request names (404 as Gitea when missing).
func (s *Server) issue(ctx context.Context, r *access.Repo, index int64) (*store.Issue, error) {
	is, err := s.store.IssueByIndex(ctx, r.ID, index)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return is, nil
}

func (s *Server) ListIssueSubscribers(ctx context.Context, req *watchv1.ListIssueSubscribersRequest) (*watchv1.ListIssueSubscribersResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	is, err := s.issue(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListIssueSubscribers(ctx, is.ID, access.UserFilter(viewer), page.Offset(), page.Size)
	if err != nil {
		return nil, err
	}
	out := &watchv1.ListIssueSubscribersResponse{Users: make([]*usersv1.User, len(list)), TotalCount: total}
	for i := range list {
		out.Users[i] = s.repos.Users.User(&list[i], viewer)
	}
	if err := s.repos.Users.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Server) CheckIssueSubscription(ctx context.Context, req *watchv1.CheckIssueSubscriptionRequest) (*watchv1.CheckIssueSubscriptionResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	is, err := s.issue(ctx, r, req.GetIndex())
	if err != nil {
		return nil, err
	}
	on, err := s.store.IssueFollowed(ctx, is, auth.FromContext(ctx).ID())
	if err != nil {
		return nil, err
	}
	api := s.repos.RootURL + "api/v1/repos/" + r.Owner.Name + "/" + r.Name
	return &watchv1.CheckIssueSubscriptionResponse{Subscription: &watchv1.WatchInfo{
		Subscribed: on, Ignored: !on,
		CreatedAt:     timestamppb.New(time.Unix(is.CreatedUnix, 0)),
		Url:           api + "/issues/" + strconv.FormatInt(is.Index, 10) + "/subscriptions",
		RepositoryUrl: api,
	}}, nil
}

// setIssueWatch makes the user the rule loaded follow the issue or not;
// changed is false when they already did (Gitea answers 200, else 201).
func (s *Server) setIssueWatch(ctx context.Context, watching bool) (changed bool, err error) {
	o, err := access.ObjectFrom(ctx)
	if err != nil {
		return false, err
	}
	on, err := s.store.IssueFollowed(ctx, o.Issue, o.User.ID)
	if err != nil {
		return false, err
	}
	if on == watching {
		return false, nil
	}
	if err := s.store.SetIssueWatch(ctx, o.Issue, o.User.ID, watching); err != nil {
		return false, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return true, nil
}

func (s *Server) SubscribeIssue(ctx context.Context, req *watchv1.SubscribeIssueRequest) (*watchv1.SubscribeIssueResponse, error) {
	changed, err := s.setIssueWatch(ctx, true)
	if err != nil {
		return nil, err
	}
	return &watchv1.SubscribeIssueResponse{Created: changed}, nil
}

func (s *Server) UnsubscribeIssue(ctx context.Context, req *watchv1.UnsubscribeIssueRequest) (*watchv1.UnsubscribeIssueResponse, error) {
	changed, err := s.setIssueWatch(ctx, false)
	if err != nil {
		return nil, err
	}
	return &watchv1.UnsubscribeIssueResponse{Created: changed}, nil
}

// errNotStarring is Gitea's bare 404 for a repository the caller did not
// star.
var errNotStarring = errs.New(errs.NotFound, "")

func (s *Server) Star(ctx context.Context, req *watchv1.StarRequest) (*watchv1.StarResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.Star(ctx, auth.FromContext(ctx).ID(), r.ID); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errs.New(errs.NotFound, ""))
	}
	return &watchv1.StarResponse{}, nil
}

func (s *Server) Unstar(ctx context.Context, req *watchv1.UnstarRequest) (*watchv1.UnstarResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.Unstar(ctx, auth.FromContext(ctx).ID(), r.ID); err != nil {
		return nil, errs.Wrap(err, "unstar")
	}
	return &watchv1.UnstarResponse{}, nil
}

func (s *Server) CheckStarring(ctx context.Context, req *watchv1.CheckStarringRequest) (*watchv1.CheckStarringResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	on, err := s.store.IsStarring(ctx, auth.FromContext(ctx).ID(), r.ID)
	if err != nil {
		return nil, errs.Wrap(err, "check star")
	}
	if !on {
		return nil, errNotStarring
	}
	return &watchv1.CheckStarringResponse{}, nil
}

func (s *Server) ListMyStarred(ctx context.Context, req *watchv1.ListMyStarredRequest) (*watchv1.ListMyStarredResponse, error) {
	p := auth.FromContext(ctx)
	list, total, err := s.watched(ctx, s.store.ListStarredRepositories, p.User, p, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &watchv1.ListMyStarredResponse{Repositories: list, TotalCount: total}, nil
}

func (s *Server) ListUserStarred(ctx context.Context, req *watchv1.ListUserStarredRequest) (*watchv1.ListUserStarredResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	list, total, err := s.watched(ctx, s.store.ListStarredRepositories, u, viewer, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &watchv1.ListUserStarredResponse{Repositories: list, TotalCount: total}, nil
}

func (s *Server) ListStargazers(ctx context.Context, req *watchv1.ListStargazersRequest) (*watchv1.ListStargazersResponse, error) {
	viewer := auth.FromContext(ctx)
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListStargazers(ctx, r.ID, access.UserFilter(viewer), page.Offset(), page.Size)
	if err != nil {
		return nil, errs.Wrap(err, "list stargazers")
	}
	out := &watchv1.ListStargazersResponse{Users: make([]*usersv1.User, len(list)), TotalCount: total}
	for i := range list {
		out.Users[i] = s.repos.Users.User(&list[i], viewer)
	}
	if err := s.repos.Users.FillCounts(ctx, out.Users); err != nil {
		return nil, err
	}
	return out, nil
}
