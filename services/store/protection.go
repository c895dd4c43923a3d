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

// ErrBranchProtectionExists: the repository already has a rule of that
// name (Gitea answers 403, see rpcerr).
var ErrBranchProtectionExists = errs.New(errs.AlreadyExists, "Branch protection already exist")

// BranchProtection is a branch protection rule of a repository. RuleName
// is a branch name or a glob. Whitelists hold user and team ids;
// StatusCheckContexts is nil when the rule was created without the list.
type BranchProtection struct {
	ID                            int64 `gorm:"primaryKey"`
	RepoID                        int64
	RuleName                      string
	EnablePush                    bool
	EnablePushWhitelist           bool
	PushWhitelistUserIDs          IDList `gorm:"column:push_whitelist_user_ids"`
	PushWhitelistTeamIDs          IDList `gorm:"column:push_whitelist_team_ids"`
	PushWhitelistDeployKeys       bool
	EnableMergeWhitelist          bool
	MergeWhitelistUserIDs         IDList `gorm:"column:merge_whitelist_user_ids"`
	MergeWhitelistTeamIDs         IDList `gorm:"column:merge_whitelist_team_ids"`
	EnableStatusCheck             bool
	StatusCheckContexts           *string // JSON array, NULL when never set
	RequiredApprovals             int64
	EnableApprovalsWhitelist      bool
	ApprovalsWhitelistUserIDs     IDList `gorm:"column:approvals_whitelist_user_ids"`
	ApprovalsWhitelistTeamIDs     IDList `gorm:"column:approvals_whitelist_team_ids"`
	BlockOnRejectedReviews        bool
	BlockOnOfficialReviewRequests bool
	BlockOnOutdatedBranch         bool
	DismissStaleApprovals         bool
	IgnoreStaleApprovals          bool
	RequireSignedCommits          bool
	ProtectedFilePatterns         string
	UnprotectedFilePatterns       string
	CreatedUnix                   int64
	UpdatedUnix                   int64
}

// TableName is the rules' table.
func (BranchProtection) TableName() string { return "branch_protections" }

// IsGlobRuleName reports whether a rule name is a pattern rather than a
// branch name: it holds one of * ? \ [ ] { }. Here, beside the rules, for
// the protection service (which matches by it) and the access rule
// branch-renamer (which decides by it) alike.
func IsGlobRuleName(name string) bool { return strings.ContainsAny(name, `*?\[]{}`) }

// Contexts returns the required status check contexts and whether the
// list was ever set.
func (p *BranchProtection) Contexts() ([]string, bool) {
	if p.StatusCheckContexts == nil {
		return nil, false
	}
	var out []string
	_ = json.Unmarshal([]byte(*p.StatusCheckContexts), &out)
	if out == nil {
		out = []string{}
	}
	return out, true
}

// SetContexts stores the contexts; nil keeps the list unset.
func (p *BranchProtection) SetContexts(c []string) {
	if c == nil {
		p.StatusCheckContexts = nil
		return
	}
	b, _ := json.Marshal(c)
	s := string(b)
	p.StatusCheckContexts = &s
}

// IDList is a list of ids kept in one text column as a JSON array.
type IDList string

// IDs decodes the list.
func (l IDList) IDs() []int64 {
	var out []int64
	if l != "" {
		_ = json.Unmarshal([]byte(l), &out)
	}
	return out
}

// MakeIDList encodes ids.
func MakeIDList(ids []int64) IDList {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids)
	return IDList(b)
}

// BranchProtections returns the rules of a repository in creation order.
func (s *Store) BranchProtections(ctx context.Context, repoID int64) ([]BranchProtection, error) {
	var out []BranchProtection
	err := s.db.WithContext(ctx).Where("repo_id = ?", repoID).Order("id").Find(&out).Error
	return out, err
}

