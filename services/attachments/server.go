package attachments

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"

	"google.golang.org/protobuf/types/known/timestamppb"

	attachmentsv1 "forge/gen/forge/attachments/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/blob"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Server implements attachmentsv1.AttachmentServiceServer.
type Server struct {
	attachmentsv1.UnimplementedAttachmentServiceServer
	st     Store
	blobs  blob.Store
	access Authorizer
	root   string
	paging paging.Limits
	limits Limits
}

var _ attachmentsv1.AttachmentServiceServer = (*Server)(nil)

// NewServer builds the service.
func NewServer(o Options) *Server {
	return &Server{st: o.Store, blobs: o.Blobs, access: o.Access, root: o.RootURL, paging: o.Paging, limits: o.Limits}
}

// errNotFound is Gitea's bare 404 for a missing parent or attachment.
var errNotFound = errs.New(errs.NotFound, "")

func (s *Server) view(a *store.Attachment) *attachmentsv1.Attachment { return View(s.root, a) }

// View renders a stored attachment as Gitea's Attachment object; rootURL
// (ROOT_URL, ending with "/") prefixes browser_download_url, which this
// area serves. Other areas embedding attachments (Issue.assets,
// Comment.assets) render through it so the JSON stays one shape.
func View(rootURL string, a *store.Attachment) *attachmentsv1.Attachment {
	return &attachmentsv1.Attachment{
		Id: a.ID, Name: a.Name, Size: a.Size, DownloadCount: a.DownloadCount,
		CreatedAt: timestamppb.New(unixTime(a.CreatedUnix)), Uuid: a.UUID,
		BrowserDownloadUrl: rootURL + "attachments/" + a.UUID,
	}
}

// Views renders list with View; never nil, so an empty list is [] in JSON.
func Views(rootURL string, list []store.Attachment) []*attachmentsv1.Attachment {
	out := make([]*attachmentsv1.Attachment, len(list))
	for i := range list {
		out[i] = View(rootURL, &list[i])
	}
	return out
}

// parent resolves the release, issue or comment a call names in the
// repository the interceptor resolved (writes declare an object rule on
// the issue or comment, applied before the handler); it returns the row template of a new attachment.
type parent func(ctx context.Context, r *access.Repo) (store.Attachment, error)

func (s *Server) release(id int64) parent {
	return func(ctx context.Context, r *access.Repo) (store.Attachment, error) {
		rel, err := s.st.ReleaseByID(ctx, r.ID, id)
		if err != nil {
			return store.Attachment{}, errs.Replace(err, store.ErrNotFound, errNotFound)
		}
		// A draft exists only for writers (as its release does).
		if rel.IsDraft && !r.CanWrite() {
			return store.Attachment{}, errNotFound
		}
		return store.Attachment{RepoID: r.ID, ReleaseID: rel.ID}, nil
	}
}

func (s *Server) issue(index int64) parent {
	return func(ctx context.Context, r *access.Repo) (store.Attachment, error) {
		// Writes declare the rule issue-files-poster-or-writer, which
		// loaded the issue; reads load it here.
		is, err := s.st.IssueByIndex(ctx, r.ID, index)
		if err != nil {
			return store.Attachment{}, errs.Replace(err, store.ErrNotFound, errNotFound)
		}
		return store.Attachment{RepoID: r.ID, IssueID: is.ID}, nil
	}
}

func (s *Server) comment(id int64) parent {
	return func(ctx context.Context, r *access.Repo) (store.Attachment, error) {
		// Writes declare the rule comment-files-poster-or-admin.
		c, err := s.st.CommentByID(ctx, r.ID, id)
		if err != nil {
			return store.Attachment{}, errs.Replace(err, store.ErrNotFound, errNotFound)
		}
		return store.Attachment{RepoID: r.ID, IssueID: c.IssueID, CommentID: c.ID}, nil
	}
}

func parentOf(row store.Attachment) store.AttachmentParent {
	return store.AttachmentParent{RepoID: row.RepoID, ReleaseID: row.ReleaseID, IssueID: row.IssueID, CommentID: row.CommentID}
}

// resolve is the repository the interceptor authorized and the parent.
func resolve(ctx context.Context, p parent) (store.AttachmentParent, store.Attachment, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return store.AttachmentParent{}, store.Attachment{}, err
	}
	row, err := p(ctx, r)
	if err != nil {
		return store.AttachmentParent{}, store.Attachment{}, err
	}
	return parentOf(row), row, nil
}

