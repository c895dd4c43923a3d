package repos

import (
	"context"
	"errors"
	"time"

	"forge/services/access"
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
}

// Details reads what r's API object needs besides r itself.
func (s *Service) Details(ctx context.Context, r *access.Repo) (Details, error) {
	d := Details{Repo: r}
	n, err := s.store.CountReleases(ctx, r.ID)
	if err != nil {
		return Details{}, errs.Wrap(err, "count releases")
	}
	d.Releases = n
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
