package code

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/protection"
	"forge/services/store"
)

// DefaultMaxBlobSize is Gitea's [api] DEFAULT_MAX_BLOB_SIZE: larger files
// are described without their content.
const DefaultMaxBlobSize = 10 << 20

// symlinkTargetMax is how much of a symlink's blob is read as its target.
const symlinkTargetMax = 1024

// ContentServer implements contentsv1.ContentServiceServer.
type ContentServer struct {
	contentsv1.UnimplementedContentServiceServer
	Deps
}

var _ contentsv1.ContentServiceServer = (*ContentServer)(nil)

func NewContentServer(d Deps) *ContentServer { return &ContentServer{Deps: d} }

func (s *ContentServer) maxBlobSize() int64 {
	if s.MaxBlobSize > 0 {
		return s.MaxBlobSize
	}
	return DefaultMaxBlobSize
}

// at is the ref a content was read at: the name the caller gave (for
// self URLs), what it resolved to and the commit.
type at struct {
	ref string
	rev git.Revision
}

// GetContents describes a file, symlink or submodule, or lists a directory.
// An empty repository answers an empty listing for its root, at any ref,
// and 404 for any other path: nothing exists there.
func (s *ContentServer) GetContents(ctx context.Context, req *contentsv1.GetContentsRequest) (*contentsv1.GetContentsResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if r.IsEmpty {
		if p := strings.Trim(req.GetFilepath(), "/"); p != "" {
			return nil, errs.Newf(errs.NotFound, "path %q: %v", p, git.ErrNotFound)
		}
		return directory(nil), nil
	}
	ref := req.GetRef()
	if ref == "" {
		ref = r.DefaultBranch
	}
	rev, err := s.Git.Resolve(ctx, r.path, ref)
	if err != nil {
		return nil, readErr(err)
	}
	a := at{ref: ref, rev: rev}
	e := git.Entry{Type: git.EntryDir}
	if p := strings.Trim(req.GetFilepath(), "/"); p != "" {
		if e, err = s.Git.Stat(ctx, r.path, rev.SHA, p); err != nil {
			return nil, readErr(err)
		}
	}
	if e.Type == git.EntryDir {
		list, err := s.list(ctx, r, a, e.Path)
		if err != nil {
			return nil, err
		}
		return directory(list), nil
	}
	last, err := s.Git.LastCommitForPath(ctx, r.path, rev.SHA, e.Path)
	if err != nil {
		return nil, readErr(err)
	}
	file, err := s.describe(ctx, r, a, e, last, true)
	if err != nil {
		return nil, err
	}
	return &contentsv1.GetContentsResponse{RestBody: &contentsv1.GetContentsResponse_File{File: file}}, nil
}

func directory(entries []*contentsv1.ContentsResponse) *contentsv1.GetContentsResponse {
	return &contentsv1.GetContentsResponse{RestBody: &contentsv1.GetContentsResponse_Directory{
		Directory: &contentsv1.ContentsList{Entries: entries},
	}}
}

