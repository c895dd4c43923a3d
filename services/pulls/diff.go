package pulls

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	pullsv1 "forge/gen/forge/pulls/v1"
	"forge/services/access"
	"forge/services/code"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/paging"
	"forge/services/store"
)

// MaxDiffBytes bounds a diff or patch download. Gitea has no setting for
// it (its [git] MAX_GIT_DIFF_* settings bound the rendered diff, not the
// raw text) and forge has none either: 100 MiB is far beyond any pull
// request a person reviews, and stops a runaway download of a repository
// import. Past it the download fails: the text goes out in 64 KiB
// messages, so the status line is out by then and the connection is cut
// (the client sees a truncated body); a bound below one message would
// answer 413.
const MaxDiffBytes = 100 << 20

// diffChunk is the size of the data in each streamed message.
const diffChunk = 64 << 10

// DiffGit is what the diff endpoints read in repositories.
type DiffGit interface {
	RepoPath(owner, name string) (string, error)
	GetCommit(ctx context.Context, path, ref string) (git.Commit, error)
	DiffFilesBetween(ctx context.Context, path, from, to string) ([]git.ChangedFile, error)
	WriteDiff(ctx context.Context, path string, t git.DiffText, w io.Writer) error
}

// DiffServer implements pullsv1.PullDiffServiceServer: the changed files
// of a pull request and the text of pull request and commit diffs.
// Permission was checked by the interceptor (the policies in the proto and
// the rule pull-code).
type DiffServer struct {
	pullsv1.UnimplementedPullDiffServiceServer
	store    Store
	git      DiffGit
	root     string // ROOT_URL, ends with "/"
	limits   paging.Limits
	maxBytes int64
}

var _ pullsv1.PullDiffServiceServer = (*DiffServer)(nil)

// DiffOptions is what the diff server is built from.
type DiffOptions struct {
	Store   Store
	Git     DiffGit
	RootURL string // ends with "/"
	Limits  paging.Limits
	// MaxBytes bounds a download; 0 is MaxDiffBytes.
	MaxBytes int64
}

// NewDiffServer builds the service.
func NewDiffServer(o DiffOptions) *DiffServer {
	if o.MaxBytes <= 0 {
		o.MaxBytes = MaxDiffBytes
	}
	return &DiffServer{store: o.Store, git: o.Git, root: o.RootURL, limits: o.Limits, maxBytes: o.MaxBytes}
}

// pull loads the request's pull request of the resolved repository and
// the repository's path.
func (s *DiffServer) pull(ctx context.Context, index int64) (*access.Repo, string, string, string, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, "", "", "", err
	}
	pr, _, err := s.store.PullRequestByIndex(ctx, r.ID, index)
	if err != nil {
		return nil, "", "", "", errs.Replace(err, store.ErrNotFound, errPullNotFound)
	}
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return nil, "", "", "", err
	}
	return r, path, pr.MergeBase, pr.HeadSHA, nil
}

// ListPullRequestFiles pages the files changed from the merge base to the
// head, with Gitea's paging headers (those of the commit lists).
func (s *DiffServer) ListPullRequestFiles(ctx context.Context, req *pullsv1.ListPullRequestFilesRequest) (*pullsv1.ListPullRequestFilesResponse, error) {
	r, path, base, head, err := s.pull(ctx, req.GetIndex())
	if err != nil {
		return nil, err
	}
	files, err := s.git.DiffFilesBetween(ctx, path, base, head)
	if err != nil {
		return nil, errs.Wrap(err, "list the changed files")
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	total := len(files)
	start := min(page.Offset(), total)
	end := min(start+page.Size, total)
	u := fileURLs{html: s.root + r.Owner.Name + "/" + r.Name, api: s.root + "api/v1/repos/" + r.Owner.Name + "/" + r.Name, sha: head}
	out := &pullsv1.ListPullRequestFilesResponse{Files: make([]*pullsv1.ChangedFile, 0, end-start), TotalCount: int64(total)}
	for i := start; i < end; i++ {
		out.Files = append(out.Files, u.changedFile(&files[i]))
	}
	pages := (total + page.Size - 1) / page.Size
	grpc.SetHeader(ctx, metadata.Pairs(
		code.HeaderPage, strconv.Itoa(page.Number),
		code.HeaderPerPage, strconv.Itoa(page.Size),
		code.HeaderTotal, strconv.Itoa(total),
		code.HeaderPageCount, strconv.Itoa(pages),
		code.HeaderHasMore, strconv.FormatBool(page.Number < pages),
	))
	return out, nil
}

// fileURLs renders Gitea's links of a changed file at commit sha.
type fileURLs struct {
	html, api, sha string
}

func (u fileURLs) changedFile(f *git.ChangedFile) *pullsv1.ChangedFile {
	p := escapeSegments(f.Filename)
	return &pullsv1.ChangedFile{
		Filename:    f.Filename,
		Status:      fileStatus(f),
		Additions:   int64(f.Additions),
		Deletions:   int64(f.Deletions),
		Changes:     int64(f.Additions + f.Deletions),
		HtmlUrl:     u.html + "/src/commit/" + u.sha + "/" + p,
		ContentsUrl: u.api + "/contents/" + p + "?ref=" + u.sha,
		RawUrl:      u.html + "/raw/commit/" + u.sha + "/" + p,
	}
}

// fileStatus is Gitea's word for how a file changed; a change of no
// lines (a binary file, a mode change) is "unchanged" there.
func fileStatus(f *git.ChangedFile) string {
	switch f.Status {
	case git.FileAdded:
		return "added"
	case git.FileDeleted:
		return "deleted"
	case git.FileRenamed:
		return "renamed"
	case git.FileCopied:
		return "copied"
	}
	if f.Additions == 0 && f.Deletions == 0 {
		return "unchanged"
	}
	return "changed"
}

// escapeSegments escapes each segment of a slash-separated path.
func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i := range parts {
		parts[i] = url.PathEscape(parts[i])
	}
	return strings.Join(parts, "/")
}

