package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ReviewType is what a review says, with Gitea's numbers.
type ReviewType int

const (
	// ReviewPending is a draft only its reviewer sees.
	ReviewPending ReviewType = 0
	ReviewApprove ReviewType = 1
	ReviewComment ReviewType = 2
	// ReviewReject requests changes.
	ReviewReject ReviewType = 3
	// ReviewRequest is a review request of a person or a team, not yet
	// answered.
	ReviewRequest ReviewType = 4
)

// Review is a review of a pull request (its issue), or a review request.
// A request names a person (ReviewerID) or a team (ReviewerTeamID, and
// ReviewerID 0).
type Review struct {
	ID             int64 `gorm:"primaryKey"`
	RepoID         int64
	IssueID        int64
	ReviewerID     int64
	ReviewerTeamID int64
	Type           ReviewType
	Content        string
	// CommitID is the head commit the review was given on.
	CommitID string
	// Official: the review counts for approvals (decided at submission;
	// only the reviewer's latest verdict keeps it).
	Official    bool
	Dismissed   bool
	NumComments int
	CreatedUnix int64
	UpdatedUnix int64
}

func (Review) TableName() string { return "reviews" }

// ReviewLine is a line comment of a review.
type ReviewLine struct {
	ID       int64 `gorm:"primaryKey"`
	RepoID   int64
	IssueID  int64
	ReviewID int64
	PosterID int64
	Content  string
	TreePath string
	// Line is on the new side when positive, the old side when negative.
	Line     int64
	CommitID string
	// Patch is the diff hunk the line is in, up to the line.
	Patch       string
	CreatedUnix int64
	UpdatedUnix int64
}

func (ReviewLine) TableName() string { return "review_comments" }

// ErrReviewNotPending: the review to submit was submitted already; the
// message is Gitea's.
var ErrReviewNotPending = errs.New(errs.Invalid, "only a pending review can be submitted")

// NewReview is a review to write.
type NewReview struct {
	RepoID, IssueID, ReviewerID int64
	Type                        ReviewType
	Content                     string
	CommitID                    string
	Official                    bool
	// PendingID names the pending review to submit (SubmitPullReview);
	// 0: the reviewer's pending review if they have one, else a new one.
	PendingID int64
	Lines     []ReviewLine
}