// list describes the entries of a directory, each with the last commit
// that changed it (one history walk for all of them).
func (s *ContentServer) list(ctx context.Context, r *repo, a at, dir string) ([]*contentsv1.ContentsResponse, error) {
	entries, err := s.Git.ReadDir(ctx, r.path, a.rev.SHA, dir)
	if err != nil {
		return nil, readErr(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	last, err := s.Git.LastCommitsForEntries(ctx, r.path, a.rev.SHA, dir, names)
	if err != nil {
		return nil, readErr(err)
	}
	out := make([]*contentsv1.ContentsResponse, len(entries))
	for i, e := range entries {
		if out[i], err = s.describe(ctx, r, a, e, last[e.Name], false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// describe renders one entry as Gitea's ContentsResponse. A single file
// (withContent) carries its bytes in base64; a symlink its target.
func (s *ContentServer) describe(ctx context.Context, r *repo, a at, e git.Entry, lastCommit string, withContent bool) (*contentsv1.ContentsResponse, error) {
	u := s.Render.URLs(r.Owner.Name, r.Name)
	self := u.API + "/contents/" + pathEscape(e.Path) + "?ref=" + url.QueryEscape(a.ref)
	out := &contentsv1.ContentsResponse{
		Name: e.Name, Path: e.Path, Sha: e.SHA, LastCommitSha: lastCommit, Type: string(e.Type), Size: e.Size,
		Url: &self, Links: &contentsv1.FileLinksResponse{Self: &self},
	}
	src := string(a.rev.Kind) + "/" + pathEscape(a.rev.Name) + "/" + pathEscape(e.Path)
	if e.Type != git.EntrySubmodule {
		html := u.HTML + "/src/" + src
		kind := "blobs"
		if e.Type == git.EntryDir {
			kind = "trees"
		}
		gitURL := u.API + "/git/" + kind + "/" + url.PathEscape(e.SHA)
		out.HtmlUrl, out.GitUrl = &html, &gitURL
		out.Links.Html, out.Links.Git = &html, &gitURL
	}
	switch e.Type {
	case git.EntryFile:
		download := u.HTML + "/raw/" + src
		out.DownloadUrl = &download
		if withContent {
			enc, content := "base64", ""
			if e.Size <= s.maxBlobSize() {
				b, err := s.readBlob(ctx, r, e.SHA, e.Size)
				if err != nil {
					return nil, err
				}
				content = base64.StdEncoding.EncodeToString(b)
			}
			out.Encoding, out.Content = &enc, &content
		}
	case git.EntrySymlink:
		download := u.HTML + "/raw/" + src
		out.DownloadUrl = &download
		b, err := s.readBlob(ctx, r, e.SHA, symlinkTargetMax)
		if err != nil {
			return nil, err
		}
		target := string(b)
		out.Target = &target
	}
	return out, nil
}

// readBlob reads at most max bytes of a blob.
func (s *ContentServer) readBlob(ctx context.Context, r *repo, sha string, max int64) ([]byte, error) {
	rc, _, err := s.Git.OpenBlobBySHA(ctx, r.path, sha)
	if err != nil {
		return nil, readErr(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max))
	if err != nil {
		return nil, errs.Wrap(err, "read file")
	}
	return b, nil
}

// fileOptions are the fields CreateFile, UpdateFile and DeleteFile share
// (Gitea's FileOptions).
type fileOptions interface {
	GetOwner() string
	GetRepo() string
	GetFilepath() string
	GetMessage() string
	GetBranch() string
	GetNewBranch() string
	GetAuthor() *contentsv1.Identity
	GetCommitter() *contentsv1.Identity
	GetDates() *contentsv1.CommitDates
	GetSignoff() bool
}

func (s *ContentServer) CreateFile(ctx context.Context, req *contentsv1.CreateFileRequest) (*contentsv1.CreateFileResponse, error) {
	f, err := s.change(ctx, req, "Add", func() (git.FileChange, error) {
		content, err := decodeContent(req.GetContent())
		return git.FileChange{Op: git.OpCreate, Path: req.GetFilepath(), Content: content}, err
	})
	if err != nil {
		return nil, err
	}
	return &contentsv1.CreateFileResponse{File: f}, nil
}

func (s *ContentServer) UpdateFile(ctx context.Context, req *contentsv1.UpdateFileRequest) (*contentsv1.UpdateFileResponse, error) {
	f, err := s.change(ctx, req, "Update", func() (git.FileChange, error) {
		content, err := decodeContent(req.GetContent())
		return git.FileChange{Op: git.OpUpdate, Path: req.GetFilepath(), FromPath: req.GetFromPath(), SHA: req.GetSha(), Content: content}, err
	})
	if err != nil {
		return nil, err
	}
	return &contentsv1.UpdateFileResponse{File: f}, nil
}

func (s *ContentServer) DeleteFile(ctx context.Context, req *contentsv1.DeleteFileRequest) (*contentsv1.DeleteFileResponse, error) {
	f, err := s.change(ctx, req, "Delete", func() (git.FileChange, error) {
		return git.FileChange{Op: git.OpDelete, Path: req.GetFilepath(), SHA: req.GetSha()}, nil
	})
	if err != nil {
		return nil, err
	}
	return &contentsv1.DeleteFileResponse{File: f}, nil
}

func decodeContent(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errs.Newf(errs.Invalid, "invalid base64 content: %v", err)
	}
	return b, nil
}

// change commits one file operation (built by op once the caller may
// write) on the request's branch, or on a new branch made from it, records
// the branch update and describes the result as Gitea's FileResponse.
func (s *ContentServer) change(ctx context.Context, req fileOptions, verb string, op func() (git.FileChange, error)) (*contentsv1.FileResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	fc, err := op()
	if err != nil {
		return nil, err
	}
	branch := req.GetBranch()
	if branch == "" {
		branch = r.DefaultBranch
	}
	target := branch
	if req.GetNewBranch() != "" {
		target = req.GetNewBranch()
	}
	msg := req.GetMessage()
	if msg == "" {
		msg = verb + " " + strings.Trim(fc.Path, "/")
	}
	// forge does not sign the commits it makes: a branch that requires
	// signed commits refuses them.
	files := []string{fc.Path}
	if fc.FromPath != "" && fc.FromPath != fc.Path {
		files = append(files, fc.FromPath)
	}
	if err := s.protect(ctx, r, protection.Change{Branch: target, Create: target != branch, Files: files, Unsigned: "new"}); err != nil {
		return nil, err
	}
	author, committer := signatures(r.caller.User, req.GetAuthor(), req.GetCommitter(), req.GetDates())
	// One writer of the branch at a time in this process, from reading its
	// head to recording the new one, so concurrent writes that do not
	// overlap all land (and the branch record never goes backwards).
	unlock, err := s.Git.LockRef(ctx, r.path, "refs/heads/"+target)
	if err != nil {
		return nil, err // the caller gave up waiting (a context error)
	}
	defer unlock()
	sha, err := s.Git.ChangeFiles(ctx, r.path, git.ChangeFilesOptions{
		Branch: branch, NewBranch: req.GetNewBranch(), Files: []git.FileChange{fc},
		Author: author, Committer: committer, Message: msg, Signoff: req.GetSignoff(),
	})
	if err != nil {
		// Gitea answers a stale sha with 422, except on delete (400).
		conflict := http.StatusUnprocessableEntity
		if fc.Op == git.OpDelete {
			conflict = http.StatusBadRequest
		}
		return nil, writeErr(err, conflict)
	}
	c, err := s.Git.GetCommit(ctx, r.path, sha)
	if err != nil {
		return nil, errs.Wrap(err, "read commit")
	}
	old := git.ZeroSHA
	if target == branch && len(c.Parents) > 0 {
		old = c.Parents[0]
	}
	if err := s.sync(ctx, r, git.RefUpdate{Name: "refs/heads/" + target, OldSHA: old, NewSHA: sha}); err != nil {
		return nil, err
	}
	unlock()
	out := &contentsv1.FileResponse{
		Commit:       s.Render.FileCommit(s.Render.URLs(r.Owner.Name, r.Name), &c),
		Verification: NotSigned(),
	}
	if fc.Op != git.OpDelete {
		e, err := s.Git.Stat(ctx, r.path, sha, fc.Path)
		if err != nil {
			return nil, errs.Wrap(err, "stat file")
		}
		a := at{ref: target, rev: git.Revision{SHA: sha, Kind: git.RefBranch, Name: target}}
		if out.Content, err = s.describe(ctx, r, a, e, sha, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// signatures picks author and committer as Gitea does: each given identity
// with an e-mail counts (the caller's own e-mail means the caller, renamed
// if a name is given); one given stands for both; none means the caller.
// Dates override the times when set.
func signatures(doer *store.User, author, committer *contentsv1.Identity, dates *contentsv1.CommitDates) (git.Signature, git.Signature) {
	self := git.Signature{Name: doer.Name, Email: doer.Email}
	if strings.TrimSpace(doer.FullName) != "" {
		self.Name = doer.FullName
	}
	ident := func(id *contentsv1.Identity) *git.Signature {
		if id.GetEmail() == "" {
			return nil
		}
		sig := git.Signature{Name: id.GetName(), Email: id.GetEmail()}
		if strings.EqualFold(id.GetEmail(), doer.Email) {
			sig = self
			if id.GetName() != "" {
				sig.Name = id.GetName()
			}
		}
		if sig.Name == "" {
			sig.Name, _, _ = strings.Cut(sig.Email, "@")
		}
		return &sig
	}
	a, c := ident(author), ident(committer)
	switch {
	case a == nil && c != nil:
		a = c
	case a == nil:
		a = &self
	}
	if c == nil {
		c = a
	}
	as, cs := *a, *c
	now := time.Now()
	as.When, cs.When = now, now
	if t := dates.GetAuthor(); t != nil && !t.AsTime().IsZero() {
		as.When = t.AsTime()
	}
	if t := dates.GetCommitter(); t != nil && !t.AsTime().IsZero() {
		cs.When = t.AsTime()
	}
	return as, cs
}
