package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// PullState is what a pull request's head and base commits determine: the
// commits themselves, their merge base, whether the head merges cleanly
// and the size of its diff against the merge base.
type PullState struct {
	HeadSHA, BaseSHA, MergeBase        string
	Mergeable                          bool
	Additions, Deletions, ChangedFiles int
	// DismissStale asks RefreshPullRequest to dismiss the approvals given
	// on another commit than HeadSHA (the base branch's rule has
	// dismiss_stale_approvals). Not a column.
	DismissStale bool
}

// DismissStaleContent is the content of the timeline comment of an
// approval dismissed by a push (Gitea's words).
const DismissStaleContent = "New commits pushed, approval review dismissed automatically according to repository settings"

func (p PullState) columns() map[string]any {
	return map[string]any{
		"head_sha": p.HeadSHA, "base_sha": p.BaseSHA, "merge_base": p.MergeBase, "mergeable": p.Mergeable,
		"additions": p.Additions, "deletions": p.Deletions, "changed_files": p.ChangedFiles,
	}
}

// openPulls selects the pull requests that are open and not merged.
func (s *Store) openPulls(tx *gorm.DB) *gorm.DB {
	return tx.Model(&PullRequest{}).Select("pull_requests.*").
		Joins("JOIN issues ON issues.id = pull_requests.issue_id").
		Where("issues.is_closed = ? AND pull_requests.has_merged = ?", false, false)
}

// OpenPullRequestsTouching returns the open, unmerged pull requests whose
// base or head branch lives in repository repoID, by id.
func (s *Store) OpenPullRequestsTouching(ctx context.Context, repoID int64) ([]PullRequest, error) {
	var out []PullRequest
	err := s.openPulls(s.db.WithContext(ctx)).
		Where("pull_requests.repo_id = ? OR pull_requests.head_repo_id = ?", repoID, repoID).
		Order("pull_requests.id").Find(&out).Error
	if err != nil {
		return nil, errs.Wrap(err, "load open pull requests")
	}
	return out, nil
}

// ReposWithOpenPullRequests returns the base repositories of every open,
// unmerged pull request, once each (the start-up check of their heads).
func (s *Store) ReposWithOpenPullRequests(ctx context.Context) ([]int64, error) {
	var ids []int64
	// Not openPulls: its select of whole rows made gorm scan rows into
	// the ids (a panic as soon as one pull request was open).
	err := s.db.WithContext(ctx).Model(&PullRequest{}).
		Joins("JOIN issues ON issues.id = pull_requests.issue_id").
		Where("issues.is_closed = ? AND pull_requests.has_merged = ?", false, false).
		Distinct().Order("pull_requests.repo_id").Pluck("pull_requests.repo_id", &ids).Error
	if err != nil {
		return nil, errs.Wrap(err, "list repositories with open pull requests")
	}
	return ids, nil
}

// RefreshPullRequest stores st on the pull request from was read as when
// its row still has from's head and base commits and base branch (those st
// was computed after) and it is not merged: of two refreshers racing, the
// one that computed from stale values writes nothing. It reports whether
// it wrote.
//
// With st.DismissStale, the same transaction dismisses the pull request's
// approvals given on another commit than st.HeadSHA, each with a timeline
// comment (type 32) saying why: the head move and the dismissal are
// stored together or not at all, and a dismissed approval is never
// dismissed twice.
func (s *Store) RefreshPullRequest(ctx context.Context, from *PullRequest, st PullState) (bool, error) {
	wrote := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&PullRequest{}).
			Where("id = ? AND head_sha = ? AND base_sha = ? AND base_branch = ? AND has_merged = ?",
				from.ID, from.HeadSHA, from.BaseSHA, from.BaseBranch, false).
			Updates(st.columns())
		if res.Error != nil {
			return errs.Wrap(res.Error, "refresh pull request")
		}
		wrote = res.RowsAffected == 1
		if !wrote {
			return nil
		}
		if st.HeadSHA != from.HeadSHA {
			// New commits on the head: a pull_request_sync webhook event.
			if err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindPullSync, RepoID: from.RepoID, IssueID: from.IssueID,
				OldSHA: from.HeadSHA, NewSHA: st.HeadSHA}); err != nil {
				return err
			}
		}
		if !st.DismissStale {
			return nil
		}
		return s.dismissStale(tx, from, st.HeadSHA)
	})
	return wrote, err
}

// maxDismissed bounds the approvals one refresh dismisses (there is one
// official verdict per reviewer).
const maxDismissed = 1000

