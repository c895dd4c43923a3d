package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// ErrRepoExists: the owner already has a repository of that name.
// Gitea answers 409 with its own message on every path that names one.
var ErrRepoExists = errs.New(errs.AlreadyExists, "The repository with the same name already exists.")

// ErrRepoLimit: the owner already holds as many repositories as their
// limit allows.
// Callers answer it with the limit in the message (access.RepoLimitError).
var ErrRepoLimit = errs.New(errs.PermissionDenied, "the owner has reached their repository limit")

// CreateRepository inserts r and, when watcherID is not 0, makes that user
// watch it (Gitea's AUTO_WATCH_NEW_REPOS), in one transaction.
func (s *Store) CreateRepository(ctx context.Context, r *Repository, watcherID int64) error {
	r.LowerName = strings.ToLower(r.Name)
	now := time.Now().Unix()
	r.CreatedUnix, r.UpdatedUnix = now, now
	if watcherID != 0 {
		r.NumWatches = 1
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Repository{}).Where("owner_id = ? AND lower_name = ?", r.OwnerID, r.LowerName).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrRepoExists
		}
		if err := tx.Create(r).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrRepoExists
			}
			return err
		}
		if watcherID != 0 {
			if err := tx.Create(&Watch{UserID: watcherID, RepoID: r.ID, CreatedUnix: now}).Error; err != nil {
				return err
			}
		}
		return copyDefaultHooks(tx, r.ID)
	})
}

