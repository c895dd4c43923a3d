package attachments

import (
	"context"
	"time"
)

// sweepBatch is how many file keys are checked against the table at once.
const sweepBatch = 500

// Sweep removes what interrupted operations left: attachment rows whose
// parent is gone, then files older than minAge without a row (an upload
// killed between file and row, a delete killed between row and file, the
// files of deleted repositories) and unfinished uploads older than
// minAge. It returns how many files went.
func (s *Server) Sweep(ctx context.Context, minAge time.Duration) (int, error) {
	if _, err := s.st.DeleteOrphanAttachments(ctx); err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-minAge)
	removed := 0
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		exists, err := s.st.AttachmentUUIDsExisting(ctx, batch)
		if err != nil {
			return err
		}
		for _, key := range batch {
			if !exists[key] {
				if err := s.blobs.Delete(key); err != nil {
					return err
				}
				removed++
			}
		}
		batch = batch[:0]
		return nil
	}
	err := s.blobs.Walk(ctx, func(key string, modified time.Time, temp bool) error {
		if modified.After(cutoff) {
			return nil // possibly an upload in flight
		}
		if temp {
			removed++
			return s.blobs.RemoveTemp(key)
		}
		batch = append(batch, key)
		if len(batch) >= sweepBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return removed, err
	}
	return removed, flush()
}
