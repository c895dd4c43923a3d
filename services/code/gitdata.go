package code

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	commitsv1 "forge/gen/forge/commits/v1"
	"forge/services/errs"
	"forge/services/git"
)

// DefaultGitTreesPerPage is Gitea's [api] DEFAULT_GIT_TREES_PER_PAGE: the
// default and largest page of a git/trees listing.
const DefaultGitTreesPerPage = 1000

// GitDataServer implements commitsv1.GitDataServiceServer: Gitea's git
// data API, read through the git layer's pooled object readers.
type GitDataServer struct {
	commitsv1.UnimplementedGitDataServiceServer
	Deps
	archives chan struct{} // MaxArchives slots
}

var _ commitsv1.GitDataServiceServer = (*GitDataServer)(nil)

func NewGitDataServer(d Deps) *GitDataServer {
	return &GitDataServer{Deps: d, archives: make(chan struct{}, MaxArchives)}
}

// badSHA is Gitea's answer to a sha it cannot read: 400 with its text.
func badSHA(err error, msg string) error {
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
		return errs.New(errs.Invalid, msg).WithHTTPStatus(http.StatusBadRequest)
	}
	return errs.Wrap(err, "git read")
}

func entryType(t git.EntryType) string {
	switch t {
	case git.EntryDir:
		return "tree"
	case git.EntrySubmodule:
		return "commit"
	}
	return "blob"
}

// GetTree lists a page of a tree as Gitea does: truncated when the tree
// has more entries than a page, no entries past the last page.
func (s *GitDataServer) GetTree(ctx context.Context, req *commitsv1.GetTreeRequest) (*commitsv1.GetTreeResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	sha := req.GetSha()
	if sha == "" {
		return nil, errs.New(errs.Invalid, "sha not provided").WithHTTPStatus(http.StatusBadRequest)
	}
	t, err := s.Git.TreeEntries(ctx, r.path, sha, req.GetRecursive())
	if err != nil {
		return nil, badSHA(err, fmt.Sprintf("sha not found [%s]", sha))
	}
	perPage := int(req.GetPerPage())
	if perPage <= 0 || perPage > DefaultGitTreesPerPage {
		perPage = DefaultGitTreesPerPage
	}
	page := int(req.GetPage())
	if page <= 0 {
		page = 1
	}
	u := s.Render.URLs(r.Owner.Name, r.Name)
	out := &commitsv1.GitTreeResponse{
		Sha: t.SHA, Url: u.tree(t.SHA), Page: int32(page), TotalCount: int32(len(t.Entries)),
		Truncated: len(t.Entries) > perPage || t.Capped,
	}
	start := int64(perPage) * int64(page-1)
	if start < int64(len(t.Entries)) {
		end := min(int(start)+perPage, len(t.Entries))
		entries := t.Entries[start:end]
		if err := s.Git.FillSizes(ctx, r.path, entries); err != nil {
			return nil, errs.Wrap(err, "tree entry sizes")
		}
		out.Tree = make([]*commitsv1.GitEntry, len(entries))
		for i, e := range entries {
			ge := &commitsv1.GitEntry{Path: e.Path, Mode: e.Mode, Type: entryType(e.Type), Size: e.Size, Sha: e.SHA}
			switch e.Type {
			case git.EntryDir:
				ge.Url = u.tree(e.SHA)
			case git.EntrySubmodule:
			default:
				ge.Url = u.blob(e.SHA)
			}
			out.Tree[i] = ge
		}
	}
	return &commitsv1.GetTreeResponse{Tree: out}, nil
}