// RepositoryByName finds an owner's repository, case-insensitively.
func (s *Store) RepositoryByName(ctx context.Context, ownerID int64, name string) (*Repository, error) {
	var r Repository
	err := s.db.WithContext(ctx).Where("owner_id = ? AND lower_name = ?", ownerID, strings.ToLower(name)).Take(&r).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// RepositoryByID finds a repository by id.
func (s *Store) RepositoryByID(ctx context.Context, id int64) (*Repository, error) {
	var r Repository
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// UpdateRepository loads the repository, applies change and saves it in
// one transaction (the row is locked on PostgreSQL). Renames that collide
// return ErrRepoExists.
func (s *Store) UpdateRepository(ctx context.Context, id int64, change func(r *Repository) error) (*Repository, error) {
	var out Repository
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Repository
		if err := s.forUpdate(tx).Where("id = ?", id).Take(&r).Error; err != nil {
			return notFound(err)
		}
		if err := change(&r); err != nil {
			return err
		}
		r.LowerName = strings.ToLower(r.Name)
		r.UpdatedUnix = time.Now().Unix()
		var n int64
		if err := tx.Model(&Repository{}).Where("owner_id = ? AND lower_name = ? AND id <> ?", r.OwnerID, r.LowerName, r.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrRepoExists
		}
		if err := tx.Save(&r).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrRepoExists
			}
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteRepository deletes a repository's records (not its git data): its
// row, the rows of every table the areas declare as owned by a
// repository (Own), and the dependencies of other repositories' issues
// on its issues.
func (s *Store) DeleteRepository(ctx context.Context, id int64) error {
	return s.DeleteRepositoryBy(ctx, id, 0)
}

// DeleteRepositoryBy is DeleteRepository by user actorID (0: nobody in
// particular), which records the repository event "deleted" for its
// owner's and the system hooks in the same transaction.
func (s *Store) DeleteRepositoryBy(ctx context.Context, id, actorID int64) error {
	if s.owned == nil {
		return errUndeclared
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := unlinkFork(tx, s, id); err != nil {
			return err
		}
		if err := deleteDependenciesOn(tx, s, id); err != nil {
			return err
		}
		var teams []int64
		if err := tx.Model(&TeamRepo{}).Where("repo_id = ?", id).Pluck("team_id", &teams).Error; err != nil {
			return err
		}
		if err := deleteOwned(tx, s.owned.repoColumns(), id); err != nil {
			return err
		}
		for _, t := range teams {
			if err := recountTeam(tx, t); err != nil {
				return err
			}
		}
		// After the owned rows (the repository's queued events and hooks
		// go with it), before its row (the event is written only when a
		// hook of its owner or a system hook exists).
		if err := s.repoDeletedHookEvent(tx, id, actorID); err != nil {
			return err
		}
		res := tx.Delete(&Repository{}, id)
		if res.Error == nil && res.RowsAffected == 0 {
			return ErrNotFound
		}
		return res.Error
	})
}

// unlinkFork keeps the fork counts right when repository id goes: its
// parent counts one fork less, and its own forks become plain
// repositories (fork_id 0, is_fork false, as Gitea leaves them). Rows are
// locked parent first, then the repository, then its forks, the order
// every fork write takes (a fork's create updates its parent's row), so
// deleting a parent and its fork at once cannot deadlock. Returns
// ErrNotFound for an unknown id.
func unlinkFork(tx *gorm.DB, s *Store, id int64) error {
	var self Repository
	if err := tx.Select("id", "is_fork", "fork_id").Where("id = ?", id).Take(&self).Error; err != nil {
		return notFound(err)
	}
	if self.IsFork && self.ForkID != 0 {
		// A parent deleted meanwhile updates nothing here.
		err := tx.Exec(`UPDATE repositories SET num_forks = num_forks - 1 WHERE id = ? AND num_forks > 0`, self.ForkID).Error
		if err != nil {
			return errs.Wrap(err, "count the fork off its parent")
		}
	}
	if err := s.forUpdate(tx).Select("id").Where("id = ?", id).Take(&self).Error; err != nil {
		return notFound(err)
	}
	err := tx.Exec(`UPDATE repositories SET fork_id = 0, is_fork = ? WHERE fork_id = ?`, false, id).Error
	if err != nil {
		return errs.Wrap(err, "detach the forks")
	}
	return nil
}

// deleteDependenciesOn removes the dependencies (in any repository) on the
// issues of repository id, which its delete takes away: issue_dependencies
// is owned by the dependent issue's repository, so the owned-tables delete
// would leave these behind. The issue index row is taken first (as
// CreateIssue takes it), so no issue is added meanwhile, and the issues are
// locked, so AddIssueDependency either committed before the sweep (which
// then sees its row) or waits and finds the issue gone.
func deleteDependenciesOn(tx *gorm.DB, s *Store, id int64) error {
	err := tx.Exec(`INSERT INTO issue_index (repo_id, max_index) VALUES (?, 0)
ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index`, id).Error
	if err != nil {
		return errs.Wrap(err, "lock issue index")
	}
	var ids []int64
	if err := s.forUpdate(tx).Model(&Issue{}).Where("repo_id = ?", id).Order("id").Pluck("id", &ids).Error; err != nil {
		return errs.Wrap(err, "lock issues")
	}
	if len(ids) == 0 {
		return nil
	}
	issues := tx.Model(&Issue{}).Select("id").Where("repo_id = ?", id)
	if err := tx.Where("dependency_id IN (?)", issues).Delete(&IssueDependency{}).Error; err != nil {
		return errs.Wrap(err, "delete dependencies on the repository's issues")
	}
	return nil
}

// RepoListOptions filters ListRepositories.
type RepoListOptions struct {
	OwnerID int64 // 0: any owner
	// Keyword is Gitea's: comma-separated keywords, any of which is a
	// case-insensitive substring of the name or of a topic's name.
	Keyword string
	// TopicOnly makes the keywords topic names, matched exactly.
	TopicOnly bool
	// RepoFilter limits the result to what the viewer may see.
	RepoFilter
	// OnlyAccessible keeps only repositories the viewer owns,
	// collaborates on or reaches through a team (GET /user/repos).
	OnlyAccessible bool
	// TeamID keeps the repositories given to that team explicitly.
	TeamID int64
	// ForkOf keeps the forks of that repository, sorted by id (Gitea
	// lists them in creation order) instead of name.
	ForkOf int64
	// IDs, when not nil, keeps only these repositories.
	IDs    []int64
	Offset int
	Limit  int
}

// ListRepositories returns a page of repositories sorted by name, and the
// total number that match.
func (s *Store) ListRepositories(ctx context.Context, o RepoListOptions) ([]Repository, int64, error) {
	q := s.db.WithContext(ctx).Model(&Repository{})
	if o.OwnerID != 0 {
		q = q.Where("repositories.owner_id = ?", o.OwnerID)
	}
	if o.Keyword != "" {
		q = q.Where(s.keywordCond(o.Keyword, o.TopicOnly))
	}
	if o.OnlyAccessible {
		collab := s.db.Model(&Collaboration{}).Select("repo_id").Where("user_id = ?", o.ViewerID)
		teamRepos, teamOrgs := s.teamRepoIDs(o.ViewerID)
		q = q.Where("(repositories.owner_id = ? OR repositories.id IN (?) OR repositories.id IN (?) OR repositories.owner_id IN (?))",
			o.ViewerID, collab, teamRepos, teamOrgs)
	}
	if o.TeamID != 0 {
		q = q.Where("repositories.id IN (?)", s.db.Model(&TeamRepo{}).Select("repo_id").Where("team_id = ?", o.TeamID))
	}
	if o.ForkOf != 0 {
		q = q.Where("repositories.fork_id = ?", o.ForkOf)
	}
	if o.IDs != nil {
		q = q.Where("repositories.id IN ?", uniqueIDs(o.IDs))
	}
	q = s.applyRepoFilter(q, o.RepoFilter)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count repositories")
	}
	repos := []Repository{}
	if o.ForkOf == 0 {
		q = q.Order("repositories.lower_name")
	}
	if err := q.Order("repositories.id").Offset(o.Offset).Limit(o.Limit).Find(&repos).Error; err != nil {
		return nil, 0, errs.Wrap(err, "list repositories")
	}
	return repos, total, nil
}

