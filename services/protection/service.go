// Package protection serves forge.protection.v1.BranchProtectionService,
// a repository's branch protection rules, and decides every change of a
// protected branch (Decide): git pushes (PreReceive), the contents and
// branch APIs (RepoRules.CheckAPI) and merges (Merge).
//
// Rules: only repository administrators read and write rules (declared in
// the proto). A rule is named by a branch name or a glob; the rule of a
// branch is the first matching one, plain names before globs, each in
// creation order (Order, Match).
package protection

import (
	"context"
	"strings"

	"forge/services/errs"
	"forge/services/store"
)

// Store is what the rules are kept in. Errors are internal failures
// unless stated.
type Store interface {
	// BranchProtections returns a repository's rules in creation order.
	BranchProtections(ctx context.Context, repoID int64) ([]store.BranchProtection, error)
	// BranchProtectionByName returns store.ErrNotFound when no rule has
	// exactly that name.
	BranchProtectionByName(ctx context.Context, repoID int64, name string) (*store.BranchProtection, error)
	// CreateBranchProtection returns store.ErrBranchProtectionExists when
	// the name is taken.
	CreateBranchProtection(ctx context.Context, p *store.BranchProtection) error
	// UpdateBranchProtection returns store.ErrNotFound when the rule is gone.
	UpdateBranchProtection(ctx context.Context, p *store.BranchProtection) error
	// DeleteBranchProtection returns store.ErrNotFound when there is none.
	DeleteBranchProtection(ctx context.Context, repoID int64, name string) error
	// UsersByNames returns the individual accounts among names by lower name.
	UsersByNames(ctx context.Context, names []string) (map[string]*store.User, error)
	// UsersByID returns the accounts that exist among ids.
	UsersByID(ctx context.Context, ids []int64) (map[int64]*store.User, error)
	// TeamsOfOrg returns the organization's teams among ids (all for nil).
	TeamsOfOrg(ctx context.Context, orgID int64, ids []int64) (map[int64]*store.Team, error)
	// TeamIDsOfMember returns the organization's teams uid is in.
	TeamIDsOfMember(ctx context.Context, orgID, uid int64) ([]int64, error)
	// LatestCommitStatuses returns a page of the latest status of each
	// context of a commit and the number of contexts.
	LatestCommitStatuses(ctx context.Context, repoID int64, sha string, offset, limit int) ([]store.CommitStatus, int64, error)
	TagStore
}

// Limits on what a rule holds.
const (
	// MaxRules is the number of rules one repository may have.
	MaxRules = 100
	// MaxListItems bounds each whitelist and the status check contexts.
	MaxListItems = 50
	// MaxContextLen bounds one status check context pattern.
	MaxContextLen = 255
)

// Service holds the rules apart from any transport.
type Service struct {
	store Store
}

// NewService builds the use cases.
func NewService(st Store) *Service { return &Service{store: st} }

// Repo is the repository a rule belongs to.
type Repo struct {
	ID, OwnerID int64
	// Org: the owner is an organization (team whitelists apply).
	Org bool
}

// Lists is the names a request gives for each list; a nil list is absent
// (unchanged on edit, empty on create except Contexts, which stays null).
type Lists struct {
	PushUsers, PushTeams, MergeUsers, MergeTeams, ApprovalUsers, ApprovalTeams, Contexts []string
}

var (
	errNoName       = errs.New(errs.Invalid, "both rule_name and branch_name are empty").WithHTTPStatus(400)
	errUnknownUser  = errs.New(errs.Invalid, "User does not exist")
	errUnknownTeam  = errs.New(errs.Invalid, "Team does not exist")
	errTooManyRules = errs.Newf(errs.Invalid, "a repository has at most %d branch protection rules", MaxRules)
)

// List returns the rules in matching order.
func (s *Service) List(ctx context.Context, r Repo) ([]store.BranchProtection, error) {
	return LoadRules(ctx, s.store, r.ID)
}

// Get returns the rule of exactly that name.
func (s *Service) Get(ctx context.Context, r Repo, name string) (*store.BranchProtection, error) {
	return s.store.BranchProtectionByName(ctx, r.ID, name)
}