// BranchProtectionByName returns the rule of exactly that name; ErrNotFound
// when there is none.
func (s *Store) BranchProtectionByName(ctx context.Context, repoID int64, name string) (*BranchProtection, error) {
	var p BranchProtection
	if err := s.db.WithContext(ctx).Where("repo_id = ? AND rule_name = ?", repoID, name).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// CreateBranchProtection stores a new rule, setting its id and times;
// ErrBranchProtectionExists when the name is taken, also by a concurrent
// call.
func (s *Store) CreateBranchProtection(ctx context.Context, p *BranchProtection) error {
	now := time.Now().Unix()
	p.ID, p.CreatedUnix, p.UpdatedUnix = 0, now, now
	fillIDLists(p)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&BranchProtection{}).Where("repo_id = ? AND rule_name = ?", p.RepoID, p.RuleName).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrBranchProtectionExists
		}
		return tx.Create(p).Error
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrBranchProtectionExists
	}
	return err
}

// UpdateBranchProtection writes every field of an existing rule (by id)
// and its update time; ErrNotFound when it is gone.
func (s *Store) UpdateBranchProtection(ctx context.Context, p *BranchProtection) error {
	p.UpdatedUnix = time.Now().Unix()
	fillIDLists(p)
	res := s.db.WithContext(ctx).Model(&BranchProtection{}).Where("id = ? AND repo_id = ?", p.ID, p.RepoID).
		Select("*").Omit("id", "repo_id", "rule_name", "created_unix").Updates(p)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteBranchProtection removes the rule of that name; ErrNotFound when
// there is none.
func (s *Store) DeleteBranchProtection(ctx context.Context, repoID int64, name string) error {
	res := s.db.WithContext(ctx).Where("repo_id = ? AND rule_name = ?", repoID, name).Delete(&BranchProtection{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

func fillIDLists(p *BranchProtection) {
	for _, l := range []*IDList{&p.PushWhitelistUserIDs, &p.PushWhitelistTeamIDs, &p.MergeWhitelistUserIDs,
		&p.MergeWhitelistTeamIDs, &p.ApprovalsWhitelistUserIDs, &p.ApprovalsWhitelistTeamIDs} {
		if *l == "" {
			*l = "[]"
		}
	}
}

// UsersByNames returns the accounts (users, not organizations) among
// names, keyed by lower-case name, in one query.
func (s *Store) UsersByNames(ctx context.Context, names []string) (map[string]*User, error) {
	out := map[string]*User{}
	if len(names) == 0 {
		return out, nil
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	var users []User
	if err := s.db.WithContext(ctx).Where("lower_name IN ? AND type = ?", lower, UserTypeIndividual).Find(&users).Error; err != nil {
		return nil, err
	}
	for i := range users {
		out[users[i].LowerName] = &users[i]
	}
	return out, nil
}

// TeamsOfOrg returns the teams of an organization among ids (or all of
// them when ids is nil), keyed by id, in one query; units are not loaded.
func (s *Store) TeamsOfOrg(ctx context.Context, orgID int64, ids []int64) (map[int64]*Team, error) {
	q := s.db.WithContext(ctx).Where("org_id = ?", orgID)
	if ids != nil {
		if len(ids) == 0 {
			return map[int64]*Team{}, nil
		}
		q = q.Where("id IN ?", ids)
	}
	var teams []Team
	if err := q.Find(&teams).Error; err != nil {
		return nil, err
	}
	out := make(map[int64]*Team, len(teams))
	for i := range teams {
		out[teams[i].ID] = &teams[i]
	}
	return out, nil
}

// TeamIDsOfMember returns the ids of the teams of an organization uid is
// a member of.
func (s *Store) TeamIDsOfMember(ctx context.Context, orgID, uid int64) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&TeamUser{}).Where("org_id = ? AND uid = ?", orgID, uid).Pluck("team_id", &ids).Error
	return ids, err
}

// MembersOfTeams returns those of uids that are members of any of
// teamIDs, once each.
func (s *Store) MembersOfTeams(ctx context.Context, teamIDs, uids []int64) ([]int64, error) {
	var ids []int64
	if len(teamIDs) == 0 || len(uids) == 0 {
		return ids, nil
	}
	err := s.db.WithContext(ctx).Model(&TeamUser{}).Where("team_id IN ? AND uid IN ?", uniqueIDs(teamIDs), uniqueIDs(uids)).
		Distinct().Pluck("uid", &ids).Error
	return ids, errs.Wrap(err, "members of teams")
}
