package reactions

import (
	"context"
	"errors"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the reactions area reads and writes.
type Store interface {
	// AddReaction stores a reaction unless the user gave it already;
	// returns the row and whether it is new; store.ErrNotFound when the
	// issue or comment is gone.
	AddReaction(ctx context.Context, r store.Reaction) (*store.Reaction, bool, error)
	// RemoveReaction deletes a user's reaction; none is no error.
	RemoveReaction(ctx context.Context, issueID, commentID, userID int64, typ string) error
	// ListReactions lists an issue's (commentID 0) or a comment's
	// reactions, oldest first, and counts them.
	ListReactions(ctx context.Context, issueID, commentID int64, offset, limit int) ([]store.Reaction, int64, error)
	// UsersByID loads the reacting users of a page at once.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
}

// Service holds the reaction use cases.
type Service struct {
	store   Store
	allowed map[string]bool
}

// NewService returns the use cases; allowed is [ui] REACTIONS.
func NewService(s Store, allowed []string) *Service {
	set := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		set[a] = true
	}
	return &Service{store: s, allowed: set}
}

// Target is what a reaction is on: an issue, or one of its comments.
type Target struct {
	Issue   *store.Issue
	Comment *store.Comment // nil: the issue itself
}

// TargetOf is what the policy's rule loaded.
func TargetOf(o *access.Object) Target {
	return Target{Issue: o.Issue, Comment: o.Comment}
}

func (t Target) commentID() int64 {
	if t.Comment == nil {
		return 0
	}
	return t.Comment.ID
}

// List returns a page (page.Size 0: all) of the target's reactions and
// how many there are.
func (s *Service) List(ctx context.Context, t Target, page paging.Page) ([]store.Reaction, int64, error) {
	offset := 0
	if page.Size > 0 {
		offset = page.Offset()
	}
	return s.store.ListReactions(ctx, t.Issue.ID, t.commentID(), offset, page.Size)
}

// React gives the caller's reaction content to t: a content outside [ui]
// REACTIONS is refused (403, Gitea's message). It returns the reaction
// and whether the caller had given it already.
func (s *Service) React(ctx context.Context, caller *auth.Principal, t Target, content string) (*store.Reaction, bool, error) {
	if !s.allowed[content] {
		return nil, false, errs.Newf(errs.PermissionDenied, "'%s' is not an allowed reaction", content)
	}
	r, created, err := s.store.AddReaction(ctx, store.Reaction{Type: content, RepoID: t.Issue.RepoID, IssueID: t.Issue.ID,
		CommentID: t.commentID(), UserID: caller.ID()})
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, errs.New(errs.NotFound, "")
	}
	if err != nil {
		return nil, false, err
	}
	return r, !created, nil
}

// Unreact removes the caller's reaction content from t (none: nothing
// to do).
func (s *Service) Unreact(ctx context.Context, caller *auth.Principal, t Target, content string) error {
	return s.store.RemoveReaction(ctx, t.Issue.ID, t.commentID(), caller.ID(), content)
}
