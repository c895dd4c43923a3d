package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"forge/services/errs"
)

// NewRepository is what CreateRepositoryAtomic records at once: the
// repository, the creator's watch, the branches it starts with and, for a
// pull mirror, its mirror state.
type NewRepository struct {
	Repo      *Repository
	WatcherID int64          // 0: nobody watches it
	PusherID  int64          // recorded on the branches
	Branches  []BranchUpdate // the branches the repository starts with
	// Mirror is the pull-mirror state of a migrated mirror (RepoID is
	// filled in); nil for any other repository.
	Mirror *Mirror
	// Labels are created with the repository (a label set, a template's
	// labels); their RepoID and times are filled in.
	Labels []Label
	// Topics tag the repository (valid topic names, sorted, without
	// duplicates), as UpdateRepoTopics would.
	Topics []string
	// FromTemplate copies rows of a template repository (generation from
	// a template); nil for any other repository.
	FromTemplate *TemplateCopy
	// Limit is how many repositories the owner may hold: -1 for no limit.
	// The zero value allows none, so a caller that forgets it fails closed.
	Limit int
}

// CreateRepositoryAtomic inserts n.Repo (is_empty follows n.Branches), its
// watch, its branch records, labels, topics and its mirror row in one transaction, and calls place inside
// it, after the insert has claimed the name and before the commit. place
// moves the repository's files into place; if it fails, or the process
// dies before the commit, nothing is recorded, so a repository record
// never exists without its files. Returns ErrRepoExists if the owner has a
// repository of that name, ErrRepoLimit if the owner is at n.Limit (place
// is then not called).
func (s *Store) CreateRepositoryAtomic(ctx context.Context, n NewRepository, place func() error) error {
	r := n.Repo
	r.LowerName = strings.ToLower(r.Name)
	now := time.Now().Unix()
	r.CreatedUnix, r.UpdatedUnix = now, now
	r.IsEmpty = len(n.Branches) == 0
	r.NumBranches = len(n.Branches)
	if n.WatcherID != 0 {
		r.NumWatches = 1
	}
	if len(n.Topics) > 0 {
		r.Topics = TopicNames(n.Topics)
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.checkNewRepository(tx, r.OwnerID, r.LowerName, n.Limit); err != nil {
			return err
		}
		if r.ForkID != 0 {
			if err := s.claimFork(tx, r); err != nil {
				return err
			}
		}
		if err := tx.Create(r).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrRepoExists
			}
			return err
		}
		if n.WatcherID != 0 {
			if err := tx.Create(&Watch{UserID: n.WatcherID, RepoID: r.ID, CreatedUnix: now}).Error; err != nil {
				return err
			}
		}
		if err := copyDefaultHooks(tx, r.ID); err != nil {
			return err
		}
		// Webhook events: the repository created (its hooks, its owner's,
		// the system's) and, for a fork, a fork of its parent.
		doer := n.WatcherID
		if doer == 0 {
			doer = n.PusherID
		}
		if err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindRepoCreated, RepoID: r.ID, ActorID: doer}); err != nil {
			return err
		}
		if r.ForkID != 0 {
			if err := s.enqueueHookEvent(tx, HookEvent{Kind: HookKindFork, RepoID: r.ForkID, ActorID: doer,
				Extra: strconv.FormatInt(r.ID, 10)}); err != nil {
				return err
			}
		}
		for _, b := range n.Branches {
			rec := Branch{RepoID: r.ID, Name: b.Name, CommitID: b.CommitID, CommitMessage: storableText(b.CommitMessage),
				CommitUnix: b.CommitUnix, PusherID: n.PusherID, CreatedUnix: now, UpdatedUnix: now}
			if err := tx.Create(&rec).Error; err != nil {
				return err
			}
		}
		for i := range n.Labels {
			l := &n.Labels[i]
			l.ID, l.RepoID, l.OrgID, l.NumIssues, l.NumClosedIssues = 0, r.ID, 0, 0, 0
			l.CreatedUnix, l.UpdatedUnix = now, now
		}
		if len(n.Labels) > 0 {
			if err := tx.Create(&n.Labels).Error; err != nil {
				return err
			}
		}
		if len(n.Topics) > 0 {
			for _, name := range n.Topics {
				id, err := ensureTopic(tx, name, now)
				if err != nil {
					return err
				}
				if err := tx.Create(&RepoTopic{RepoID: r.ID, TopicID: id}).Error; err != nil {
					return err
				}
			}
		}
		if n.FromTemplate != nil {
			if err := copyFromTemplate(tx, *n.FromTemplate, r.ID, now); err != nil {
				return err
			}
		}
		if n.Mirror != nil {
			n.Mirror.RepoID = r.ID
			if n.Mirror.NextUpdateUnix == 0 {
				n.Mirror.NextUpdateUnix = nextRun(now, n.Mirror.IntervalSecs)
			}
			if err := tx.Create(n.Mirror).Error; err != nil {
				return err
			}
		}
		return place()
	})
}