// GetPullRequestDiff streams the pull request's diff or patch.
func (s *DiffServer) GetPullRequestDiff(req *pullsv1.GetPullRequestDiffRequest, stream pullsv1.PullDiffService_GetPullRequestDiffServer) error {
	ctx := stream.Context()
	_, path, base, head, err := s.pull(ctx, req.GetIndex())
	if err != nil {
		return err
	}
	w := &chunker{send: func(b []byte) error { return stream.Send(&pullsv1.GetPullRequestDiffResponse{Data: b}) }}
	return s.write(ctx, path, git.DiffText{From: base, To: head, Patch: req.GetFormat() == pullsv1.DiffFormat_DIFF_FORMAT_PATCH,
		Binary: req.GetBinary()}, w)
}

// GetCommitDiff streams one commit's diff against its first parent, or
// its patch; an unknown commit is 404.
func (s *DiffServer) GetCommitDiff(req *pullsv1.GetCommitDiffRequest, stream pullsv1.PullDiffService_GetCommitDiffServer) error {
	ctx := stream.Context()
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return err
	}
	path, err := s.git.RepoPath(r.Owner.Name, r.Name)
	if err != nil {
		return err
	}
	c, err := s.git.GetCommit(ctx, path, req.GetSha())
	if err != nil {
		if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalid) {
			return errs.Newf(errs.NotFound, "commit %q does not exist", req.GetSha())
		}
		return errs.Wrap(err, "read the commit")
	}
	t := git.DiffText{To: c.SHA, Patch: req.GetFormat() == pullsv1.DiffFormat_DIFF_FORMAT_PATCH}
	if len(c.Parents) > 0 {
		t.From = c.Parents[0]
	}
	w := &chunker{send: func(b []byte) error { return stream.Send(&pullsv1.GetCommitDiffResponse{Data: b}) }}
	return s.write(ctx, path, t, w)
}

// write runs the diff into w within the size bound and sends what is
// left: always one message at least, so the gateway learns the call
// succeeded even for an empty diff.
func (s *DiffServer) write(ctx context.Context, path string, t git.DiffText, w *chunker) error {
	t.MaxBytes = s.maxBytes
	err := s.git.WriteDiff(ctx, path, t, w)
	if errors.Is(err, git.ErrTooLarge) {
		return errs.Newf(errs.ResourceExhausted, "the diff is larger than %d bytes", s.maxBytes).
			WithHTTPStatus(http.StatusRequestEntityTooLarge)
	}
	if err != nil {
		return errs.Wrap(err, "write the diff")
	}
	return w.flush()
}

// chunker gathers written bytes into messages of diffChunk bytes.
type chunker struct {
	buf  []byte
	sent bool
	send func([]byte) error
}

func (c *chunker) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if c.buf == nil {
			c.buf = make([]byte, 0, diffChunk)
		}
		take := min(diffChunk-len(c.buf), len(p))
		c.buf = append(c.buf, p[:take]...)
		p = p[take:]
		if len(c.buf) == diffChunk {
			if err := c.emit(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunker) emit() error {
	c.sent = true
	err := c.send(c.buf)
	c.buf = c.buf[:0]
	return err
}

func (c *chunker) flush() error {
	if len(c.buf) > 0 || !c.sent {
		return c.emit()
	}
	return nil
}
