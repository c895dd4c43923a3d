package access

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"forge/services/auth"
	"forge/services/store"
)

// Gitea's 403 messages for attachment writes on an issue or a comment.
const (
	WriteIssueMessage  = "user should have permission to write issue"
	EditCommentMessage = "user should have permission to edit comment"
)

// AuthorizeAttachmentRead is the rule for downloading a file by its uuid,
// where the repository is known only from the attachment: the caller
// must be able to read the repository (visibility as everywhere: 404),
// the unit the file belongs to (releases, or issues), and a token must
// carry the read scope of that unit's category, as listing the files
// through the API requires.
func (c *Checker) AuthorizeAttachmentRead(ctx context.Context, repoID int64, unit auth.Unit, viewer *auth.Principal) (*Repo, error) {
	cat := auth.CategoryIssue
	if unit == auth.UnitReleases {
		cat = auth.CategoryRepository
	}
	if viewer != nil && viewer.Token != nil && !viewer.Scopes.Has(cat, auth.LevelRead) {
		return nil, status.Errorf(codes.PermissionDenied, "token does not have at least one of required scope(s): [read:%s]", cat)
	}
	r, err := c.ResolveByID(ctx, repoID, viewer)
	if err != nil {
		return nil, err
	}
	if err := Authorize(r, auth.Resource{Kind: auth.RepositoryResource, Unit: unit, Need: store.AccessRead}, auth.WritesUndeclared); err != nil {
		return nil, err
	}
	return r, nil
}

// MayWriteIssueAttachment is the rule for adding, renaming and deleting
// an issue's files (the policy has already required read access to the
// issues unit and a signed-in caller): the issue's poster, or anyone who
// can write issues (repository writers, administrators, site
// administrators).
func MayWriteIssueAttachment(r *Repo, viewer *auth.Principal, issue *store.Issue) error {
	if viewer != nil && (viewer.ID() == issue.PosterID || r.Mode >= store.AccessWrite) {
		return nil
	}
	return status.Error(codes.PermissionDenied, WriteIssueMessage)
}

// MayWriteCommentAttachment is the rule for a comment's files: the
// caller must be able to write issues and be the comment's poster or a
// repository administrator (site administrators are).
func MayWriteCommentAttachment(r *Repo, viewer *auth.Principal, comment *store.Comment) error {
	if viewer != nil && r.Mode >= store.AccessWrite && (viewer.ID() == comment.PosterID || r.Mode >= store.AccessAdmin) {
		return nil
	}
	return status.Error(codes.PermissionDenied, EditCommentMessage)
}