// Create adds p (its fields as the request sets them; lists in l).
func (s *Service) Create(ctx context.Context, r Repo, branchName string, p *store.BranchProtection, l Lists) (*store.BranchProtection, error) {
	p.RuleName = strings.TrimSpace(p.RuleName)
	if p.RuleName == "" {
		p.RuleName = strings.TrimSpace(branchName)
	}
	if p.RuleName == "" {
		return nil, errNoName
	}
	existing, err := s.store.BranchProtections(ctx, r.ID)
	if err != nil {
		return nil, errs.Wrap(err, "branch protections")
	}
	for i := range existing {
		if existing[i].RuleName == p.RuleName {
			return nil, store.ErrBranchProtectionExists
		}
	}
	if len(existing) >= MaxRules {
		return nil, errTooManyRules
	}
	p.RepoID = r.ID
	if p.RequiredApprovals < 0 {
		p.RequiredApprovals = 0
	}
	// The push whitelist only counts when pushing is on, deploy keys only
	// with the whitelist.
	p.EnablePushWhitelist = p.EnablePush && p.EnablePushWhitelist
	p.PushWhitelistDeployKeys = p.EnablePushWhitelist && p.PushWhitelistDeployKeys
	if err := s.applyLists(ctx, r, p, l, true); err != nil {
		return nil, err
	}
	if err := s.store.CreateBranchProtection(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Edit is an EditBranchProtectionOption: nil fields are unchanged.
type Edit struct {
	EnablePush, EnablePushWhitelist, PushWhitelistDeployKeys, EnableMergeWhitelist, EnableStatusCheck,
	EnableApprovalsWhitelist, BlockOnRejectedReviews, BlockOnOfficialReviewRequests, BlockOnOutdatedBranch,
	DismissStaleApprovals, IgnoreStaleApprovals, RequireSignedCommits *bool
	RequiredApprovals                              *int64
	ProtectedFilePatterns, UnprotectedFilePatterns *string
	Lists                                          Lists
}

// Edit changes the rule of exactly that name.
func (s *Service) Edit(ctx context.Context, r Repo, name string, e Edit) (*store.BranchProtection, error) {
	p, err := s.store.BranchProtectionByName(ctx, r.ID, name)
	if err != nil {
		return nil, err
	}
	if e.EnablePush != nil {
		if !*e.EnablePush {
			p.EnablePush, p.EnablePushWhitelist, p.PushWhitelistDeployKeys = false, false, false
		} else {
			p.EnablePush = true
			if e.EnablePushWhitelist != nil {
				p.EnablePushWhitelist = *e.EnablePushWhitelist
				if !p.EnablePushWhitelist {
					p.PushWhitelistDeployKeys = false
				} else if e.PushWhitelistDeployKeys != nil {
					p.PushWhitelistDeployKeys = *e.PushWhitelistDeployKeys
				}
			}
		}
	}
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.EnableMergeWhitelist, e.EnableMergeWhitelist)
	set(&p.EnableStatusCheck, e.EnableStatusCheck)
	set(&p.EnableApprovalsWhitelist, e.EnableApprovalsWhitelist)
	set(&p.BlockOnRejectedReviews, e.BlockOnRejectedReviews)
	set(&p.BlockOnOfficialReviewRequests, e.BlockOnOfficialReviewRequests)
	set(&p.BlockOnOutdatedBranch, e.BlockOnOutdatedBranch)
	set(&p.DismissStaleApprovals, e.DismissStaleApprovals)
	set(&p.IgnoreStaleApprovals, e.IgnoreStaleApprovals)
	set(&p.RequireSignedCommits, e.RequireSignedCommits)
	if e.RequiredApprovals != nil && *e.RequiredApprovals >= 0 {
		p.RequiredApprovals = *e.RequiredApprovals
	}
	if e.ProtectedFilePatterns != nil {
		p.ProtectedFilePatterns = strings.TrimSpace(*e.ProtectedFilePatterns)
	}
	if e.UnprotectedFilePatterns != nil {
		p.UnprotectedFilePatterns = strings.TrimSpace(*e.UnprotectedFilePatterns)
	}
	if err := s.applyLists(ctx, r, p, e.Lists, false); err != nil {
		return nil, err
	}
	if err := s.store.UpdateBranchProtection(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Delete removes the rule of exactly that name.
func (s *Service) Delete(ctx context.Context, r Repo, name string) error {
	return s.store.DeleteBranchProtection(ctx, r.ID, name)
}

// applyLists resolves the names of l to ids and stores the present lists
// in p (all of them on create). Team lists only apply to organizations'
// repositories. Unknown names are 422.
func (s *Service) applyLists(ctx context.Context, r Repo, p *store.BranchProtection, l Lists, create bool) error {
	for _, list := range [][]string{l.PushUsers, l.PushTeams, l.MergeUsers, l.MergeTeams, l.ApprovalUsers, l.ApprovalTeams, l.Contexts} {
		if len(list) > MaxListItems {
			return errs.Newf(errs.Invalid, "a list holds at most %d entries", MaxListItems)
		}
	}
	var names []string
	names = append(append(append(names, l.PushUsers...), l.MergeUsers...), l.ApprovalUsers...)
	users, err := s.store.UsersByNames(ctx, names)
	if err != nil {
		return errs.Wrap(err, "whitelist users")
	}
	userIDs := func(list []string) (store.IDList, error) {
		ids := make([]int64, 0, len(list))
		for _, n := range list {
			u, ok := users[strings.ToLower(n)]
			if !ok {
				return "", errUnknownUser
			}
			ids = appendUnique(ids, u.ID)
		}
		return store.MakeIDList(ids), nil
	}
	var teams map[int64]*store.Team
	if r.Org && len(l.PushTeams)+len(l.MergeTeams)+len(l.ApprovalTeams) > 0 {
		if teams, err = s.store.TeamsOfOrg(ctx, r.OwnerID, nil); err != nil {
			return errs.Wrap(err, "whitelist teams")
		}
	}
	teamIDs := func(list []string) (store.IDList, error) {
		if !r.Org {
			return "[]", nil
		}
		ids := make([]int64, 0, len(list))
		for _, n := range list {
			found := false
			for _, t := range teams {
				if t.LowerName == strings.ToLower(n) {
					ids, found = appendUnique(ids, t.ID), true
				}
			}
			if !found {
				return "", errUnknownTeam
			}
		}
		return store.MakeIDList(ids), nil
	}
	for _, f := range []struct {
		names []string
		dst   *store.IDList
		conv  func([]string) (store.IDList, error)
	}{
		{l.PushUsers, &p.PushWhitelistUserIDs, userIDs}, {l.PushTeams, &p.PushWhitelistTeamIDs, teamIDs},
		{l.MergeUsers, &p.MergeWhitelistUserIDs, userIDs}, {l.MergeTeams, &p.MergeWhitelistTeamIDs, teamIDs},
		{l.ApprovalUsers, &p.ApprovalsWhitelistUserIDs, userIDs}, {l.ApprovalTeams, &p.ApprovalsWhitelistTeamIDs, teamIDs},
	} {
		if f.names == nil && !create {
			continue
		}
		v, err := f.conv(f.names)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	if l.Contexts != nil {
		out := make([]string, 0, len(l.Contexts))
		for _, c := range l.Contexts {
			if len(c) > MaxContextLen {
				return errs.Newf(errs.Invalid, "a status check context is at most %d bytes", MaxContextLen)
			}
			out = append(out, c)
		}
		p.SetContexts(out)
	}
	return nil
}

func appendUnique(ids []int64, id int64) []int64 {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

// Names is what a rendering needs: the names of the users and teams the
// rules' whitelists hold, loaded once for all of them.
type Names struct {
	Users map[int64]*store.User
	Teams map[int64]*store.Team
}

// Names loads the users and teams rules name, in two queries.
func (s *Service) Names(ctx context.Context, r Repo, rules []store.BranchProtection) (Names, error) {
	var uids, tids []int64
	for i := range rules {
		p := &rules[i]
		uids = append(append(append(uids, p.PushWhitelistUserIDs.IDs()...), p.MergeWhitelistUserIDs.IDs()...), p.ApprovalsWhitelistUserIDs.IDs()...)
		tids = append(append(append(tids, p.PushWhitelistTeamIDs.IDs()...), p.MergeWhitelistTeamIDs.IDs()...), p.ApprovalsWhitelistTeamIDs.IDs()...)
	}
	var n Names
	var err error
	if n.Users, err = s.store.UsersByID(ctx, uids); err != nil {
		return n, errs.Wrap(err, "whitelist users")
	}
	n.Teams = map[int64]*store.Team{}
	if r.Org && len(tids) > 0 {
		if n.Teams, err = s.store.TeamsOfOrg(ctx, r.OwnerID, tids); err != nil {
			return n, errs.Wrap(err, "whitelist teams")
		}
	}
	return n, nil
}