// SubmitReview writes a review in one transaction. The review is the
// one PendingID names (ErrReviewNotPending when it is no longer pending,
// ErrNotFound when it is gone), or else the reviewer's pending review on
// the pull request, or else a new row; its lines are added to it. A
// verdict (approval or request for changes) clears Official on the
// reviewer's earlier verdicts, so only the latest counts, and any review
// but a pending one answers the reviewer's open review request (deleted).
func (s *Store) SubmitReview(ctx context.Context, n NewReview) (*Review, error) {
	now := time.Now().Unix()
	var out Review
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		q := tx.Where("issue_id = ? AND reviewer_id = ? AND type = ?", n.IssueID, n.ReviewerID, ReviewPending)
		if n.PendingID != 0 {
			q = tx.Where("id = ? AND issue_id = ?", n.PendingID, n.IssueID)
		}
		err := q.Order("id").Take(&out).Error
		switch {
		case err == nil && n.PendingID != 0 && out.Type != ReviewPending:
			return ErrReviewNotPending
		case errors.Is(err, gorm.ErrRecordNotFound) && n.PendingID != 0:
			return ErrNotFound
		case errors.Is(err, gorm.ErrRecordNotFound):
			out = Review{RepoID: n.RepoID, IssueID: n.IssueID, ReviewerID: n.ReviewerID, CreatedUnix: now}
		case err != nil:
			return errs.Wrap(err, "load pending review")
		}
		out.Type, out.Official, out.UpdatedUnix = n.Type, n.Official, now
		if n.Content != "" || out.ID == 0 || n.Type != ReviewPending {
			out.Content = n.Content
		}
		if n.CommitID != "" {
			out.CommitID = n.CommitID
		}
		if out.ID != 0 && n.Type != ReviewPending {
			out.CreatedUnix = now // submitted now
		}
		out.NumComments += len(n.Lines)
		if out.ID == 0 {
			if err := tx.Create(&out).Error; err != nil {
				return errs.Wrap(err, "insert review")
			}
		} else {
			// The pending row is changed only if still pending: a
			// concurrent submission of it wins once.
			res := tx.Model(&Review{}).Where("id = ? AND type = ?", out.ID, ReviewPending).Updates(map[string]any{
				"type": out.Type, "official": out.Official, "content": out.Content, "commit_id": out.CommitID,
				"num_comments": out.NumComments, "created_unix": out.CreatedUnix, "updated_unix": now,
			})
			if res.Error != nil {
				return errs.Wrap(res.Error, "update review")
			}
			if res.RowsAffected == 0 {
				return ErrReviewNotPending
			}
		}
		for i := range n.Lines {
			l := &n.Lines[i]
			l.ID, l.RepoID, l.IssueID, l.ReviewID, l.PosterID = 0, out.RepoID, out.IssueID, out.ID, n.ReviewerID
			l.CreatedUnix, l.UpdatedUnix = now, now
		}
		if len(n.Lines) > 0 {
			if err := tx.Create(&n.Lines).Error; err != nil {
				return errs.Wrap(err, "insert review comments")
			}
		}
		if out.Type == ReviewApprove || out.Type == ReviewReject {
			if err := tx.Model(&Review{}).
				Where("issue_id = ? AND reviewer_id = ? AND id <> ? AND type IN ?", out.IssueID, out.ReviewerID, out.ID,
					[]ReviewType{ReviewApprove, ReviewReject}).
				Update("official", false).Error; err != nil {
				return errs.Wrap(err, "clear earlier verdicts")
			}
		}
		if out.Type != ReviewPending {
			event := Comment{Type: CommentTypeReview, RepoID: out.RepoID, IssueID: out.IssueID, PosterID: out.ReviewerID,
				ReviewID: out.ID, Content: out.Content, CreatedUnix: now}
			if err := recordEvent(tx, event); err != nil {
				return err
			}
			// The submitted review, for webhooks.
			if err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindReview, RepoID: out.RepoID, IssueID: out.IssueID,
				ActorID: out.ReviewerID, Extra: strconv.FormatInt(out.ID, 10)}); err != nil {
				return err
			}
			if err := tx.Where("issue_id = ? AND reviewer_id = ? AND type = ?", out.IssueID, out.ReviewerID, ReviewRequest).
				Delete(&Review{}).Error; err != nil {
				return errs.Wrap(err, "answer review request")
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ReviewByID returns a review; ErrNotFound when there is none.
func (s *Store) ReviewByID(ctx context.Context, id int64) (*Review, error) {
	var r Review
	if err := s.db.WithContext(ctx).Take(&r, id).Error; err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// ReviewListOptions selects a page of a pull request's reviews.
type ReviewListOptions struct {
	IssueID int64
	// ViewerID sees their own pending reviews; AllPending sees everyone's
	// (site administrators).
	ViewerID      int64
	AllPending    bool
	Offset, Limit int
}

// ListReviews returns a page of a pull request's reviews and review
// requests, oldest first, and how many there are.
func (s *Store) ListReviews(ctx context.Context, o ReviewListOptions) ([]Review, int64, error) {
	q := s.db.WithContext(ctx).Model(&Review{}).Where("issue_id = ?", o.IssueID)
	if !o.AllPending {
		q = q.Where("(type <> ? OR reviewer_id = ?)", ReviewPending, o.ViewerID)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count reviews")
	}
	out := []Review{}
	if err := q.Order("id").Offset(o.Offset).Limit(o.Limit).Find(&out).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list reviews")
	}
	return out, total, nil
}

// ReviewLines returns a review's line comments in order, at most limit.
func (s *Store) ReviewLines(ctx context.Context, reviewID int64, limit int) ([]ReviewLine, error) {
	out := []ReviewLine{}
	if err := s.db.WithContext(ctx).Where("review_id = ?", reviewID).Order("id").Limit(limit).Find(&out).Error; err != nil {
		return nil, errs.Wrap(err, "list review comments")
	}
	return out, nil
}

// DeleteReview deletes a review and its line comments; ErrNotFound when
// it is gone.
func (s *Store) DeleteReview(ctx context.Context, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Delete(&Review{}, id)
		if res.Error != nil {
			return errs.Wrap(res.Error, "delete review")
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		// Its timeline events go with it.
		if err := tx.Where("review_id = ? AND type IN ?", id, []int{CommentTypeReview, CommentTypeDismissReview}).
			Delete(&Comment{}).Error; err != nil {
			return errs.Wrap(err, "delete review events")
		}
		return errs.Wrap(tx.Where("review_id = ?", id).Delete(&ReviewLine{}).Error, "delete review comments")
	})
}

