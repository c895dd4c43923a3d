package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// ErrReleaseExists: the repository already has a release for that tag.
// Gitea answers 409 (callers put the tag name in the message).
var ErrReleaseExists = errs.New(errs.Conflict, "release tag already exists")

// Releases and tag-only records share the releases table (IsTag marks a
// record that only mirrors a git tag). Everything below that reads or
// writes "a release" ignores tag-only records, except that creating a
// release for a tag that has one turns that record into the release.

// CreateRelease stores r as a new release. A tag-only record for the same
// tag (case-insensitively) becomes the release, keeping its id; a release
// for the tag returns ErrReleaseExists, also when a concurrent call won.
// r.ID, r.LowerTagName and the times are filled in (CreatedUnix is kept
// when set).
func (s *Store) CreateRelease(ctx context.Context, r *Release) error {
	r.LowerTagName = strings.ToLower(r.TagName)
	r.IsTag = false
	now := time.Now().Unix()
	if r.CreatedUnix == 0 {
		r.CreatedUnix = now
	}
	r.UpdatedUnix = now
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var old Release
		err := s.forUpdate(tx).Where("repo_id = ? AND lower_tag_name = ?", r.RepoID, r.LowerTagName).Take(&old).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			r.ID = 0
			if err := tx.Create(r).Error; err != nil {
				return err
			}
		case err != nil:
			return err
		case !old.IsTag:
			return ErrReleaseExists
		default:
			r.ID = old.ID
			if err := tx.Select("*").Save(r).Error; err != nil {
				return err
			}
		}
		return s.releaseHookEvent(tx, r, HookKindReleasePublished)
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrReleaseExists
	}
	return err
}

