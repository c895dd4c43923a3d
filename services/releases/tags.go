package releases

import (
	"context"
	"errors"
	"time"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

// Refusals of a protected tag's change, as Gitea 1.22 words them (422).
var (
	errCreateProtectedTag = errs.New(errs.Invalid, "user not allowed to create protected tag")
	errDeleteProtectedTag = errs.New(errs.Invalid, "user not allowed to delete protected tag")
)

func (s *Server) ListTags(ctx context.Context, req *releasesv1.ListTagsRequest) (*releasesv1.ListTagsResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := s.git.ListTags(ctx, r.path)
	if err != nil {
		return nil, gitErr(err)
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	from := min(page.Offset(), len(tags))
	to := min(from+page.Size, len(tags))
	out := &releasesv1.ListTagsResponse{Tags: make([]*releasesv1.Tag, 0, to-from), TotalCount: int64(len(tags))}
	for _, t := range tags[from:to] {
		out.Tags = append(out.Tags, s.view.tag(r.Repo, t))
	}
	return out, nil
}

func (s *Server) GetTag(ctx context.Context, req *releasesv1.GetTagRequest) (*releasesv1.GetTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.git.GetTag(ctx, r.path, req.GetTag())
	if err != nil {
		return nil, gitErr(err)
	}
	return &releasesv1.GetTagResponse{Tag: s.view.tag(r.Repo, t)}, nil
}

// DeleteTag deletes a git tag; a tag with a release (draft or not) must
// lose its release first, as in Gitea.
func (s *Server) DeleteTag(ctx context.Context, req *releasesv1.DeleteTagRequest) (*releasesv1.DeleteTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.ReleaseByTag(ctx, r.ID, req.GetTag()); err == nil {
		return nil, errs.New(errs.Conflict, "a tag attached to a release cannot be deleted directly")
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	old, err := s.git.GetTag(ctx, r.path, req.GetTag())
	if err != nil {
		if errors.Is(err, git.ErrInvalid) {
			return nil, errNotFound
		}
		return nil, gitErr(err)
	}
	if err := s.checkTag(ctx, r, req.GetTag(), errDeleteProtectedTag); err != nil {
		return nil, err
	}
	if err := s.git.DeleteTag(ctx, r.path, req.GetTag()); err != nil {
		if errors.Is(err, git.ErrInvalid) {
			return nil, errNotFound
		}
		return nil, gitErr(err)
	}
	if err := s.record(ctx, r, git.RefUpdate{Name: "refs/tags/" + req.GetTag(), OldSHA: old.ID(), NewSHA: git.ZeroSHA}); err != nil {
		return nil, err
	}
	return &releasesv1.DeleteTagResponse{}, nil
}

// CreateTag creates a git tag at target (the default branch when empty),
// annotated by the caller when a message is given.
func (s *Server) CreateTag(ctx context.Context, req *releasesv1.CreateTagRequest) (*releasesv1.CreateTagResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	name := req.GetTagName()
	if err := checkTagName(name); err != nil {
		return nil, err
	}
	target := req.GetTarget()
	if target == "" {
		target = r.DefaultBranch
	}
	if _, err := s.git.ResolveRef(ctx, r.path, target); err != nil {
		if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
			return nil, errs.New(errs.NotFound, "target not found")
		}
		return nil, gitErr(err)
	}
	if err := s.checkTag(ctx, r, name, errCreateProtectedTag); err != nil {
		return nil, err
	}
	var tagger git.Signature
	if u := r.viewer.User; u != nil {
		tagger = git.Signature{Name: u.Name, Email: u.Email, When: time.Now()}
	}
	t, err := s.git.CreateTag(ctx, r.path, name, target, req.GetMessage(), tagger)
	switch {
	case errors.Is(err, git.ErrAlreadyExists):
		return nil, errs.Newf(errs.Conflict, "tag already exists [name: %s]", name)
	case errors.Is(err, git.ErrConflict):
		return nil, errs.Newf(errs.Conflict, "tag already exists [name: %s]", name)
	case errors.Is(err, git.ErrNotFound):
		return nil, errs.New(errs.NotFound, "target not found")
	case err != nil:
		return nil, gitErr(err)
	}
	if err := s.record(ctx, r, git.RefUpdate{Name: "refs/tags/" + name, OldSHA: git.ZeroSHA, NewSHA: t.ID()}); err != nil {
		return nil, err
	}
	return &releasesv1.CreateTagResponse{Tag: s.view.tag(r.Repo, t)}, nil
}
