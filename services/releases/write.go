package releases

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

func releaseExists(tag string) error {
	return store.ErrReleaseExists.WithMessage(fmt.Sprintf("release tag already exist [tag_name: %s]", tag))
}

func checkTagName(name string) error {
	if !git.ValidRefName(name) {
		return errs.Newf(errs.Invalid, "[TagName]: invalid tag name %q", name)
	}
	return nil
}

// ensureTag makes sure the release's tag exists in git, creating a
// lightweight tag at the release's target when it does not, and records
// the commit the tag points at. created reports whether a tag was made
// (so a failed write can remove it again).
func (s *Server) ensureTag(ctx context.Context, r *repo, rel *store.Release) (created bool, err error) {
	tag, err := s.git.GetTag(ctx, r.path, rel.TagName)
	if errors.Is(err, git.ErrNotFound) {
		target := rel.Target
		if target == "" {
			target = r.DefaultBranch
		}
		if err := s.checkTag(ctx, r, rel.TagName, errs.Newf(errs.Invalid,
			"release tag name is protected [tag_name: %s]", rel.TagName)); err != nil {
			return false, err
		}
		tag, err = s.git.CreateTag(ctx, r.path, rel.TagName, target, "", git.Signature{})
		switch {
		case err == nil:
			created = true
		case errors.Is(err, git.ErrAlreadyExists): // created concurrently: use it
			tag, err = s.git.GetTag(ctx, r.path, rel.TagName)
		case errors.Is(err, git.ErrNotFound):
			return false, errs.Newf(errs.NotFound, "target %q not found", target)
		}
	}
	if err != nil {
		return false, gitErr(err)
	}
	rel.Sha1 = tag.CommitSHA
	return created, nil
}

// recordNewTag passes the tag a release created to the ref records
// (webhook events, change hooks), as the tag API and pushes do; the
// release stands whatever happens, so a failure is logged.
func (s *Server) recordNewTag(ctx context.Context, r *repo, name, sha string) {
	err := s.record(context.WithoutCancel(ctx), r, git.RefUpdate{Name: "refs/tags/" + name, OldSHA: git.ZeroSHA, NewSHA: sha})
	if err != nil {
		slog.Error("record the tag of a release", "repo", r.ID, "tag", name, "err", err)
	}
}

// dropTag removes a tag this request created when the release could not
// be stored.
func (s *Server) dropTag(ctx context.Context, r *repo, name string) {
	if err := s.git.DeleteTag(context.WithoutCancel(ctx), r.path, name); err != nil {
		slog.Error("remove tag of failed release", "repo", r.ID, "tag", name, "err", err)
	}
}

func (s *Server) CreateRelease(ctx context.Context, req *releasesv1.CreateReleaseRequest) (*releasesv1.CreateReleaseResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkTagName(req.GetTagName()); err != nil {
		return nil, err
	}
	if r.IsEmpty {
		// The record may lag behind git; git has the last word.
		if empty, err := s.git.IsEmpty(ctx, r.path); err != nil || empty {
			return nil, errs.New(errs.Invalid, "repo is empty")
		}
	}
	if _, err := s.store.ReleaseByTag(ctx, r.ID, req.GetTagName()); err == nil {
		return nil, releaseExists(req.GetTagName())
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	target := req.GetTargetCommitish()
	if target == "" {
		target = r.DefaultBranch
	}
	rel := &store.Release{
		RepoID: r.ID, PublisherID: r.viewer.ID(), TagName: req.GetTagName(), Target: target,
		Title: req.GetName(), Note: req.GetBody(), IsDraft: req.GetDraft(), IsPrerelease: req.GetPrerelease(),
	}
	created := false
	if rel.IsDraft {
		// A draft's tag is created when it is published; an existing one is
		// used as is, and a new one must at least have a target.
		if tag, err := s.git.GetTag(ctx, r.path, rel.TagName); err == nil {
			rel.Sha1 = tag.CommitSHA
		} else if !errors.Is(err, git.ErrNotFound) {
			return nil, gitErr(err)
		} else if _, err := s.git.ResolveRef(ctx, r.path, target); err != nil {
			if errors.Is(err, git.ErrNotFound) {
				return nil, errs.Newf(errs.NotFound, "target %q not found", target)
			}
			return nil, gitErr(err)
		}
	} else if created, err = s.ensureTag(ctx, r, rel); err != nil {
		return nil, err
	}
	if err := s.store.CreateRelease(ctx, rel); err != nil {
		if created {
			s.dropTag(ctx, r, rel.TagName)
		}
		if errors.Is(err, store.ErrReleaseExists) {
			return nil, releaseExists(rel.TagName)
		}
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if created {
		s.recordNewTag(ctx, r, rel.TagName, rel.Sha1)
	}
	out, err := s.render(ctx, r, rel)
	if err != nil {
		return nil, err
	}
	return &releasesv1.CreateReleaseResponse{Release: out}, nil
}

func (s *Server) EditRelease(ctx context.Context, req *releasesv1.EditReleaseRequest) (*releasesv1.EditReleaseResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if tag := req.GetTagName(); tag != "" {
		if err := checkTagName(tag); err != nil {
			return nil, err
		}
		// Refuse a tag another release has before touching git.
		if other, err := s.store.ReleaseByTag(ctx, r.ID, tag); err == nil && other.ID != req.GetId() {
			return nil, releaseExists(tag)
		}
	}
	var createdTag string
	rel, err := s.store.UpdateRelease(ctx, r.ID, req.GetId(), func(rel *store.Release) error {
		wasDraft := rel.IsDraft
		if v := req.GetTagName(); v != "" {
			rel.TagName = v
		}
		if v := req.GetTargetCommitish(); v != "" {
			rel.Target = v
		}
		if v := req.GetName(); v != "" {
			rel.Title = v
		}
		if v := req.GetBody(); v != "" {
			rel.Note = v
		}
		if req.Draft != nil {
			rel.IsDraft = req.GetDraft()
		}
		if req.Prerelease != nil {
			rel.IsPrerelease = req.GetPrerelease()
		}
		if rel.IsDraft {
			return nil
		}
		if wasDraft { // published now
			rel.CreatedUnix = time.Now().Unix()
		}
		created, err := s.ensureTag(ctx, r, rel)
		if created {
			createdTag = rel.TagName
		}
		return err
	})
	if err != nil {
		if createdTag != "" {
			s.dropTag(ctx, r, createdTag)
		}
		if errors.Is(err, store.ErrReleaseExists) {
			return nil, releaseExists(req.GetTagName())
		}
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	if createdTag != "" {
		s.recordNewTag(ctx, r, createdTag, rel.Sha1)
	}
	out, err := s.render(ctx, r, rel)
	if err != nil {
		return nil, err
	}
	return &releasesv1.EditReleaseResponse{Release: out}, nil
}

// gitErr is the releases area's rule for git's outcomes, which carry their
// kind and a text naming only the ref or repository involved
// (errs.Detail): a missing one is the release's not-found, a name that
// exists already a conflict (409, as a moved ref); process failures stay
// internal (a busy git stays Unavailable).
func gitErr(err error) error {
	e, ok := errs.Detail(err)
	if !ok {
		return errs.Wrap(err, "git")
	}
	switch e.Kind {
	case errs.NotFound:
		return errNotFound
	case errs.Invalid, errs.Conflict:
		return e
	case errs.AlreadyExists:
		return errs.New(errs.Conflict, e.Message)
	}
	return errs.Wrap(err, "git")
}
