package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"forge/services/errs"
)

// RepoTransfer is a pending transfer of a repository: its owner (DoerID
// acting for it) offered it to RecipientID, who has not accepted or
// rejected it yet. A repository has at most one.
type RepoTransfer struct {
	ID          int64
	RepoID      int64
	DoerID      int64
	RecipientID int64
	// TeamIDs are the recipient organization's teams to give the
	// repository, comma-separated.
	TeamIDs     string `gorm:"column:team_ids"`
	CreatedUnix int64
}

func (RepoTransfer) TableName() string { return "repo_transfers" }

// Teams is TeamIDs as numbers.
func (t *RepoTransfer) Teams() []int64 {
	var out []int64
	for _, f := range strings.Split(t.TeamIDs, ",") {
		if id, err := strconv.ParseInt(f, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// JoinTeamIDs is the TeamIDs column of ids.
func JoinTeamIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

// ErrTransferPending: the repository already has a pending transfer
// (Gitea answers 409).
var ErrTransferPending = errs.New(errs.AlreadyExists, "repository is already being transferred")

// OfferRepository records the pending transfer t and, with addReader,
// makes the recipient a collaborator with read access (Gitea does, for a
// recipient who could not see the repository otherwise). It returns
// ErrTransferPending when the repository already has one, ErrRepoExists
// when the recipient already has a repository of its name, ErrNotFound
// when the repository is gone.
func (s *Store) OfferRepository(ctx context.Context, t *RepoTransfer, addReader bool) error {
	t.CreatedUnix = time.Now().Unix()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Repository
		if err := s.forUpdate(tx).Where("id = ?", t.RepoID).Take(&r).Error; err != nil {
			return notFound(err)
		}
		if err := nameFree(tx, t.RecipientID, r.LowerName, r.ID); err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&RepoTransfer{}).Where("repo_id = ?", t.RepoID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrTransferPending
		}
		if err := tx.Create(t).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrTransferPending
			}
			return err
		}
		if !addReader {
			return nil
		}
		var c int64
		if err := tx.Model(&Collaboration{}).Where("repo_id = ? AND user_id = ?", t.RepoID, t.RecipientID).Count(&c).Error; err != nil || c > 0 {
			return err
		}
		return tx.Create(&Collaboration{RepoID: t.RepoID, UserID: t.RecipientID, Mode: AccessRead, CreatedUnix: t.CreatedUnix}).Error
	})
}

// nameFree returns ErrRepoExists when ownerID has a repository named
// lowerName other than repoID.
func nameFree(tx *gorm.DB, ownerID int64, lowerName string, repoID int64) error {
	var n int64
	if err := tx.Model(&Repository{}).Where("owner_id = ? AND lower_name = ? AND id <> ?", ownerID, lowerName, repoID).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return ErrRepoExists
	}
	return nil
}

// PendingTransfer is the repository's pending transfer; ErrNotFound when
// it has none.
func (s *Store) PendingTransfer(ctx context.Context, repoID int64) (*RepoTransfer, error) {
	var t RepoTransfer
	if err := s.db.WithContext(ctx).Where("repo_id = ?", repoID).Take(&t).Error; err != nil {
		return nil, notFound(err)
	}
	return &t, nil
}

// PendingTransfersOf reads the pending transfers of a page of
// repositories at once; repositories without one are absent.
func (s *Store) PendingTransfersOf(ctx context.Context, repoIDs []int64) (map[int64]*RepoTransfer, error) {
	out := map[int64]*RepoTransfer{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	var list []RepoTransfer
	if err := s.db.WithContext(ctx).Where("repo_id IN ?", repoIDs).Find(&list).Error; err != nil {
		return nil, errs.Wrap(err, "pending transfers")
	}
	for i := range list {
		out[list[i].RepoID] = &list[i]
	}
	return out, nil
}

// CancelTransfer removes the repository's pending transfer; ErrNotFound
// when it has none.
func (s *Store) CancelTransfer(ctx context.Context, repoID int64) error {
	res := s.db.WithContext(ctx).Where("repo_id = ?", repoID).Delete(&RepoTransfer{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// Transfer is a change of a repository's owner.
type Transfer struct {
	RepoID   int64
	NewOwner *User
	// TeamIDs are teams of NewOwner (an organization) that get the
	// repository; a team of another owner is refused with ErrNotFound.
	TeamIDs []int64
	// Pending, when set, is the pending transfer being accepted: the
	// transfer fails with ErrNotFound unless it is still there.
	Pending *RepoTransfer
}

// TransferRepository gives repository t.RepoID to t.NewOwner in one
// transaction: the row's owner, the teams of the old owner's
// organization lose it, the given teams of the new one get it, the
// collaborators who are the new owner or members of the new
// organization are dropped (their access now comes from the owner), and a
// pending transfer is removed. move runs last, before the commit, with
// the row as it was and as it is now: it moves the files, and an error
// rolls everything back. It returns the updated row; ErrNotFound when the
// repository (or the pending transfer being accepted, or a team) is gone,
// ErrRepoExists when the new owner already has a repository of its name.
func (s *Store) TransferRepository(ctx context.Context, t Transfer, move func(old, updated *Repository) error) (*Repository, error) {
	var out Repository
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Repository
		if err := s.forUpdate(tx).Where("id = ?", t.RepoID).Take(&r).Error; err != nil {
			return notFound(err)
		}
		old := r
		if t.Pending != nil {
			res := tx.Where("id = ? AND repo_id = ?", t.Pending.ID, t.RepoID).Delete(&RepoTransfer{})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 0 {
				return ErrNotFound
			}
		} else if err := tx.Where("repo_id = ?", t.RepoID).Delete(&RepoTransfer{}).Error; err != nil {
			return err
		}
		if err := nameFree(tx, t.NewOwner.ID, r.LowerName, r.ID); err != nil {
			return err
		}
		var oldTeams []int64
		if err := tx.Model(&TeamRepo{}).Where("repo_id = ?", r.ID).Pluck("team_id", &oldTeams).Error; err != nil {
			return err
		}
		if err := tx.Where("repo_id = ?", r.ID).Delete(&TeamRepo{}).Error; err != nil {
			return err
		}
		members := tx.Model(&TeamUser{}).Select("uid").Where("org_id = ?", t.NewOwner.ID)
		if err := tx.Where("repo_id = ? AND (user_id = ? OR user_id IN (?))", r.ID, t.NewOwner.ID, members).
			Delete(&Collaboration{}).Error; err != nil {
			return err
		}
		r.OwnerID, r.OwnerName, r.UpdatedUnix = t.NewOwner.ID, t.NewOwner.Name, time.Now().Unix()
		if err := tx.Model(&Repository{}).Where("id = ?", r.ID).Updates(map[string]any{
			"owner_id": r.OwnerID, "owner_name": r.OwnerName, "updated_unix": r.UpdatedUnix,
		}).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return ErrRepoExists
			}
			return err
		}
		for _, id := range t.TeamIDs {
			var team Team
			if err := tx.Select("id").Where("id = ? AND org_id = ?", id, t.NewOwner.ID).Take(&team).Error; err != nil {
				return notFound(err)
			}
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).
				Create(&TeamRepo{OrgID: t.NewOwner.ID, TeamID: id, RepoID: r.ID}).Error; err != nil {
				return err
			}
		}
		for _, id := range append(oldTeams, t.TeamIDs...) {
			if err := recountTeam(tx, id); err != nil {
				return err
			}
		}
		out = r
		return move(&old, &r)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
