package attachments

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"forge/services/blob"
	"forge/services/errs"
	"forge/services/failpoint"
	"forge/services/store"
)

// ErrNameRequired: an upload without a file name (REST: no multipart
// field "attachment").
var ErrNameRequired = errs.New(errs.Invalid, "[Attachment]: Required")

func tooLarge(max int64) error {
	return errs.Newf(errs.ResourceExhausted, "the file is larger than the allowed %d MiB", max>>20).
		WithHTTPStatus(http.StatusRequestEntityTooLarge)
}

// newUUID is a random (version 4) UUID, the file's key.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// upload is one upload: the parent row to attach to, the name, the
// content and the bounds that apply.
type upload struct {
	row      store.Attachment // parent ids and uploader set
	name     string
	content  io.Reader
	maxBytes int64
	allowed  string
}

// store stores the file, then its row (see the package comment). The type
// check reads the first bytes before anything is written.
func (s *Server) store(ctx context.Context, u upload) (*store.Attachment, error) {
	if u.name == "" {
		return nil, ErrNameRequired
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(u.content, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if err := checkType(u.allowed, u.name, head); err != nil {
		return nil, err
	}
	key := newUUID()
	size, err := s.blobs.Put(ctx, key, io.MultiReader(bytes.NewReader(head), u.content), u.maxBytes)
	if errors.Is(err, blob.ErrTooLarge) {
		return nil, tooLarge(u.maxBytes)
	}
	if err != nil {
		return nil, errs.Wrap(err, "store attachment file")
	}
	failpoint.Hit(FailpointAfterFile)
	row := u.row
	row.UUID, row.Name, row.Size = key, u.name, size
	if err := s.st.CreateAttachment(ctx, &row); err != nil {
		s.removeFile(key)
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return &row, nil
}

// removeFile deletes a file whose row is gone (or was never written); a
// failure is left to Sweep.
func (s *Server) removeFile(key string) {
	if err := s.blobs.Delete(key); err != nil {
		slog.Warn("remove attachment file; the sweep will retry", "uuid", key, "err", err)
	}
}

// chunks reads an upload stream as one reader: first's data, then the
// data of each following message until the client closes its side.
type chunks struct {
	buf  []byte
	next func() ([]byte, error)
	err  error
}

func (c *chunks) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.buf, c.err = c.next()
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
