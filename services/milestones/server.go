// Package milestones serves forge.milestones.v1.MilestoneService: the
// milestones of a repository.
//
// Rules: who may call is declared per method in the proto (reads: read
// access to the repository's issues; writes: write access there). A
// milestone is named by its id, or by its title when the path value is
// not a number (Gitea: a value that parses as int64 is an id). A title
// is required on create (422 otherwise); an edit leaves what it does not
// carry as it is, an empty title included. Issue counts are counted from
// the issues when read (store.Milestone), so they never drift.
package milestones

import (
	"context"
	"strconv"
	"strings"
	"time"

	issuesv1 "forge/gen/forge/issues/v1"
	milestonesv1 "forge/gen/forge/milestones/v1"
	"forge/services/access"
	"forge/services/errs"
	"forge/services/issues"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the milestone use cases read and write. *store.Store
// implements it (checked in services/area/all). Errors other than
// store.ErrNotFound where named are internal failures.
type Store interface {
	CreateMilestone(ctx context.Context, m *store.Milestone) error
	// MilestoneByID and MilestoneByName return store.ErrNotFound when the
	// repository has no such milestone.
	MilestoneByID(ctx context.Context, repoID, id int64) (*store.Milestone, error)
	MilestoneByName(ctx context.Context, repoID int64, name string) (*store.Milestone, error)
	ListMilestones(ctx context.Context, o store.MilestoneListOptions) ([]store.Milestone, int64, error)
	// UpdateMilestone and DeleteMilestone return store.ErrNotFound when
	// the repository has no such milestone.
	UpdateMilestone(ctx context.Context, repoID, id int64, change func(m *store.Milestone) error) (*store.Milestone, error)
	DeleteMilestone(ctx context.Context, repoID, id int64) error
}

// Server implements milestonesv1.MilestoneServiceServer. The repository
// comes resolved and authorized from the interceptor (access.RepoFrom).
type Server struct {
	milestonesv1.UnimplementedMilestoneServiceServer
	store  Store
	limits paging.Limits
}

var _ milestonesv1.MilestoneServiceServer = (*Server)(nil)

// NewServer builds the service.
func NewServer(st Store, limits paging.Limits) *Server {
	return &Server{store: st, limits: limits}
}

// errNotFound is Gitea's bare 404 for an unknown milestone.
var errNotFound = errs.New(errs.NotFound, "")

// resolve finds the milestone the path names: an id when the value parses
// as an int64, a title otherwise.
func (s *Server) resolve(ctx context.Context, repoID int64, ref string) (*store.Milestone, error) {
	var (
		m   *store.Milestone
		err error
	)
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		m, err = s.store.MilestoneByID(ctx, repoID, id)
	} else {
		m, err = s.store.MilestoneByName(ctx, repoID, ref)
	}
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return m, nil
}

func (s *Server) ListMilestones(ctx context.Context, req *milestonesv1.ListMilestonesRequest) (*milestonesv1.ListMilestonesResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListMilestones(ctx, store.MilestoneListOptions{
		RepoID: r.ID, State: req.GetState(), Name: strings.TrimSpace(req.GetName()),
		Offset: page.Offset(), Limit: page.Size,
	})
	if err != nil {
		return nil, err
	}
	out := make([]*issuesv1.Milestone, len(list))
	for i := range list {
		out[i] = issues.Milestone(&list[i])
	}
	return &milestonesv1.ListMilestonesResponse{Milestones: out, TotalCount: total}, nil
}

func (s *Server) GetMilestone(ctx context.Context, req *milestonesv1.GetMilestoneRequest) (*milestonesv1.GetMilestoneResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.resolve(ctx, r.ID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &milestonesv1.GetMilestoneResponse{Milestone: issues.Milestone(m)}, nil
}

func (s *Server) CreateMilestone(ctx context.Context, req *milestonesv1.CreateMilestoneRequest) (*milestonesv1.CreateMilestoneResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	m := &store.Milestone{
		RepoID: r.ID, Name: strings.TrimSpace(req.GetTitle()), Content: req.GetDescription(),
		IsClosed: req.GetState() == "closed",
	}
	if m.Name == "" {
		return nil, errs.New(errs.Invalid, "[Title]: Required")
	}
	if d := req.GetDueOn(); d != nil {
		m.DeadlineUnix = d.AsTime().Unix()
	}
	if err := s.store.CreateMilestone(ctx, m); err != nil {
		return nil, err
	}
	return &milestonesv1.CreateMilestoneResponse{Milestone: issues.Milestone(m)}, nil
}

func (s *Server) EditMilestone(ctx context.Context, req *milestonesv1.EditMilestoneRequest) (*milestonesv1.EditMilestoneResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	cur, err := s.resolve(ctx, r.ID, req.GetId())
	if err != nil {
		return nil, err
	}
	m, err := s.store.UpdateMilestone(ctx, r.ID, cur.ID, func(m *store.Milestone) error {
		if t := strings.TrimSpace(req.GetTitle()); t != "" {
			m.Name = t
		}
		if req.Description != nil {
			m.Content = req.GetDescription()
		}
		if d := req.GetDueOn(); d != nil && !d.AsTime().Equal(time.Unix(0, 0)) {
			m.DeadlineUnix = d.AsTime().Unix()
		}
		switch req.GetState() {
		case "closed":
			m.IsClosed = true
		case "open":
			m.IsClosed = false
		}
		return nil
	})
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return &milestonesv1.EditMilestoneResponse{Milestone: issues.Milestone(m)}, nil
}

func (s *Server) DeleteMilestone(ctx context.Context, req *milestonesv1.DeleteMilestoneRequest) (*milestonesv1.DeleteMilestoneResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.resolve(ctx, r.ID, req.GetId())
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteMilestone(ctx, r.ID, m.ID); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return &milestonesv1.DeleteMilestoneResponse{}, nil
}