// ReleaseByID returns a release of a repository; ErrNotFound if there is
// none with that id (or it is a tag-only record).
func (s *Store) ReleaseByID(ctx context.Context, repoID, id int64) (*Release, error) {
	var r Release
	err := s.db.WithContext(ctx).Where("id = ? AND repo_id = ? AND is_tag = ?", id, repoID, false).Take(&r).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// ReleaseByTag returns the release of a tag (case-insensitively);
// ErrNotFound if the tag has none.
func (s *Store) ReleaseByTag(ctx context.Context, repoID int64, tag string) (*Release, error) {
	var r Release
	err := s.db.WithContext(ctx).Where("repo_id = ? AND lower_tag_name = ? AND is_tag = ?", repoID, strings.ToLower(tag), false).Take(&r).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// LatestRelease returns the newest release that is neither a draft nor a
// pre-release; ErrNotFound if there is none.
func (s *Store) LatestRelease(ctx context.Context, repoID int64) (*Release, error) {
	var r Release
	err := s.db.WithContext(ctx).
		Where("repo_id = ? AND is_tag = ? AND is_draft = ? AND is_prerelease = ?", repoID, false, false, false).
		Order("created_unix DESC").Order("id DESC").Take(&r).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// ReleaseListOptions filters ListReleases.
type ReleaseListOptions struct {
	RepoID int64
	// IncludeDrafts must be set for drafts to be listed at all (callers
	// with write access).
	IncludeDrafts bool
	// Draft and Prerelease, when set, keep only releases with that flag.
	Draft      *bool
	Prerelease *bool
	Offset     int
	Limit      int
}

// ListReleases returns a page of releases, newest first, and how many
// match.
func (s *Store) ListReleases(ctx context.Context, o ReleaseListOptions) ([]Release, int64, error) {
	q := s.db.WithContext(ctx).Model(&Release{}).Where("repo_id = ? AND is_tag = ?", o.RepoID, false)
	if !o.IncludeDrafts {
		q = q.Where("is_draft = ?", false)
	}
	if o.Draft != nil {
		q = q.Where("is_draft = ?", *o.Draft)
	}
	if o.Prerelease != nil {
		q = q.Where("is_prerelease = ?", *o.Prerelease)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	out := []Release{}
	err := q.Order("created_unix DESC").Order("id DESC").Offset(o.Offset).Limit(o.Limit).Find(&out).Error
	return out, total, err
}

// UpdateRelease loads a release, applies change and saves it in one
// transaction (the row is locked on PostgreSQL, so concurrent edits apply
// one after the other). change may return an error to abort. A new tag
// name that another release uses returns ErrReleaseExists; a tag-only
// record for it is removed. ErrNotFound if there is no such release.
func (s *Store) UpdateRelease(ctx context.Context, repoID, id int64, change func(r *Release) error) (*Release, error) {
	var out Release
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Release
		if err := s.forUpdate(tx).Where("id = ? AND repo_id = ? AND is_tag = ?", id, repoID, false).Take(&r).Error; err != nil {
			return notFound(err)
		}
		wasDraft := r.IsDraft
		if err := change(&r); err != nil {
			return err
		}
		r.ID, r.RepoID, r.IsTag = id, repoID, false
		lower := strings.ToLower(r.TagName)
		if lower != r.LowerTagName {
			var other Release
			err := tx.Where("repo_id = ? AND lower_tag_name = ? AND id <> ?", repoID, lower, id).Take(&other).Error
			switch {
			case err == nil && !other.IsTag:
				return ErrReleaseExists
			case err == nil:
				if err := tx.Delete(&Release{}, other.ID).Error; err != nil {
					return err
				}
			case !errors.Is(err, gorm.ErrRecordNotFound):
				return err
			}
			r.LowerTagName = lower
		}
		r.UpdatedUnix = time.Now().Unix()
		if err := tx.Select("*").Save(&r).Error; err != nil {
			return err
		}
		out = r
		kind := HookKindReleaseUpdated
		if wasDraft {
			kind = HookKindReleasePublished
		}
		return s.releaseHookEvent(tx, &r, kind)
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return nil, ErrReleaseExists
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteRelease deletes a release record and its assets' rows in one
// transaction (the git tag is not touched; the blob sweep removes the
// asset files); ErrNotFound if there is no such release.
//
// A published release's deletion by actorID is a webhook event (release
// "deleted"), recorded in the transaction with the release as it was.
func (s *Store) DeleteRelease(ctx context.Context, repoID, id, actorID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Release
		err := tx.Where("id = ? AND repo_id = ? AND is_tag = ?", id, repoID, false).Take(&r).Error
		if err != nil {
			return notFound(err)
		}
		res := tx.Where("id = ? AND repo_id = ? AND is_tag = ?", id, repoID, false).Delete(&Release{})
		if res.Error == nil && res.RowsAffected == 0 {
			return ErrNotFound
		}
		if res.Error != nil {
			return res.Error
		}
		if err := tx.Where("repo_id = ? AND release_id = ?", repoID, id).Delete(&Attachment{}).Error; err != nil {
			return err
		}
		if r.IsDraft {
			return nil
		}
		snap, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		return s.enqueueHookEvent(tx, HookEvent{Kind: HookKindReleaseDeleted, RepoID: repoID, ReleaseID: id,
			ActorID: actorID, Extra: string(snap)})
	})
}

// CountReleases is the number of published releases (not drafts, not
// tag-only records) of a repository: Gitea's release_counter.
func (s *Store) CountReleases(ctx context.Context, repoID int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Release{}).
		Where("repo_id = ? AND is_tag = ? AND is_draft = ?", repoID, false, false).Count(&n).Error
	return n, err
}

// CountReleasesOf is CountReleases for several repositories at once;
// those without releases are absent.
func (s *Store) CountReleasesOf(ctx context.Context, repoIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		RepoID int64
		N      int64
	}
	err := s.db.WithContext(ctx).Model(&Release{}).Select("repo_id, count(*) AS n").
		Where("repo_id IN ? AND is_tag = ? AND is_draft = ?", uniqueIDs(repoIDs), false, false).
		Group("repo_id").Scan(&rows).Error
	if err != nil {
		return nil, errs.Wrap(err, "count releases")
	}
	for _, r := range rows {
		out[r.RepoID] = r.N
	}
	return out, nil
}

// releaseHookEvent records the webhook event of a release write in its
// transaction; drafts are not announced, as Gitea.
func (s *Store) releaseHookEvent(tx *gorm.DB, r *Release, kind string) error {
	if r.IsDraft || r.IsTag {
		return nil
	}
	return s.enqueueHookEvent(tx, HookEvent{Kind: kind, RepoID: r.RepoID, ReleaseID: r.ID, ActorID: r.PublisherID})
}
