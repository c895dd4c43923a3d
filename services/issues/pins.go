package issues

import (
	"context"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// WithMaxPinned sets [repository.issue] MAX_PINNED (Gitea's default 3).
func (s *Server) WithMaxPinned(n int) *Server {
	s.svc.maxPinned = n
	return s
}

// Lock locks (or unlocks) the issue the policy's rule loaded (its unit's
// writers: rule issue-locker), recording reason in its timeline.
func (s *Service) Lock(ctx context.Context, caller *auth.Principal, is *store.Issue, locked bool, reason string) error {
	return errs.Replace(s.store.SetIssueLocked(ctx, is.ID, caller.ID(), locked, reason), store.ErrNotFound, errIssueNotFound)
}

// PinOp is a change of an issue's pin.
type PinOp int

const (
	Pin PinOp = iota
	Unpin
	MovePin
)

// ChangePin pins, unpins or moves (to position) the issue index of r
// (repository administrators: the policy).
func (s *Service) ChangePin(ctx context.Context, r *access.Repo, caller *auth.Principal, index int64, op PinOp, position int64) error {
	is, err := s.store.IssueByIndex(ctx, r.ID, index)
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, errIssueNotFound)
	}
	switch op {
	case Pin:
		err = s.store.PinIssue(ctx, is.ID, caller.ID(), s.maxPinned)
	case Unpin:
		err = s.store.UnpinIssue(ctx, is.ID, caller.ID())
	default:
		if position < 1 {
			return errs.New(errs.Invalid, "The Position can't be lower than 1")
		}
		err = s.store.MoveIssuePin(ctx, is.ID, int(min(position, 1<<20)))
	}
	return errs.Replace(err, store.ErrNotFound, errIssueNotFound)
}

func (s *Server) LockIssue(ctx context.Context, req *issuesv1.LockIssueRequest) (*issuesv1.LockIssueResponse, error) {
	o, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Lock(ctx, auth.FromContext(ctx), o.Issue, true, req.GetLockReason()); err != nil {
		return nil, err
	}
	return &issuesv1.LockIssueResponse{}, nil
}

func (s *Server) UnlockIssue(ctx context.Context, req *issuesv1.UnlockIssueRequest) (*issuesv1.UnlockIssueResponse, error) {
	o, err := access.ObjectFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Lock(ctx, auth.FromContext(ctx), o.Issue, false, ""); err != nil {
		return nil, err
	}
	return &issuesv1.UnlockIssueResponse{}, nil
}

func (s *Server) changePin(ctx context.Context, index int64, op PinOp, position int64) error {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return err
	}
	return s.svc.ChangePin(ctx, r, auth.FromContext(ctx), index, op, position)
}

func (s *Server) PinIssue(ctx context.Context, req *issuesv1.PinIssueRequest) (*issuesv1.PinIssueResponse, error) {
	if err := s.changePin(ctx, req.GetIndex(), Pin, 0); err != nil {
		return nil, err
	}
	return &issuesv1.PinIssueResponse{}, nil
}

func (s *Server) UnpinIssue(ctx context.Context, req *issuesv1.UnpinIssueRequest) (*issuesv1.UnpinIssueResponse, error) {
	if err := s.changePin(ctx, req.GetIndex(), Unpin, 0); err != nil {
		return nil, err
	}
	return &issuesv1.UnpinIssueResponse{}, nil
}

func (s *Server) MoveIssuePin(ctx context.Context, req *issuesv1.MoveIssuePinRequest) (*issuesv1.MoveIssuePinResponse, error) {
	if err := s.changePin(ctx, req.GetIndex(), MovePin, req.GetPosition()); err != nil {
		return nil, err
	}
	return &issuesv1.MoveIssuePinResponse{}, nil
}

func (s *Server) ListPinnedIssues(ctx context.Context, req *issuesv1.ListPinnedIssuesRequest) (*issuesv1.ListPinnedIssuesResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.svc.store.PinnedIssues(ctx, r.ID, false)
	if err != nil {
		return nil, err
	}
	out, err := s.view.issues(ctx, auth.FromContext(ctx), list, func(int64) repoRef { return ref(r) })
	if err != nil {
		return nil, err
	}
	return &issuesv1.ListPinnedIssuesResponse{Issues: out}, nil
}
