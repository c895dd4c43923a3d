package code

import (
	"strings"
	"time"

	commitsv1 "forge/gen/forge/commits/v1"
	"forge/services/errs"
	"forge/services/git"
)

// MaxArchives is how many archives are produced at once; a request beyond
// waits up to archiveWait for a slot, then is refused (503).
const MaxArchives = 4

const archiveWait = 2 * time.Second

// archiveChunk is the size of a streamed message.
const archiveChunk = 32 << 10

var archiveTypes = []struct {
	ext         string
	format      git.ArchiveFormat
	contentType string
}{
	{".tar.gz", git.ArchiveTarGz, "application/gzip"},
	{".zip", git.ArchiveZip, "application/zip"},
	{".bundle", git.ArchiveBundle, "application/octet-stream"},
}

// GetArchive streams the archive of a branch, tag or commit: resolved
// first (so a missing ref is a 404 before any byte), then written by git
// straight into the stream in chunks.
func (s *GitDataServer) GetArchive(req *commitsv1.GetArchiveRequest, stream commitsv1.GitDataService_GetArchiveServer) error {
	ctx := stream.Context()
	r, err := s.resolve(ctx)
	if err != nil {
		return err
	}
	name := req.GetArchive()
	var ref string
	var format git.ArchiveFormat
	var contentType string
	for _, t := range archiveTypes {
		if strings.HasSuffix(name, t.ext) {
			ref, format, contentType = strings.TrimSuffix(name, t.ext), t.format, t.contentType
			break
		}
	}
	if ref == "" {
		return errs.New(errs.NotFound, "")
	}
	if r.IsEmpty {
		return errs.New(errs.NotFound, "")
	}
	rev, err := s.Git.Resolve(ctx, r.path, ref)
	if err != nil {
		return readErr(err)
	}
	if format == git.ArchiveBundle && rev.Kind != git.RefBranch && rev.Kind != git.RefTag {
		return errs.New(errs.NotFound, "a bundle needs a branch or tag")
	}
	timer := time.NewTimer(archiveWait)
	defer timer.Stop()
	select {
	case s.archives <- struct{}{}:
		defer func() { <-s.archives }()
	case <-timer.C:
		return errs.New(errs.Unavailable, "too many archives are being made, try again later")
	case <-ctx.Done():
		return errs.Wrap(ctx.Err(), "wait for an archive slot")
	}
	download := r.Name + "-" + strings.ReplaceAll(ref, "/", "-") + strings.TrimPrefix(name, ref)
	if err := stream.Send(&commitsv1.GetArchiveResponse{Name: download, ContentType: contentType}); err != nil {
		return err
	}
	w := &archiveWriter{send: func(b []byte) error { return stream.Send(&commitsv1.GetArchiveResponse{Data: b}) }}
	if err := s.Git.Archive(ctx, r.path, rev, format, strings.ToLower(r.Name)+"/", w); err != nil {
		return errs.Wrap(err, "archive")
	}
	return w.flush()
}

// archiveWriter gathers git's output into messages of archiveChunk bytes.
type archiveWriter struct {
	buf  []byte
	send func([]byte) error
}

func (w *archiveWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		take := min(archiveChunk-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) == archiveChunk {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (w *archiveWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.send(w.buf)
	w.buf = make([]byte, 0, archiveChunk)
	return err
}