// dismissStale dismisses the not yet dismissed approvals of pr given on
// another commit than head, with a timeline comment each.
func (s *Store) dismissStale(tx *gorm.DB, pr *PullRequest, head string) error {
	var stale []Review
	if err := tx.Where("issue_id = ? AND type = ? AND dismissed = ? AND commit_id <> ?", pr.IssueID, ReviewApprove, false, head).
		Order("id").Limit(maxDismissed).Find(&stale).Error; err != nil {
		return errs.Wrap(err, "load stale approvals")
	}
	if len(stale) == 0 {
		return nil
	}
	now := time.Now().Unix()
	ids := make([]int64, len(stale))
	comments := make([]Comment, len(stale))
	for i, r := range stale {
		ids[i] = r.ID
		comments[i] = Comment{Type: CommentTypeDismissReview, RepoID: pr.RepoID, IssueID: pr.IssueID, ReviewID: r.ID,
			PosterID: r.ReviewerID, Content: DismissStaleContent, CreatedUnix: now, UpdatedUnix: now}
	}
	if err := tx.Model(&Review{}).Where("id IN ?", ids).
		Updates(map[string]any{"dismissed": true, "updated_unix": now}).Error; err != nil {
		return errs.Wrap(err, "dismiss stale approvals")
	}
	return errs.Wrap(tx.Create(&comments).Error, "record dismissed approvals")
}

// ErrRetargetMerged refuses changing the base of a merged pull request.
var ErrRetargetMerged = errs.New(errs.Conflict, "pull request has already been merged")

// ErrPullRequestClosed refuses changing the base of a closed pull request.
var ErrPullRequestClosed = errs.New(errs.Invalid, "pull request is closed")

// ErrPullRequestMoved is RetargetPullRequest's answer when the head
// commit is no longer the one the new state was computed from: compute
// again.
var ErrPullRequestMoved = errs.New(errs.Conflict, "the pull request's head moved meanwhile")

// RetargetPullRequest moves the pull request from was read as onto base
// branch base with st computed against it, if its head is still from's
// (else ErrPullRequestMoved). In one transaction, with the repository's issue
// index row locked as creators lock it (so no pull request with the same
// targets is opened meanwhile), it refuses a merged pull request
// (ErrRetargetMerged), a closed one (ErrPullRequestClosed) and a
// duplicate of an open one from the same head into base
// (ErrPullRequestExists, Gitea's message). The change-target-branch
// event, by doerID, is recorded in the same transaction. ErrNotFound for
// an unknown id.
func (s *Store) RetargetPullRequest(ctx context.Context, from *PullRequest, base string, st PullState, doerID int64) error {
	id := from.ID
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var pr PullRequest
		if err := tx.Where("id = ?", id).Take(&pr).Error; err != nil {
			return notFound(err)
		}
		var idx IssueIndex
		if err := s.forUpdate(tx).Where("repo_id = ?", pr.RepoID).Take(&idx).Error; err != nil {
			return errs.Wrap(err, "lock the issue index")
		}
		var is Issue
		if err := s.forUpdate(tx).Where("id = ?", pr.IssueID).Take(&is).Error; err != nil {
			return notFound(err)
		}
		if pr.HasMerged {
			return ErrRetargetMerged
		}
		if is.IsClosed {
			return ErrPullRequestClosed
		}
		if pr.HeadSHA != st.HeadSHA {
			return ErrPullRequestMoved
		}
		if err := s.duplicatePull(tx, &pr, base); err != nil {
			return err
		}
		cols := st.columns()
		cols["base_branch"] = base
		if err := tx.Model(&PullRequest{}).Where("id = ?", id).Updates(cols).Error; err != nil {
			return errs.Wrap(err, "retarget pull request")
		}
		return recordEvent(tx, Comment{Type: CommentTypeChangeTargetBranch, RepoID: pr.RepoID, IssueID: pr.IssueID,
			PosterID: doerID, OldRef: pr.BaseBranch, NewRef: base})
	})
}

// DuplicatePullRequest returns ErrPullRequestExists when another open,
// unmerged pull request has pr's head and base (checked before reopening
// pr).
func (s *Store) DuplicatePullRequest(ctx context.Context, pr *PullRequest) error {
	return s.duplicatePull(s.db.WithContext(ctx), pr, pr.BaseBranch)
}

func (s *Store) duplicatePull(tx *gorm.DB, pr *PullRequest, base string) error {
	var dup PullRequest
	err := s.openPulls(tx).
		Where("pull_requests.repo_id = ? AND pull_requests.head_repo_id = ? AND pull_requests.head_branch = ? AND pull_requests.base_branch = ?",
			pr.RepoID, pr.HeadRepoID, pr.HeadBranch, base).
		Where("pull_requests.id <> ?", pr.ID).
		Take(&dup).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil
	}
	if err != nil {
		return errs.Wrap(err, "find duplicate pull request")
	}
	return ErrPullRequestExists.WithMessage(fmt.Sprintf(
		"pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: %s, base_branch: %s]",
		dup.ID, dup.IssueID, dup.HeadRepoID, dup.RepoID, dup.HeadBranch, dup.BaseBranch))
}

// SetAllowMaintainerEdit records the poster's choice on pull request id.
func (s *Store) SetAllowMaintainerEdit(ctx context.Context, id int64, allow bool) error {
	err := s.db.WithContext(ctx).Model(&PullRequest{}).Where("id = ?", id).Update("allow_maintainer_edit", allow).Error
	return errs.Wrap(err, "set allow_maintainer_edit")
}
