package repos

import (
	"context"
	"errors"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Details is a repository with what its API object shows from beside the
// repository row: the release counter and, for a pull mirror, its state.
type Details struct {
	*access.Repo
	Releases int64
	// Mirror is nil unless the repository is a pull mirror with a record.
	Mirror *store.Mirror
	// Parent is a fork's parent as the viewer sees it; nil for a
	// repository that is no fork, and for a parent hidden from the viewer.
	Parent *Details
	// Transfer is the pending transfer; nil when none.
	Transfer *PendingTransfer
}

// PendingTransfer is who offered a repository to whom.
type PendingTransfer struct {
	Doer, Recipient *store.User
}

// Details reads what r's API object needs besides r itself; viewer is
// who r.Mode is for (the parent of a fork is shown as they see it).
func (s *Service) Details(ctx context.Context, r *access.Repo, viewer *auth.Principal) (Details, error) {
	return s.detailsWith(ctx, r, viewer, nil)
}

// detailsWith is Details where the caller knows r's pending transfer
// (offered: the one the request just recorded, which r's counters, read
// before it, do not show); nil reads it as Details does.
func (s *Service) detailsWith(ctx context.Context, r *access.Repo, viewer *auth.Principal, offered *store.RepoTransfer) (Details, error) {
	d, err := s.details(ctx, r, offered)
	if err != nil || !r.IsFork || r.ForkID == 0 {
		return d, err
	}
	p, err := s.access.ResolveByID(ctx, r.ForkID, viewer)
	if kind := errs.KindOf(err); kind == errs.NotFound || kind == errs.PermissionDenied {
		return d, nil // gone, or hidden from the viewer: no parent shown
	}
	if err != nil {
		return Details{}, err
	}
	parent, err := s.details(ctx, p, nil)
	if err != nil {
		return Details{}, err
	}
	d.Parent = &parent
	return d, nil
}

// details reads r's release counter and its pending transfer (unless
// resolving r read them with the counters, or offered is the transfer),
// and its mirror state.
func (s *Service) details(ctx context.Context, r *access.Repo, offered *store.RepoTransfer) (Details, error) {
	d := Details{Repo: r}
	if r.ReleasesCounted {
		d.Releases = r.NumReleases
	} else {
		n, err := s.store.CountReleases(ctx, r.ID)
		if err != nil {
			return Details{}, errs.Wrap(err, "count releases")
		}
		d.Releases = n
	}
	t := offered
	if t == nil && (!r.ReleasesCounted || r.TransferPending) {
		var err error
		switch t, err = s.store.PendingTransfer(ctx, r.ID); {
		case errors.Is(err, store.ErrNotFound):
			t = nil
		case err != nil:
			return Details{}, errs.Wrap(err, "load pending transfer")
		}
	}
	if t != nil {
		users, err := s.store.UsersByID(ctx, []int64{t.DoerID, t.RecipientID})
		if err != nil {
			return Details{}, errs.Wrap(err, "load transfer users")
		}
		d.Transfer = pendingTransfer(t, users)
	}
	if r.IsMirror {
		m, err := s.store.MirrorByRepoID(ctx, r.ID)
		if err == nil {
			d.Mirror = m
		} else if !errors.Is(err, store.ErrNotFound) {
			return Details{}, errs.Wrap(err, "load mirror")
		}
	}
	return d, nil
}

// mirrorInterval is a mirror record's sync interval.
func mirrorInterval(m *store.Mirror) time.Duration {
	return time.Duration(m.IntervalSecs) * time.Second
}

// pendingTransfer is t with its users; nil when one of them is gone.
func pendingTransfer(t *store.RepoTransfer, users map[int64]*store.User) *PendingTransfer {
	if t == nil || users[t.RecipientID] == nil || users[t.DoerID] == nil {
		return nil
	}
	return &PendingTransfer{Doer: users[t.DoerID], Recipient: users[t.RecipientID]}
}
