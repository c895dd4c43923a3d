package code

import (
	"context"
	"net/http"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	commitsv1 "forge/gen/forge/commits/v1"
	"forge/services/errs"
	"forge/services/git"
)

// CommitServer implements commitsv1.CommitServiceServer.
type CommitServer struct {
	commitsv1.UnimplementedCommitServiceServer
	Deps
}

var _ commitsv1.CommitServiceServer = (*CommitServer)(nil)

func NewCommitServer(d Deps) *CommitServer { return &CommitServer{Deps: d} }

// Legacy paging headers Gitea sends with commit lists besides
// X-Total-Count and Link; sent as gRPC header metadata, which the gateway
// passes on.
const (
	HeaderPage      = "x-page"
	HeaderPerPage   = "x-perpage"
	HeaderTotal     = "x-total"
	HeaderPageCount = "x-pagecount"
	HeaderHasMore   = "x-hasmore"
)

func orTrue(b *bool) bool { return b == nil || *b }

// ListCommits lists a page of history. An empty repository is
// FailedPrecondition ("Git Repository is empty.", 409 over REST); a path no
// commit touched is NotFound.
func (s *CommitServer) ListCommits(ctx context.Context, req *commitsv1.ListCommitsRequest) (*commitsv1.ListCommitsResponse, error) {
	var not []string
	if req.GetNot() != "" {
		not = []string{req.GetNot()}
	}
	return s.History(ctx, HistoryQuery{
		Ref: req.GetSha(), Not: not, Path: req.GetPath(), Page: int(req.GetPage()), Limit: int(req.GetLimit()),
		Options: CommitOptions{Stat: orTrue(req.Stat), Verification: orTrue(req.Verification), Files: orTrue(req.Files)},
	})
}

// HistoryQuery is a page of the history of the request's repository:
// Ref's commits (the default branch's when empty) not reachable from any
// of Not, only those touching Path when set.
type HistoryQuery struct {
	Ref         string
	Not         []string
	Path        string
	Page, Limit int
	Options     CommitOptions
}

// History renders a page of history as the commit lists do (one
// renderer for the repository's commits and a pull request's), and
// sends Gitea's legacy paging headers.
func (s *CommitServer) History(ctx context.Context, q HistoryQuery) (*commitsv1.ListCommitsResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	if r.IsEmpty {
		return nil, errs.New(errs.FailedPrecondition, "Git Repository is empty.").WithHTTPStatus(http.StatusConflict)
	}
	page := s.Limits.Normalize(q.Page, q.Limit)
	commits, total, err := s.Git.Log(ctx, r.path, git.LogOptions{
		Ref: q.Ref, Not: q.Not, Path: q.Path, Skip: page.Offset(), Limit: page.Size,
		Files: q.Options.Files, Stats: q.Options.Stat,
	})
	if err != nil {
		return nil, readErr(err)
	}
	if q.Path != "" && total == 0 {
		return nil, errs.Newf(errs.NotFound, "no commit touches %q", q.Path)
	}
	ptrs := make([]*git.Commit, len(commits))
	for i := range commits {
		ptrs[i] = &commits[i]
	}
	who, err := s.accounts(ctx, ptrs...)
	if err != nil {
		return nil, err
	}
	u := s.Render.URLs(r.Owner.Name, r.Name)
	out := &commitsv1.ListCommitsResponse{Commits: make([]*commitsv1.Commit, len(commits)), TotalCount: int64(total)}
	for i, c := range ptrs {
		out.Commits[i] = s.Render.Commit(u, c, who, q.Options)
	}
	pages := (total + page.Size - 1) / page.Size
	grpc.SetHeader(ctx, metadata.Pairs(
		HeaderPage, strconv.Itoa(page.Number),
		HeaderPerPage, strconv.Itoa(page.Size),
		HeaderTotal, strconv.Itoa(total),
		HeaderPageCount, strconv.Itoa(pages),
		HeaderHasMore, strconv.FormatBool(page.Number < pages),
	))
	return out, nil
}

// GetCommit returns one commit; sha may be any ref naming one.
func (s *CommitServer) GetCommit(ctx context.Context, req *commitsv1.GetCommitRequest) (*commitsv1.GetCommitResponse, error) {
	r, err := s.resolve(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.Git.GetCommit(ctx, r.path, req.GetSha())
	if err != nil {
		return nil, readErr(err)
	}
	who, err := s.accounts(ctx, &c)
	if err != nil {
		return nil, err
	}
	opts := CommitOptions{Stat: orTrue(req.Stat), Verification: orTrue(req.Verification), Files: orTrue(req.Files)}
	return &commitsv1.GetCommitResponse{Commit: s.Render.Commit(s.Render.URLs(r.Owner.Name, r.Name), &c, who, opts)}, nil
}