// GetBlob returns a blob in base64, without content over [api]
// DEFAULT_MAX_BLOB_SIZE.
func (s *GitDataServer) GetBlob(ctx context.Context, req *commitsv1.GetBlobRequest) (*commitsv1.GetBlobResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetSha() == "" {
		return nil, errs.New(errs.Invalid, "sha not provided").WithHTTPStatus(http.StatusBadRequest)
	}
	sha, size, err := s.Git.BlobInfo(ctx, r.path, req.GetSha())
	if err != nil {
		return nil, badSHA(err, fmt.Sprintf("object does not exist [id: %s, rel_path: ]", req.GetSha()))
	}
	u := s.Render.URLs(r.Owner.Name, r.Name)
	out := &commitsv1.GitBlobResponse{Sha: sha, Url: u.blob(sha), Size: size}
	limit := s.MaxBlobSize
	if limit <= 0 {
		limit = DefaultMaxBlobSize
	}
	if size <= limit {
		rc, _, err := s.Git.OpenBlobBySHA(ctx, r.path, sha)
		if err != nil {
			return nil, readErr(err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		cerr := rc.Close()
		if err == nil {
			err = cerr
		}
		if err != nil {
			return nil, errs.Wrap(err, "read blob")
		}
		content, enc := base64.StdEncoding.EncodeToString(data), "base64"
		out.Content, out.Encoding = &content, &enc
	}
	return &commitsv1.GetBlobResponse{Blob: out}, nil
}

// maxRefs bounds a refs listing.
const maxRefs = 100000

func (s *GitDataServer) refs(ctx context.Context, r *repo, prefix string) ([]*commitsv1.Reference, error) {
	refs, err := s.Git.Refs(ctx, r.path, prefix, maxRefs)
	if err != nil {
		return nil, readErr(err)
	}
	if len(refs) == 0 {
		return nil, errs.New(errs.NotFound, "")
	}
	u := s.Render.URLs(r.Owner.Name, r.Name)
	out := make([]*commitsv1.Reference, len(refs))
	for i, ref := range refs {
		out[i] = &commitsv1.Reference{
			Ref: ref.Name,
			Url: u.API + "/git/" + escapeSegments(ref.Name),
			Object: &commitsv1.GitObject{
				Type: ref.Type, Sha: ref.SHA,
				Url: u.API + "/git/" + url.PathEscape(ref.Type) + "s/" + url.PathEscape(ref.SHA),
			},
		}
	}
	return out, nil
}

func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// ListRefs lists every ref; NotFound when there is none.
func (s *GitDataServer) ListRefs(ctx context.Context, _ *commitsv1.ListRefsRequest) (*commitsv1.ListRefsResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	refs, err := s.refs(ctx, r, "refs/")
	if err != nil {
		return nil, err
	}
	return &commitsv1.ListRefsResponse{Refs: refs}, nil
}

// GetRefs lists the refs starting with refs/<ref>: one object when the
// only match is that ref itself, a list otherwise.
func (s *GitDataServer) GetRefs(ctx context.Context, req *commitsv1.GetRefsRequest) (*commitsv1.GetRefsResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	filter := req.GetRef()
	if strings.Contains(filter, "..") || strings.ContainsAny(filter, "\x00\\") {
		return nil, errs.New(errs.NotFound, "")
	}
	refs, err := s.refs(ctx, r, "refs/"+filter)
	if err != nil {
		return nil, err
	}
	var v any
	if len(refs) == 1 && strings.TrimPrefix(refs[0].Ref, "refs/") == filter {
		v = refJSON(refs[0])
	} else {
		list := make([]any, len(refs))
		for i, ref := range refs {
			list[i] = refJSON(ref)
		}
		v = list
	}
	val, err := structpb.NewValue(v)
	if err != nil {
		return nil, errs.Wrap(err, "refs value")
	}
	return &commitsv1.GetRefsResponse{Result: val}, nil
}

func refJSON(r *commitsv1.Reference) map[string]any {
	return map[string]any{
		"ref": r.Ref, "url": r.Url,
		"object": map[string]any{"type": r.Object.Type, "sha": r.Object.Sha, "url": r.Object.Url},
	}
}

// GetAnnotatedTag returns an annotated tag object.
func (s *GitDataServer) GetAnnotatedTag(ctx context.Context, req *commitsv1.GetAnnotatedTagRequest) (*commitsv1.GetAnnotatedTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetSha() == "" {
		return nil, errs.New(errs.Invalid, "").WithHTTPStatus(http.StatusBadRequest)
	}
	t, err := s.Git.TagObject(ctx, r.path, req.GetSha())
	if err != nil {
		return nil, badSHA(err, fmt.Sprintf("tag does not exist [id: %s]", req.GetSha()))
	}
	u := s.Render.URLs(r.Owner.Name, r.Name)
	objURL := u.API + "/git/" + url.PathEscape(t.ObjectType) + "s/" + url.PathEscape(t.Object)
	return &commitsv1.GetAnnotatedTagResponse{Tag: &commitsv1.AnnotatedTag{
		Tag: t.Name, Sha: t.SHA, Url: u.API + "/git/tags/" + url.PathEscape(t.SHA), Message: t.Message,
		Tagger:       commitUser(t.Tagger, false),
		Object:       &commitsv1.AnnotatedTagObject{Type: t.ObjectType, Sha: t.Object, Url: objURL},
		Verification: NotSigned(),
	}}, nil
}

// GetLanguages counts the languages of the default branch's tree (git
// caches the result per commit id); an empty repository, or one whose
// default branch is missing, has none.
func (s *GitDataServer) GetLanguages(ctx context.Context, _ *commitsv1.GetLanguagesRequest) (*commitsv1.GetLanguagesResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	out := &commitsv1.GetLanguagesResponse{Languages: map[string]int64{}}
	if r.IsEmpty {
		return out, nil
	}
	head, err := s.Git.ResolveRef(ctx, r.path, "refs/heads/"+r.DefaultBranch)
	if errors.Is(err, git.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "resolve default branch")
	}
	stats, err := s.Git.Languages(ctx, r.path, head)
	if err != nil {
		return nil, errs.Wrap(err, "language stats")
	}
	out.Languages = stats
	return out, nil
}