func (s *Server) list(ctx context.Context, p parent, page, limit int32) ([]*attachmentsv1.Attachment, int64, error) {
	par, _, err := resolve(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	pg := s.paging.Normalize(int(page), int(limit))
	rows, total, err := s.st.ListAttachments(ctx, par, pg.Offset(), pg.Size)
	if err != nil {
		return nil, 0, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	out := make([]*attachmentsv1.Attachment, len(rows))
	for i := range rows {
		out[i] = s.view(&rows[i])
	}
	return out, total, nil
}

func (s *Server) get(ctx context.Context, p parent, id int64) (*attachmentsv1.Attachment, error) {
	par, _, err := resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	a, err := s.st.AttachmentOf(ctx, par, id)
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return s.view(a), nil
}

// edit renames; an empty or missing name changes nothing. The new name
// is cleaned as an upload's (baseName) and must pass the type list by its
// extension, as an upload's would.
func (s *Server) edit(ctx context.Context, p parent, id int64, newName *string, allowed string) (*attachmentsv1.Attachment, error) {
	par, _, err := resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	var name string
	if newName != nil {
		name = baseName(*newName)
	}
	a, err := s.st.AttachmentOf(ctx, par, id)
	if err == nil && name != "" {
		if err := checkType(allowed, name, nil); err != nil {
			return nil, err
		}
		a, err = s.st.RenameAttachment(ctx, par, id, name)
	}
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return s.view(a), nil
}

// remove deletes the row, then the file (a crash between leaves the file
// to Sweep).
func (s *Server) remove(ctx context.Context, p parent, id int64) error {
	par, _, err := resolve(ctx, p)
	if err != nil {
		return err
	}
	a, err := s.st.DeleteAttachment(ctx, par, id)
	if err != nil {
		return errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	s.removeFile(a.UUID)
	return nil
}

// uploadMsg is what the three upload request messages share.
type uploadMsg interface {
	GetName() string
	GetData() []byte
}

// create reads an upload stream whose first message has arrived (and was
// authorized) and stores the file.
func (s *Server) create(ctx context.Context, p parent, first uploadMsg, recv func() (uploadMsg, error), maxBytes int64, allowed string) (*attachmentsv1.Attachment, error) {
	_, row, err := resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	row.UploaderID = auth.FromContext(ctx).ID()
	content := &chunks{buf: first.GetData(), next: func() ([]byte, error) {
		m, err := recv()
		if err != nil {
			return nil, err
		}
		return m.GetData(), nil
	}}
	a, err := s.store(ctx, upload{row: row, name: baseName(first.GetName()), content: content, maxBytes: maxBytes, allowed: allowed})
	if err != nil {
		return nil, err
	}
	return s.view(a), nil
}

// baseName is the one cleaning of an attachment's name, on upload and on
// rename: the last element of a name a client sent with its directories
// (as multipart's FileName does for REST uploads), without control
// characters (a name is shown in lists and sent back in
// Content-Disposition), trimmed.
func baseName(name string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name)
	if i := strings.LastIndexAny(clean, `/\`); i >= 0 {
		clean = clean[i+1:]
	}
	return strings.TrimSpace(clean)
}

// first receives an upload's first message; a stream closed before it
// names no file.
func first[T any](recv func() (*T, error)) (*T, error) {
	m, err := recv()
	if errors.Is(err, io.EOF) {
		return nil, ErrNameRequired
	}
	return m, err
}

// Release assets.

func (s *Server) ListReleaseAttachments(ctx context.Context, req *attachmentsv1.ListReleaseAttachmentsRequest) (*attachmentsv1.ListReleaseAttachmentsResponse, error) {
	list, total, err := s.list(ctx, s.release(req.GetId()), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.ListReleaseAttachmentsResponse{Attachments: list, TotalCount: total}, nil
}

func (s *Server) GetReleaseAttachment(ctx context.Context, req *attachmentsv1.GetReleaseAttachmentRequest) (*attachmentsv1.GetReleaseAttachmentResponse, error) {
	a, err := s.get(ctx, s.release(req.GetId()), req.GetAttachmentId())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.GetReleaseAttachmentResponse{Attachment: a}, nil
}

func (s *Server) EditReleaseAttachment(ctx context.Context, req *attachmentsv1.EditReleaseAttachmentRequest) (*attachmentsv1.EditReleaseAttachmentResponse, error) {
	a, err := s.edit(ctx, s.release(req.GetId()), req.GetAttachmentId(), req.Name, s.limits.ReleaseAllowedTypes)
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.EditReleaseAttachmentResponse{Attachment: a}, nil
}

func (s *Server) DeleteReleaseAttachment(ctx context.Context, req *attachmentsv1.DeleteReleaseAttachmentRequest) (*attachmentsv1.DeleteReleaseAttachmentResponse, error) {
	if err := s.remove(ctx, s.release(req.GetId()), req.GetAttachmentId()); err != nil {
		return nil, err
	}
	return &attachmentsv1.DeleteReleaseAttachmentResponse{}, nil
}

func (s *Server) CreateReleaseAttachment(stream attachmentsv1.AttachmentService_CreateReleaseAttachmentServer) error {
	m, err := first(stream.Recv)
	if err != nil {
		return err
	}
	a, err := s.create(stream.Context(), s.release(m.GetId()), m, func() (uploadMsg, error) { return stream.Recv() },
		s.limits.ReleaseMaxBytes, s.limits.ReleaseAllowedTypes)
	if err != nil {
		return err
	}
	return stream.SendAndClose(&attachmentsv1.CreateReleaseAttachmentResponse{Attachment: a})
}

// Issue files.

func (s *Server) ListIssueAttachments(ctx context.Context, req *attachmentsv1.ListIssueAttachmentsRequest) (*attachmentsv1.ListIssueAttachmentsResponse, error) {
	list, total, err := s.list(ctx, s.issue(req.GetIndex()), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.ListIssueAttachmentsResponse{Attachments: list, TotalCount: total}, nil
}

func (s *Server) GetIssueAttachment(ctx context.Context, req *attachmentsv1.GetIssueAttachmentRequest) (*attachmentsv1.GetIssueAttachmentResponse, error) {
	a, err := s.get(ctx, s.issue(req.GetIndex()), req.GetAttachmentId())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.GetIssueAttachmentResponse{Attachment: a}, nil
}

func (s *Server) EditIssueAttachment(ctx context.Context, req *attachmentsv1.EditIssueAttachmentRequest) (*attachmentsv1.EditIssueAttachmentResponse, error) {
	a, err := s.edit(ctx, s.issue(req.GetIndex()), req.GetAttachmentId(), req.Name, s.limits.AllowedTypes)
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.EditIssueAttachmentResponse{Attachment: a}, nil
}

func (s *Server) DeleteIssueAttachment(ctx context.Context, req *attachmentsv1.DeleteIssueAttachmentRequest) (*attachmentsv1.DeleteIssueAttachmentResponse, error) {
	if err := s.remove(ctx, s.issue(req.GetIndex()), req.GetAttachmentId()); err != nil {
		return nil, err
	}
	return &attachmentsv1.DeleteIssueAttachmentResponse{}, nil
}

func (s *Server) CreateIssueAttachment(stream attachmentsv1.AttachmentService_CreateIssueAttachmentServer) error {
	m, err := first(stream.Recv)
	if err != nil {
		return err
	}
	a, err := s.create(stream.Context(), s.issue(m.GetIndex()), m, func() (uploadMsg, error) { return stream.Recv() },
		s.limits.MaxBytes, s.limits.AllowedTypes)
	if err != nil {
		return err
	}
	return stream.SendAndClose(&attachmentsv1.CreateIssueAttachmentResponse{Attachment: a})
}

// Comment files.

func (s *Server) ListCommentAttachments(ctx context.Context, req *attachmentsv1.ListCommentAttachmentsRequest) (*attachmentsv1.ListCommentAttachmentsResponse, error) {
	list, total, err := s.list(ctx, s.comment(req.GetId()), req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.ListCommentAttachmentsResponse{Attachments: list, TotalCount: total}, nil
}

func (s *Server) GetCommentAttachment(ctx context.Context, req *attachmentsv1.GetCommentAttachmentRequest) (*attachmentsv1.GetCommentAttachmentResponse, error) {
	a, err := s.get(ctx, s.comment(req.GetId()), req.GetAttachmentId())
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.GetCommentAttachmentResponse{Attachment: a}, nil
}

func (s *Server) EditCommentAttachment(ctx context.Context, req *attachmentsv1.EditCommentAttachmentRequest) (*attachmentsv1.EditCommentAttachmentResponse, error) {
	a, err := s.edit(ctx, s.comment(req.GetId()), req.GetAttachmentId(), req.Name, s.limits.AllowedTypes)
	if err != nil {
		return nil, err
	}
	return &attachmentsv1.EditCommentAttachmentResponse{Attachment: a}, nil
}

func (s *Server) DeleteCommentAttachment(ctx context.Context, req *attachmentsv1.DeleteCommentAttachmentRequest) (*attachmentsv1.DeleteCommentAttachmentResponse, error) {
	if err := s.remove(ctx, s.comment(req.GetId()), req.GetAttachmentId()); err != nil {
		return nil, err
	}
	return &attachmentsv1.DeleteCommentAttachmentResponse{}, nil
}

func (s *Server) CreateCommentAttachment(stream attachmentsv1.AttachmentService_CreateCommentAttachmentServer) error {
	m, err := first(stream.Recv)
	if err != nil {
		return err
	}
	a, err := s.create(stream.Context(), s.comment(m.GetId()), m, func() (uploadMsg, error) { return stream.Recv() },
		s.limits.MaxBytes, s.limits.AllowedTypes)
	if err != nil {
		return err
	}
	return stream.SendAndClose(&attachmentsv1.CreateCommentAttachmentResponse{Attachment: a})
}

// GetAttachmentSettings reports the issue and comment upload settings.
func (s *Server) GetAttachmentSettings(context.Context, *attachmentsv1.GetAttachmentSettingsRequest) (*attachmentsv1.GetAttachmentSettingsResponse, error) {
	return &attachmentsv1.GetAttachmentSettingsResponse{
		Enabled: true, AllowedTypes: s.limits.AllowedTypes, MaxSize: s.limits.MaxBytes >> 20, MaxFiles: 5,
	}, nil
}

// servedType is the Content-Type a download is served with: the sniffed
// type, except that anything a browser could run as a page (HTML, XML,
// SVG) is served as opaque bytes.
func servedType(head []byte) string {
	t := http.DetectContentType(head)
	if strings.HasPrefix(t, "text/html") || strings.Contains(t, "xml") || strings.Contains(t, "javascript") {
		return "application/octet-stream"
	}
	return t
}