// ErrForkExists: the owner already has a fork of the repository (Gitea
// answers 409).
var ErrForkExists = errs.New(errs.AlreadyExists, "repository is already forked by user")

// claimFork counts the new fork r on its parent (r.ForkID) inside the
// fork's transaction, so the parent's num_forks moves with the row that
// makes it true: returns ErrNotFound when the parent is gone, ErrForkExists
// when r's owner already has a fork of it. The parent's row is updated
// first, which locks it: concurrent forks of one parent count one after
// the other, each seeing the forks committed before it.
func (s *Store) claimFork(tx *gorm.DB, r *Repository) error {
	res := tx.Exec(`UPDATE repositories SET num_forks = num_forks + 1 WHERE id = ?`, r.ForkID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	var held int64
	if err := tx.Model(&Repository{}).Where("fork_id = ? AND owner_id = ?", r.ForkID, r.OwnerID).Count(&held).Error; err != nil {
		return err
	}
	if held > 0 {
		return ErrForkExists
	}
	r.IsFork = true
	return nil
}

// CheckNewRepository returns ErrRepoExists if the owner has a repository
// named name, ErrRepoLimit if they are at limit (see NewRepository.Limit).
// It is an early answer for creations that do expensive work before
// CreateRepositoryAtomic (a migration's clone), which checks again.
func (s *Store) CheckNewRepository(ctx context.Context, ownerID int64, name string, limit int) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return s.checkNewRepository(tx, ownerID, strings.ToLower(name), limit)
	})
}

// checkNewRepository is the limit and name check of a repository create,
// inside its transaction (the owner's row is locked by checkRepoLimit).
func (s *Store) checkNewRepository(tx *gorm.DB, ownerID int64, lowerName string, limit int) error {
	if err := s.checkRepoLimit(tx, ownerID, limit); err != nil {
		return err
	}
	var count int64
	if err := tx.Model(&Repository{}).Where("owner_id = ? AND lower_name = ?", ownerID, lowerName).Count(&count).Error; err != nil {
		return err
	}
	if count > 0 {
		return ErrRepoExists
	}
	return nil
}

// TemplateCopy names what a repository generated from the template
// repository RepoID copies of it.
type TemplateCopy struct {
	RepoID int64
	// Webhooks: the template's own hooks (URL, events, sealed secret and
	// authorization header, active flag).
	Webhooks bool
	// Protections: the template's branch protection rules, as they are
	// (whitelists name the same users and teams).
	Protections bool
}

// copyFromTemplate copies, inside the new repository's transaction, what
// c names of the template's rows to repository repoID.
func copyFromTemplate(tx *gorm.DB, c TemplateCopy, repoID, now int64) error {
	if c.Webhooks {
		err := tx.Exec(`INSERT INTO webhooks (repo_id, owner_id, is_system, type, url, http_method, content_type,
	secret, authorization_header, events, branch_filter, meta, active, created_unix, updated_unix)
SELECT ?, 0, false, type, url, http_method, content_type, secret, authorization_header, events,
	branch_filter, meta, active, ?, ?
FROM webhooks WHERE repo_id = ? ORDER BY id`, repoID, now, now, c.RepoID).Error
		if err != nil {
			return err
		}
	}
	if c.Protections {
		var rules []BranchProtection
		if err := tx.Where("repo_id = ?", c.RepoID).Order("id").Find(&rules).Error; err != nil {
			return err
		}
		for i := range rules {
			rules[i].ID, rules[i].RepoID, rules[i].CreatedUnix, rules[i].UpdatedUnix = 0, repoID, now, now
		}
		if len(rules) > 0 {
			if err := tx.Create(&rules).Error; err != nil {
				return err
			}
		}
	}
	return nil
}
