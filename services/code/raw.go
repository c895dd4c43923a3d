package code

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"

	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/errs"
	"forge/services/git"
)

// rawChunk is the size of the data in each GetRawFile message.
const rawChunk = 64 << 10

// GetRawFile streams a file (a symlink: its target). The first message
// carries the media type, size and name with the first chunk.
func (s *ContentServer) GetRawFile(req *contentsv1.GetRawFileRequest, stream contentsv1.ContentService_GetRawFileServer) error {
	ctx := stream.Context()
	r, err := s.resolve(ctx)
	if err != nil {
		return err
	}
	ref, p := req.GetRef(), req.GetFilepath()
	if ref == "" {
		if ref, p, err = s.splitRef(ctx, r, p); err != nil {
			return err
		}
	}
	rc, size, err := s.Git.OpenBlob(ctx, r.path, ref, p)
	if err != nil {
		// A directory or submodule has no bytes to serve: not found, as in Gitea.
		return readErr(err)
	}
	defer rc.Close()
	// A chunk of the file's size when it is smaller (one more byte ends
	// the first read at the end, so a file of any size takes as many
	// messages as before).
	buf := make([]byte, min(size+1, rawChunk))
	first := true
	for {
		n, rerr := io.ReadFull(rc, buf)
		if n > 0 || first {
			msg := &contentsv1.GetRawFileResponse{Data: buf[:n]}
			if first {
				msg.ContentType, msg.Size, msg.Name = rawContentType(buf[:n]), size, path.Base(p)
				first = false
			}
			if err := stream.Send(msg); err != nil {
				return err
			}
		}
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			return nil
		case rerr != nil:
			return errs.Wrap(rerr, "read raw file")
		}
	}
}

// splitRef reads Gitea's raw/{ref}/{path} form, used when no ?ref= is
// given: the shortest leading part of the path naming a branch wins, then
// one naming a tag, then a leading commit sha (7 hex digits or more);
// otherwise the whole path is read on the default branch.
func (s *ContentServer) splitRef(ctx context.Context, r *repo, p string) (string, string, error) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) < 2 {
		return r.DefaultBranch, p, nil
	}
	prefixes := make([]string, len(parts)-1)
	for i := range prefixes {
		prefixes[i] = strings.Join(parts[:i+1], "/")
	}
	rest := func(prefix string) string { return strings.TrimPrefix(strings.Trim(p, "/"), prefix+"/") }
	branches, err := s.Git.BranchesByName(ctx, r.path, prefixes)
	if err != nil {
		return "", "", errs.Wrap(err, "read branches")
	}
	if len(branches) > 0 {
		return "refs/heads/" + branches[0].Name, rest(branches[0].Name), nil
	}
	for _, prefix := range prefixes {
		if !git.ValidRefName(prefix) {
			continue
		}
		_, err := s.Git.Resolve(ctx, r.path, "refs/tags/"+prefix)
		if err == nil {
			return "refs/tags/" + prefix, rest(prefix), nil
		}
		if !errors.Is(err, git.ErrNotFound) {
			return "", "", errs.Wrap(err, "resolve tag")
		}
	}
	if sha := parts[0]; len(sha) >= 7 && isHex(sha) {
		rev, err := s.Git.Resolve(ctx, r.path, sha)
		if err == nil && rev.Kind == git.RefCommit {
			return rev.SHA, rest(sha), nil
		}
		if err != nil && !errors.Is(err, git.ErrNotFound) {
			return "", "", errs.Wrap(err, "resolve commit")
		}
	}
	return r.DefaultBranch, p, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// rawContentType serves, as Gitea does, what a browser may show inline
// safely: images, audio, video and PDF with their sniffed type, any text as
// text/plain (never HTML or SVG that could run script), everything else as
// a download.
func rawContentType(head []byte) string {
	sniffed := http.DetectContentType(head)
	mediaType, _, _ := strings.Cut(sniffed, ";")
	switch {
	case strings.HasPrefix(mediaType, "image/"), strings.HasPrefix(mediaType, "audio/"),
		strings.HasPrefix(mediaType, "video/"), mediaType == "application/pdf":
		return mediaType
	case strings.HasPrefix(mediaType, "text/"):
		if _, params, ok := strings.Cut(sniffed, ";"); ok {
			return "text/plain;" + params
		}
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}