// keywordCond is the repositories Gitea's search keyword selects: each
// comma-separated keyword names a topic exactly when topicOnly, else it
// is a substring of the name or of a topic's name (so an empty one, as in
// "go,", matches every repository, as in Gitea).
func (s *Store) keywordCond(keyword string, topicOnly bool) *gorm.DB {
	words := strings.Split(strings.ToLower(keyword), ",")
	tagged := func(cond string, args ...any) *gorm.DB {
		return s.db.Model(&RepoTopic{}).Select("repo_topics.repo_id").
			Joins("JOIN topics ON topics.id = repo_topics.topic_id").Where(cond, args...)
	}
	if topicOnly {
		return s.db.Where("repositories.id IN (?)", tagged("topics.name IN ?", words))
	}
	var likes []string
	for _, w := range words {
		likes = append(likes, "%"+escapeLike(w)+"%")
	}
	cond := s.db
	for _, like := range likes {
		cond = cond.Or("repositories.lower_name LIKE ? ESCAPE '\\'", like)
	}
	for _, like := range likes {
		cond = cond.Or("repositories.id IN (?)", tagged("topics.name LIKE ? ESCAPE '\\'", like))
	}
	return cond
}

// UsersByID loads users by id (for rendering owners of many repositories).
func (s *Store) UsersByID(ctx context.Context, ids []int64) (map[int64]*User, error) {
	// A page names the same people many times (posters, assignees).
	ids = uniqueIDs(ids)
	out := make(map[int64]*User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	users, err := s.cachedUsers(ctx, s.db.WithContext(ctx).Table("users").Where("id IN ?", ids))
	for _, u := range users {
		out[u.ID] = u
	}
	return out, err
}

// cachedUsers loads the users q selects (a query on the users table).
// It reads only their ids and row versions, and takes each row from the
// user cache while its version is current (the version moves with every
// update, in any process): for the handful of people a page names, two
// integer columns cost a fraction of whole rows. Rows not cached, or
// cached at an older version, are loaded in one more statement.
func (s *Store) cachedUsers(ctx context.Context, q *gorm.DB) ([]*User, error) {
	rows, err := q.Select("users.id, users.version").Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*User
	var missing []int64
	for rows.Next() {
		var id, version int64
		if err := rows.Scan(&id, &version); err != nil {
			return nil, err
		}
		if u, ok := s.users.get(id, version); ok {
			out = append(out, u)
		} else {
			missing = append(missing, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(missing) == 0 {
		return out, nil
	}
	var loaded []User
	if err := s.db.WithContext(ctx).Where("id IN ?", missing).Find(&loaded).Error; err != nil {
		return nil, err
	}
	for i := range loaded {
		s.users.put(&loaded[i])
		out = append(out, &loaded[i])
	}
	return out, nil
}

// CollaboratorMode returns a user's explicit access to a repository, or
// AccessNone.
func (s *Store) CollaboratorMode(ctx context.Context, repoID, userID int64) (AccessMode, error) {
	var c Collaboration
	err := s.db.WithContext(ctx).Where("repo_id = ? AND user_id = ?", repoID, userID).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return AccessNone, nil
	}
	if err != nil {
		return AccessNone, errs.Wrap(err, "collaborator mode")
	}
	return c.Mode, nil
}

// CollaboratorModes is CollaboratorMode for several repositories at once;
// those userID does not collaborate on are absent.
func (s *Store) CollaboratorModes(ctx context.Context, repoIDs []int64, userID int64) (map[int64]AccessMode, error) {
	out := map[int64]AccessMode{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	var rows []Collaboration
	if err := s.db.WithContext(ctx).Where("repo_id IN ? AND user_id = ?", uniqueIDs(repoIDs), userID).Find(&rows).Error; err != nil {
		return nil, errs.Wrap(err, "collaborator modes")
	}
	for _, c := range rows {
		out[c.RepoID] = c.Mode
	}
	return out, nil
}

// SetCollaborator adds a collaborator or changes their mode.
func (s *Store) SetCollaborator(ctx context.Context, repoID, userID int64, mode AccessMode) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&Collaboration{}).Where("repo_id = ? AND user_id = ?", repoID, userID).Update("mode", mode)
		if res.Error != nil || res.RowsAffected > 0 {
			return res.Error
		}
		return tx.Create(&Collaboration{RepoID: repoID, UserID: userID, Mode: mode, CreatedUnix: time.Now().Unix()}).Error
	})
}

