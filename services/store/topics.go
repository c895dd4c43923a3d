package store

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// Topics are kept in two places that one transaction writes together:
// repo_topics (which repositories carry which topic: what topic search
// counts and repository search filters on) and the repository's own
// sorted copy of its names (Repository.Topics, what its API object
// shows). A topic's repository count is counted when searched, never
// stored, so the generic repository delete (Own), which only removes the
// repo_topics rows, leaves nothing to correct. A topic no repository
// uses any more stays, as in Gitea.

// Topic is a name repositories are tagged with.
type Topic struct {
	ID          int64
	Name        string // lower case, Gitea's topic rules (checked by the caller)
	CreatedUnix int64
	UpdatedUnix int64 // the last time a repository took or dropped it
	// RepoCount is how many repositories carry the topic; only
	// SearchTopics fills it (counted, not a column).
	RepoCount int64 `gorm:"->"`
}

func (Topic) TableName() string { return "topics" }

// RepoTopic tags a repository with a topic.
type RepoTopic struct {
	RepoID  int64 `gorm:"primaryKey;autoIncrement:false"`
	TopicID int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (RepoTopic) TableName() string { return "repo_topics" }

// TopicNames is a repository's copy of its topic names, stored as a JSON
// array ("[]" when there are none).
type TopicNames []string

// Value implements driver.Valuer.
func (n TopicNames) Value() (driver.Value, error) {
	if n == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(n))
	return string(b), err
}

// Scan implements sql.Scanner.
func (n *TopicNames) Scan(v any) error {
	var b []byte
	switch v := v.(type) {
	case nil:
		*n = nil
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("topic names: unexpected %T", v)
	}
	return json.Unmarshal(b, (*[]string)(n))
}

// UpdateRepoTopics sets the topics of repository repoID to what change
// returns when given the current ones (sorted names), in one transaction
// with the repository locked, so concurrent changes of one repository
// apply one after the other and change's rules (a limit) hold. Names
// change returns must be valid topic names; duplicates are dropped.
// Unknown names become topics; concurrent writers creating the same name
// share one row. Returns ErrNotFound for an unknown repository and
// change's error, unchanged, when it refuses (nothing is written).
func (s *Store) UpdateRepoTopics(ctx context.Context, repoID int64, change func(current []string) ([]string, error)) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var repo Repository
		if err := s.forUpdate(tx).Select("id").Where("id = ?", repoID).Take(&repo).Error; err != nil {
			return notFound(err)
		}
		var held []Topic
		err := tx.Model(&Topic{}).Select("topics.id", "topics.name").
			Joins("JOIN repo_topics ON repo_topics.topic_id = topics.id").
			Where("repo_topics.repo_id = ?", repoID).Order("topics.name").Find(&held).Error
		if err != nil {
			return errs.Wrap(err, "read repository topics")
		}
		current := make([]string, len(held))
		heldID := make(map[string]int64, len(held))
		for i, t := range held {
			current[i] = t.Name
			heldID[t.Name] = t.ID
		}
		next, err := change(slices.Clone(current))
		if err != nil {
			return err
		}
		next = slices.Clone(next)
		slices.Sort(next)
		next = slices.Compact(next)

		// Every topic row is touched in name order, whether taken or
		// dropped, so two writers never wait for each other's rows in
		// opposite orders (a deadlock on PostgreSQL).
		now := time.Now().Unix()
		for _, name := range union(current, next) {
			_, had := heldID[name]
			keep := slices.Contains(next, name)
			switch {
			case had && keep:
				continue
			case keep:
				id, err := ensureTopic(tx, name, now)
				if err != nil {
					return err
				}
				if err := tx.Create(&RepoTopic{RepoID: repoID, TopicID: id}).Error; err != nil {
					return errs.Wrap(err, "tag repository")
				}
			default:
				id := heldID[name]
				if err := tx.Where("repo_id = ? AND topic_id = ?", repoID, id).Delete(&RepoTopic{}).Error; err != nil {
					return errs.Wrap(err, "untag repository")
				}
				if err := tx.Model(&Topic{}).Where("id = ?", id).Update("updated_unix", now).Error; err != nil {
					return errs.Wrap(err, "touch topic")
				}
			}
		}
		err = tx.Model(&Repository{}).Where("id = ?", repoID).Update("topics", TopicNames(next)).Error
		return errs.Wrap(err, "copy topics to the repository")
	})
}

// ensureTopic is the id of the topic named name, created when missing,
// and marks it used now. A concurrent creation of the same name is not an
// error: the insert does nothing (on PostgreSQL after waiting for the
// other transaction), and the row the other writer committed is read.
func ensureTopic(tx *gorm.DB, name string, now int64) (int64, error) {
	t := Topic{Name: name, CreatedUnix: now, UpdatedUnix: now}
	res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoNothing: true}).Create(&t)
	if res.Error != nil {
		return 0, errs.Wrap(res.Error, "create topic")
	}
	if res.RowsAffected == 1 {
		return t.ID, nil
	}
	var found Topic
	if err := tx.Select("id").Where("name = ?", name).Take(&found).Error; err != nil {
		return 0, errs.Wrap(err, "read topic")
	}
	if err := tx.Model(&Topic{}).Where("id = ?", found.ID).Update("updated_unix", now).Error; err != nil {
		return 0, errs.Wrap(err, "touch topic")
	}
	return found.ID, nil
}

// union is the sorted names in a or b (both sorted, without duplicates).
func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// SearchTopics returns a page of the topics whose name contains keyword
// (case-insensitively; empty: every topic), the most used first, then by
// name, each with RepoCount, and how many match. Every repository counts,
// private ones too, as in Gitea; errors are domain Internal errors.
func (s *Store) SearchTopics(ctx context.Context, keyword string, offset, limit int) ([]Topic, int64, error) {
	q := s.db.WithContext(ctx).Model(&Topic{})
	if keyword != "" {
		q = q.Where("topics.name LIKE ? ESCAPE '\\'", "%"+escapeLike(strings.ToLower(keyword))+"%")
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, errs.Wrap(err, "count topics")
	}
	out := []Topic{}
	err := q.Select("topics.id, topics.name, topics.created_unix, topics.updated_unix, COUNT(repo_topics.repo_id) AS repo_count").
		Joins("LEFT JOIN repo_topics ON repo_topics.topic_id = topics.id").
		Group("topics.id, topics.name, topics.created_unix, topics.updated_unix").
		Order("repo_count DESC").Order("topics.name").
		Offset(offset).Limit(limit).Find(&out).Error
	if err != nil {
		return nil, 0, errs.Wrap(err, "search topics")
	}
	return out, total, nil
}
