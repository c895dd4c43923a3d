package access

import (
	"context"

	"forge/services/auth"
	"forge/services/errs"
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
		return nil, errs.Newf(errs.PermissionDenied, "token does not have at least one of required scope(s): [read:%s]", cat)
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