// SetReviewDismissed dismisses a review or counts it again and returns
// it; a dismissal by doerID records its timeline event (with message) in
// the same transaction. ErrNotFound when it is gone.
func (s *Store) SetReviewDismissed(ctx context.Context, id int64, dismissed bool, doerID int64, message string) (*Review, error) {
	now := time.Now().Unix()
	var out Review
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Take(&out, id).Error; err != nil {
			return notFound(err)
		}
		if err := tx.Model(&Review{}).Where("id = ?", id).
			Updates(map[string]any{"dismissed": dismissed, "updated_unix": now}).Error; err != nil {
			return errs.Wrap(err, "dismiss review")
		}
		out.Dismissed, out.UpdatedUnix = dismissed, now
		if !dismissed {
			return nil
		}
		return recordEvent(tx, Comment{Type: CommentTypeDismissReview, RepoID: out.RepoID, IssueID: out.IssueID,
			PosterID: doerID, ReviewID: id, Content: message, CreatedUnix: now})
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// RequestReviews records review requests of people (userIDs) and teams
// (teamIDs) on a pull request in one transaction and returns the
// requests, new or already open, in that order. commitID is the head
// they are asked on.
//
// Each person newly asked by doerID is a webhook event
// (pull_request_review_request "review_requested"), in the transaction.
func (s *Store) RequestReviews(ctx context.Context, repoID, issueID int64, commitID string, userIDs, teamIDs []int64, doerID int64) ([]Review, error) {
	now := time.Now().Unix()
	var out []Review
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var open []Review
		if err := tx.Where("issue_id = ? AND type = ?", issueID, ReviewRequest).Find(&open).Error; err != nil {
			return errs.Wrap(err, "load review requests")
		}
		users, teams := map[int64]Review{}, map[int64]Review{}
		for _, r := range open {
			if r.ReviewerTeamID != 0 {
				teams[r.ReviewerTeamID] = r
			} else {
				users[r.ReviewerID] = r
			}
		}
		add := func(have map[int64]Review, id int64, row Review) error {
			if r, ok := have[id]; ok {
				out = append(out, r)
				return nil
			}
			if err := tx.Create(&row).Error; err != nil {
				return errs.Wrap(err, "insert review request")
			}
			if row.ReviewerTeamID == 0 {
				err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindReviewRequested, RepoID: repoID, IssueID: issueID,
					ActorID: doerID, Extra: strconv.FormatInt(row.ReviewerID, 10)})
				if err != nil {
					return err
				}
			}
			have[id] = row
			out = append(out, row)
			return nil
		}
		for _, id := range uniqueIDs(userIDs) {
			if err := add(users, id, Review{RepoID: repoID, IssueID: issueID, ReviewerID: id, Type: ReviewRequest,
				CommitID: commitID, CreatedUnix: now, UpdatedUnix: now}); err != nil {
				return err
			}
		}
		for _, id := range uniqueIDs(teamIDs) {
			if err := add(teams, id, Review{RepoID: repoID, IssueID: issueID, ReviewerTeamID: id, Type: ReviewRequest,
				CommitID: commitID, CreatedUnix: now, UpdatedUnix: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WithdrawReviewRequests deletes the open review requests of people and
// teams on a pull request; those without one are ignored.
//
// Each person's request withdrawn by doerID is a webhook event
// (pull_request_review_request "review_request_removed"), in the
// transaction.
func (s *Store) WithdrawReviewRequests(ctx context.Context, issueID int64, userIDs, teamIDs []int64, doerID int64) error {
	if len(userIDs) == 0 && len(teamIDs) == 0 {
		return nil
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		db := tx.Where("issue_id = ? AND type = ?", issueID, ReviewRequest)
		switch {
		case len(userIDs) > 0 && len(teamIDs) > 0:
			db = db.Where("((reviewer_team_id = 0 AND reviewer_id IN ?) OR reviewer_team_id IN ?)", uniqueIDs(userIDs), uniqueIDs(teamIDs))
		case len(userIDs) > 0:
			db = db.Where("reviewer_team_id = 0 AND reviewer_id IN ?", uniqueIDs(userIDs))
		default:
			db = db.Where("reviewer_team_id IN ?", uniqueIDs(teamIDs))
		}
		var gone []Review
		if err := db.Find(&gone).Error; err != nil {
			return errs.Wrap(err, "load review requests")
		}
		if len(gone) == 0 {
			return nil
		}
		ids := make([]int64, len(gone))
		for i, r := range gone {
			ids[i] = r.ID
		}
		if err := tx.Where("id IN ?", ids).Delete(&Review{}).Error; err != nil {
			return errs.Wrap(err, "withdraw review requests")
		}
		for _, r := range gone {
			if r.ReviewerTeamID != 0 {
				continue
			}
			err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindReviewRequestRemoved, RepoID: r.RepoID, IssueID: issueID,
				ActorID: doerID, Extra: strconv.FormatInt(r.ReviewerID, 10)})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// RequestedReviewersOf returns, for a page of pull requests (their
// issues) at once, the people with an open review request, in the order
// they were asked.
func (s *Store) RequestedReviewersOf(ctx context.Context, issueIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	var rows []Review
	err := s.db.WithContext(ctx).Select("issue_id", "reviewer_id").
		Where("issue_id IN ? AND type = ? AND reviewer_team_id = 0", uniqueIDs(issueIDs), ReviewRequest).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, errs.Wrap(err, "load requested reviewers")
	}
	for _, r := range rows {
		out[r.IssueID] = append(out[r.IssueID], r.ReviewerID)
	}
	return out, nil
}

// ApprovalQuery asks how a pull request stands with its reviewers, for
// the merge checks of a branch protection rule.
type ApprovalQuery struct {
	// IssueID is the pull request's issue.
	IssueID int64
	// HeadSHA is the pull request's current head; with IgnoreStale, a
	// review given on another commit (stale) does not count.
	HeadSHA     string
	IgnoreStale bool
	// Whitelist, when not nil, counts only these reviewers (a rule's
	// approvals whitelist, teams expanded to their members); nil counts
	// every official reviewer.
	Whitelist []int64
	// WhitelistTeams adds the members of these teams to Whitelist (read
	// only when Whitelist is not nil).
	WhitelistTeams []int64
}

// Approvals is how a pull request stands with its reviewers.
type Approvals struct {
	// Count is the number of valid approvals: reviews that approve, are
	// official (each reviewer's latest verdict only, see SubmitReview),
	// are not dismissed and, with IgnoreStale, were given on the head.
	Count int64
	// Rejected: an official, not dismissed review requests changes (the
	// reviewer's latest verdict), whatever its commit.
	Rejected bool
}

// PullApprovals counts a pull request's valid approvals and tells
// whether changes are officially requested (Gitea's required_approvals
// and block_on_rejected_reviews), in one query. A pull request without
// reviews has none of either; it returns only database errors.
func (s *Store) PullApprovals(ctx context.Context, q ApprovalQuery) (Approvals, error) {
	if q.Whitelist != nil && len(q.Whitelist) == 0 && len(q.WhitelistTeams) == 0 {
		return Approvals{}, nil
	}
	db := s.db.WithContext(ctx).Model(&Review{}).
		Where("issue_id = ? AND official = ? AND dismissed = ? AND type IN ?", q.IssueID, true, false,
			[]ReviewType{ReviewApprove, ReviewReject})
	switch {
	case q.Whitelist != nil && len(q.WhitelistTeams) > 0:
		members := s.db.Model(&TeamUser{}).Select("uid").Where("team_id IN ?", uniqueIDs(q.WhitelistTeams))
		db = db.Where("(reviewer_id IN ? OR reviewer_id IN (?))", append(uniqueIDs(q.Whitelist), 0), members)
	case q.Whitelist != nil:
		db = db.Where("reviewer_id IN ?", uniqueIDs(q.Whitelist))
	}
	approved := "type = ?"
	args := []any{ReviewApprove}
	if q.IgnoreStale {
		approved += " AND commit_id = ?"
		args = append(args, q.HeadSHA)
	}
	var row struct {
		Approvals int64
		Rejects   int64
	}
	err := db.Select("COALESCE(SUM(CASE WHEN "+approved+" THEN 1 ELSE 0 END), 0) AS approvals, "+
		"COALESCE(SUM(CASE WHEN type = ? THEN 1 ELSE 0 END), 0) AS rejects", append(args, ReviewReject)...).
		Scan(&row).Error
	if err != nil {
		return Approvals{}, errs.Wrap(err, "count approvals")
	}
	return Approvals{Count: row.Approvals, Rejected: row.Rejects > 0}, nil
}

// ReviewerCandidates returns, by name, at most limit accounts that may be
// asked for a review of a repository, those visible shows: its owner (an
// individual), its collaborators, and the members of the owning
// organization's teams that reach it.
func (s *Store) ReviewerCandidates(ctx context.Context, repo *Repository, visible UserFilter, limit int) ([]User, error) {
	collab := s.db.Model(&Collaboration{}).Select("user_id").Where("repo_id = ?", repo.ID)
	teams := s.db.Model(&Team{}).Select("id").Where("org_id = ?", repo.OwnerID).
		Where("(includes_all_repositories = ? OR id IN (?))", true, s.db.Model(&TeamRepo{}).Select("team_id").Where("repo_id = ?", repo.ID))
	members := s.db.Model(&TeamUser{}).Select("uid").Where("team_id IN (?)", teams)
	q := s.db.WithContext(ctx).Model(&User{}).
		Where("type = ?", UserTypeIndividual).
		Where("(id = ? OR id IN (?) OR id IN (?))", repo.OwnerID, collab, members)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("id IN (?)", ids)
	}
	out := []User{}
	if err := q.Order("lower_name").Limit(limit).Find(&out).Error; err != nil {
		return nil, errs.Wrap(err, "list reviewer candidates")
	}
	return out, nil
}

// ReviewTeams loads teams by id with their units (a page's team review
// requests), in two queries.
func (s *Store) ReviewTeams(ctx context.Context, ids []int64) (map[int64]*Team, error) {
	out := map[int64]*Team{}
	if len(ids) == 0 {
		return out, nil
	}
	db := s.db.WithContext(ctx)
	var rows []Team
	if err := db.Where("id IN ?", uniqueIDs(ids)).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "load teams")
	}
	ptrs := make([]*Team, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i]
		out[rows[i].ID] = &rows[i]
	}
	if err := s.loadUnits(db, ptrs); err != nil {
		return nil, errs.Wrap(err, "team units")
	}
	return out, nil
}

// OpenReviewRequests returns the open review requests of a pull request
// (its issue), oldest first, at most limit.
func (s *Store) OpenReviewRequests(ctx context.Context, issueID int64, limit int) ([]Review, error) {
	out := []Review{}
	err := s.db.WithContext(ctx).Where("issue_id = ? AND type = ?", issueID, ReviewRequest).Order("id").Limit(limit).Find(&out).Error
	return out, errs.Wrap(err, "list review requests")
}
