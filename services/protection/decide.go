package protection

import (
	"context"
	"fmt"
	"slices"

	"forge/services/errs"
	"forge/services/store"
)

// Change is one branch change to decide on, from a push, the contents or
// branch API or a merge: what it does to the branch.
type Change struct {
	Branch string
	// Create: the branch does not exist yet; Delete: it goes away.
	Create, Delete bool
	// Force: the old head is not an ancestor of the new one.
	Force bool
	// Files are the paths the change touches (nil for a creation or a
	// deletion, where no file is compared).
	Files []string
	// Unsigned is a new commit without a signature, "" when every new
	// commit is signed (or signatures were not asked for: see NeedsSignatures).
	Unsigned string
}

// Doer is who changes the branch: an account and whether it is in each
// whitelist of the rule (see Service.Doer).
type Doer struct {
	ID int64
	// DeployKey: the change comes from a deploy key (git over SSH), which
	// a push whitelist admits only with push_whitelist_deploy_keys.
	DeployKey bool
	// teams are the doer's teams in the repository's organization.
	teams []int64
}

func (d Doer) in(users, teams store.IDList) bool {
	if slices.Contains(users.IDs(), d.ID) {
		return true
	}
	for _, t := range teams.IDs() {
		if slices.Contains(d.teams, t) {
			return true
		}
	}
	return false
}

// CanPush reports whether d may push to a branch rule protects (nil rule:
// anyone with write access may).
func CanPush(rule *store.BranchProtection, d Doer) bool {
	switch {
	case rule == nil:
		return true
	case !rule.EnablePush:
		return false
	case !rule.EnablePushWhitelist:
		return true
	case d.DeployKey:
		return rule.PushWhitelistDeployKeys
	}
	return d.in(rule.PushWhitelistUserIDs, rule.PushWhitelistTeamIDs)
}

// CanMerge reports whether d, a writer of the code, may merge into a
// branch rule protects.
func CanMerge(rule *store.BranchProtection, d Doer) bool {
	if rule == nil || !rule.EnableMergeWhitelist {
		return true
	}
	return d.in(rule.MergeWhitelistUserIDs, rule.MergeWhitelistTeamIDs)
}

// Refusal is a change the rule of its branch forbids: Gitea's reason, one
// line, which git clients print as "remote: ...".
type Refusal struct{ Message string }

func (r *Refusal) Error() string { return r.Message }

// Decide is the one decision on a change of a protected branch, whatever
// makes it (push, contents or branch API): nil when rule (the branch's
// first matching rule, nil for none) allows d to make c, else a *Refusal
// saying why. In order: deleting a protected branch, force-pushing to it
// and unsigned commits under require_signed_commits are refused to
// everyone; a change to a protected file is refused; then the doer must be
// allowed to push, unless every changed file is unprotected.
func Decide(rule *store.BranchProtection, d Doer, c Change) *Refusal {
	if rule == nil {
		return nil
	}
	switch {
	case c.Delete:
		return &Refusal{fmt.Sprintf("branch %s is protected from deletion", c.Branch)}
	case c.Force:
		return &Refusal{fmt.Sprintf("branch %s is protected from force push", c.Branch)}
	case rule.RequireSignedCommits && c.Unsigned != "":
		return &Refusal{fmt.Sprintf("branch %s is protected from unverified commit %s", c.Branch, c.Unsigned)}
	}
	if f := matchAny(FilePatterns(rule.ProtectedFilePatterns), c.Files); f != "" {
		return &Refusal{fmt.Sprintf("branch %s is protected from changing file %s", c.Branch, f)}
	}
	if CanPush(rule, d) {
		return nil
	}
	if allMatch(FilePatterns(rule.UnprotectedFilePatterns), c.Files) {
		return nil
	}
	return &Refusal{fmt.Sprintf("Not allowed to push to protected branch %s", c.Branch)}
}

// RepoRules is the rules of one repository, ordered to match (see Order),
// with the doer resolved once: what every check of one request or push
// reads.
type RepoRules struct {
	Rules []store.BranchProtection
	owner int64
	org   bool
	svc   *Service
}

// Rules loads the rules of a repository (owned by ownerID, an
// organization when org).
func (s *Service) Rules(ctx context.Context, repoID, ownerID int64, org bool) (*RepoRules, error) {
	rules, err := LoadRules(ctx, s.store, repoID)
	if err != nil {
		return nil, err
	}
	return &RepoRules{Rules: rules, owner: ownerID, org: org, svc: s}, nil
}

// Match is the rule of branch, nil when none protects it.
func (r *RepoRules) Match(branch string) *store.BranchProtection {
	if r == nil {
		return nil
	}
	return Match(r.Rules, branch)
}

// Doer resolves uid's teams when a rule has team whitelists (one query).
func (r *RepoRules) Doer(ctx context.Context, uid int64) (Doer, error) {
	d := Doer{ID: uid}
	if !r.org || uid == 0 {
		return d, nil
	}
	need := false
	for i := range r.Rules {
		p := &r.Rules[i]
		if len(p.PushWhitelistTeamIDs.IDs())+len(p.MergeWhitelistTeamIDs.IDs())+len(p.ApprovalsWhitelistTeamIDs.IDs()) > 0 {
			need = true
			break
		}
	}
	if !need {
		return d, nil
	}
	teams, err := r.svc.store.TeamIDsOfMember(ctx, r.owner, uid)
	if err != nil {
		return d, errs.Wrap(err, "teams of doer")
	}
	d.teams = teams
	return d, nil
}

// NeedsSignatures reports whether a rule of branch asks for signed commits.
func (r *RepoRules) NeedsSignatures(branch string) bool {
	p := r.Match(branch)
	return p != nil && p.RequireSignedCommits
}

// CheckAPI decides a change made through the API (contents, branches) by
// uid, answered as Gitea's API does: 403 "user cannot commit to repo" when
// the doer may not push, 403 naming a protected path, 403 "branch
// protected" for a deletion. forge does not sign the commits it makes, so
// a branch that requires signed commits refuses them.
func (r *RepoRules) CheckAPI(ctx context.Context, uid int64, userName string, c Change) error {
	rule := r.Match(c.Branch)
	if rule == nil {
		return nil
	}
	d, err := r.Doer(ctx, uid)
	if err != nil {
		return err
	}
	if c.Delete {
		return errs.New(errs.PermissionDenied, "branch protected")
	}
	ref := Decide(rule, d, c)
	switch {
	case ref == nil:
		return nil
	case rule.RequireSignedCommits && c.Unsigned != "":
		return errs.Newf(errs.PermissionDenied, "user cannot commit to repo [user: %s]", userName)
	}
	if f := matchAny(FilePatterns(rule.ProtectedFilePatterns), c.Files); f != "" {
		return errs.Newf(errs.PermissionDenied, "path is protected and can not be changed [path: %s]", f)
	}
	return errs.Newf(errs.PermissionDenied, "user cannot commit to repo [user: %s]", userName)
}
