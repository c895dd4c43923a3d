package attachments

import (
	"errors"
	"io"
	"time"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	"forge/services/auth"
	"forge/services/blob"
	"forge/services/errs"
	"forge/services/store"
)

// downloadChunk is the data size of each download message.
const downloadChunk = 64 << 10

func unixTime(sec int64) time.Time { return time.Unix(sec, 0) }

// DownloadAttachment streams a file by uuid. The attachment names its
// repository and parent; access.AuthorizeAttachmentRead applies the
// same rule as listing that parent's files (a draft release's assets
// only for writers), then the download is counted and the file streamed.
func (s *Server) DownloadAttachment(req *attachmentsv1.DownloadAttachmentRequest, stream attachmentsv1.AttachmentService_DownloadAttachmentServer) error {
	ctx := stream.Context()
	a, err := s.st.AttachmentByUUID(ctx, req.GetUuid())
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	unit := auth.UnitIssues
	if a.ReleaseID != 0 {
		unit = auth.UnitReleases
	}
	r, err := s.access.AuthorizeAttachmentRead(ctx, a.RepoID, unit, auth.FromContext(ctx))
	if err != nil {
		return err
	}
	// The parent must still exist and be visible.
	switch {
	case a.ReleaseID != 0:
		_, err = s.release(a.ReleaseID)(ctx, r)
	case a.CommentID != 0:
		_, err = s.comment(a.CommentID)(ctx, r)
	case a.IssueID != 0:
		_, err = s.st.IssueByID(ctx, a.IssueID)
	default:
		err = errNotFound
	}
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	f, err := s.blobs.Open(a.UUID)
	if errors.Is(err, blob.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return errs.Wrap(err, "open attachment file")
	}
	defer f.Close()
	buf := make([]byte, downloadChunk)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return errs.Wrap(err, "read attachment file")
	}
	if err := s.st.CountAttachmentDownload(ctx, a.ID); err != nil {
		return errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	sniff := buf[:n]
	if len(sniff) > sniffLen {
		sniff = sniff[:sniffLen]
	}
	msg := &attachmentsv1.DownloadAttachmentResponse{Name: a.Name, Size: f.Size(), ContentType: servedType(sniff), Data: buf[:n]}
	for {
		if err := stream.Send(msg); err != nil {
			return err
		}
		n, err := io.ReadFull(f, buf)
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return errs.Wrap(err, "read attachment file")
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return errs.Wrap(err, "read attachment file")
		}
		msg = &attachmentsv1.DownloadAttachmentResponse{Data: buf[:n]}
	}
}