// DeleteCollaborator removes a collaborator; ErrNotFound if not one.
func (s *Store) DeleteCollaborator(ctx context.Context, repoID, userID int64) error {
	res := s.db.WithContext(ctx).Where("repo_id = ? AND user_id = ?", repoID, userID).Delete(&Collaboration{})
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrNotFound
	}
	return res.Error
}

// Collaborator is a user with their mode on a repository.
type Collaborator struct {
	User User
	Mode AccessMode
}

// ListCollaborators returns a page of a repository's collaborators that
// visible shows, by user id.
func (s *Store) ListCollaborators(ctx context.Context, repoID int64, visible UserFilter, offset, limit int) ([]Collaborator, int64, error) {
	q := s.db.WithContext(ctx).Model(&Collaboration{}).Where("repo_id = ?", repoID)
	if ids := s.visibleUserIDs(visible); ids != nil {
		q = q.Where("user_id IN (?)", ids)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var rows []Collaboration
	if err := q.Order("user_id").Offset(offset).Limit(limit).Find(&rows).Error; err != nil {
		return nil, 0, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.UserID
	}
	users, err := s.UsersByID(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Collaborator, 0, len(rows))
	for _, r := range rows {
		if u := users[r.UserID]; u != nil {
			out = append(out, Collaborator{User: *u, Mode: r.Mode})
		}
	}
	return out, total, nil
}

// RepositoriesOwnedBy lists the repositories an account owns.
func (s *Store) RepositoriesOwnedBy(ctx context.Context, ownerID int64) ([]Repository, error) {
	var repos []Repository
	err := s.db.WithContext(ctx).Where("owner_id = ?", ownerID).Order("id").Find(&repos).Error
	return repos, err
}

// checkRepoLimit returns ErrRepoLimit when the owner already holds limit
// repositories (limit < 0: no limit). The owner's row is locked first, so
// concurrent creations for one owner count one after the other.
func (s *Store) checkRepoLimit(tx *gorm.DB, ownerID int64, limit int) error {
	if limit < 0 {
		// No count to take, but the owner must still exist when the
		// repository is inserted: an organization being deleted
		// (DeleteOrganization locks its row) is waited for, then missing.
		if !s.postgres {
			return nil
		}
		var owner User
		err := tx.Clauses(clause.Locking{Strength: "SHARE"}).Select("id").Where("id = ?", ownerID).Take(&owner).Error
		return notFound(err)
	}
	var owner User
	if err := s.forUpdate(tx).Select("id").Where("id = ?", ownerID).Take(&owner).Error; err != nil {
		return notFound(err)
	}
	var held int64
	if err := tx.Model(&Repository{}).Where("owner_id = ?", ownerID).Count(&held).Error; err != nil {
		return err
	}
	if held >= int64(limit) {
		return ErrRepoLimit
	}
	return nil
}

// repoDeletedHookEvent records the deletion of repository id, with its
// row as it was, for the webhooks.
func (s *Store) repoDeletedHookEvent(tx *gorm.DB, id, actorID int64) error {
	var r Repository
	if err := tx.Where("id = ?", id).Take(&r).Error; err != nil {
		return notFound(err)
	}
	snap, err := json.Marshal(&r)
	if err != nil {
		return err
	}
	return s.enqueueHookEvent(tx, HookEvent{Kind: HookKindRepoDeleted, RepoID: id, ActorID: actorID, Extra: string(snap)})
}
