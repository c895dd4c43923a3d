// Package access decides what a caller may do with a repository. Every
// service that touches a repository resolves it here, so visibility
// (invisible means 404, never 403) and the permission ladder are written
// once.
package access

import (
	"context"
	"errors"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Store is what access control reads.
type Store interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	RepositoryByName(ctx context.Context, ownerID int64, name string) (*store.Repository, error)
	RepositoryByID(ctx context.Context, id int64) (*store.Repository, error)
	UserByID(ctx context.Context, id int64) (*store.User, error)
	CollaboratorMode(ctx context.Context, repoID, userID int64) (store.AccessMode, error)
	// CollaboratorModes and TeamGrantsOf read them for a page of
	// repositories at once (Checker.Modes).
	CollaboratorModes(ctx context.Context, repoIDs []int64, userID int64) (map[int64]store.AccessMode, error)
	TeamGrantsOf(ctx context.Context, repoIDs []int64, uid int64) (map[int64][]store.TeamGrant, error)
	UserVisible(ctx context.Context, f store.UserFilter, id int64) (bool, error)
	// AuthGeneration and RepositoryCounters serve the cache of resolved
	// repositories (cache.go).
	AuthGeneration(ctx context.Context) (store.Generation, error)
	RepositoryCounters(ctx context.Context, r *store.Repository) error
	// IssueByIndex, CommentByID and NotificationByID load the objects of
	// the rules (store.ErrNotFound when missing).
	IssueByIndex(ctx context.Context, repoID, index int64) (*store.Issue, error)
	// IssueByID loads a comment's issue (store.ErrNotFound when missing).
	IssueByID(ctx context.Context, id int64) (*store.Issue, error)
	// IssueAssignees and TrackedTimeByID serve the time tracking rules.
	IssueAssignees(ctx context.Context, issueIDs []int64) (map[int64][]int64, error)
	TrackedTimeByID(ctx context.Context, issueID, id int64) (*store.TrackedTime, error)
	CommentByID(ctx context.Context, repoID, id int64) (*store.Comment, error)
	NotificationByID(ctx context.Context, id int64) (*store.NotificationThread, error)
	// ForkOwnedBy finds the head repository of a pull request from a
	// fork (store.ErrNotFound when the owner has no fork of the parent).
	ForkOwnedBy(ctx context.Context, parentID, ownerID int64) (*store.Repository, error)
	// PullRequestByIndex loads the pull request a merge names
	// (store.ErrNotFound for a plain issue or an unused number).
	PullRequestByIndex(ctx context.Context, repoID, index int64) (*store.PullRequest, *store.Issue, error)
	// ReviewByID loads the review a review rule names (store.ErrNotFound
	// when missing).
	ReviewByID(ctx context.Context, id int64) (*store.Review, error)
	// AutoMergeOfPull loads a pull request's scheduled merge (the rule
	// auto-merge-canceller; store.ErrNotFound when none).
	AutoMergeOfPull(ctx context.Context, pullID int64) (*store.AutoMerge, error)
	// PendingTransfer loads a repository's pending transfer (the rule
	// transfer-recipient; store.ErrNotFound when none).
	PendingTransfer(ctx context.Context, repoID int64) (*store.RepoTransfer, error)
	// BranchProtections reads a repository's branch protection rules
	// (the rule branch-renamer).
	BranchProtections(ctx context.Context, repoID int64) ([]store.BranchProtection, error)
	OrgStore
}

// Checker resolves repositories for callers.
type Checker struct {
	store Store
	// maxCreation is [repository] MAX_CREATION_LIMIT (-1: unlimited).
	maxCreation int
	// noRegularOrgs is [admin] DISABLE_REGULAR_ORG_CREATION.
	noRegularOrgs bool
	// crossRepoDeps is [service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES.
	crossRepoDeps bool
	// times is [service]'s time tracking (WithTimeTracking).
	times timeTracking
	// cache holds the rows resolving reads (cache.go).
	cache resolved
}

func NewChecker(s Store) *Checker { return &Checker{store: s, maxCreation: -1} }

// Repo is a repository the caller can see, with their access mode.
type Repo struct {
	*store.Repository
	Owner *store.User
	// Mode is the caller's access: once the interceptor authorized the
	// method (Authorize), the access to the unit its policy declares.
	Mode store.AccessMode
	// grants are the per-unit modes Mode was derived from; nil when every
	// unit has Mode (repositories of individuals).
	grants *modes
}

// UnitMode is the caller's access to unit u, whatever unit the method
// declared: the repository's permissions show push and pull on code even
// to a caller who reached it through another unit.
func (r *Repo) UnitMode(u auth.Unit) store.AccessMode {
	if r.grants == nil {
		return r.Mode
	}
	return r.grants.unit(u)
}

// ErrRepoNotFound is the answer for a missing or invisible repository:
// Gitea's bare 404 over REST; over gRPC its reason tells it apart from a
// missing object inside a repository the caller reads.
var ErrRepoNotFound = errs.New(errs.NotFound, "").WithReason(ReasonRepoNotFound)

// ReasonRepoNotFound is ErrRepoNotFound's ErrorInfo reason.
const ReasonRepoNotFound = "REPO_NOT_FOUND"

// Resolve finds owner/name as seen by viewer (nil: anonymous). A missing
// owner or repository, and one the viewer may not read, are NotFound; a
// public-only token on a private repository is PermissionDenied.
func (c *Checker) Resolve(ctx context.Context, owner, name string, viewer *auth.Principal) (*Repo, error) {
	// The owner's visibility is judged before the repository's absence
	// is told: a hidden owner is an unknown one (VisibleUser).
	gen, o, r, ownerMissing, err := c.lookupByName(ctx, owner, name)
	if ownerMissing && errors.Is(err, store.ErrNotFound) {
		return nil, UserNotFound(owner)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, errs.Wrap(err, "access")
	}
	if o == nil {
		// The repository is missing: load the owner alone to tell a
		// hidden owner from a missing repository.
		if _, err := VisibleUser(ctx, c.store, owner, viewer); err != nil {
			return nil, err
		}
		return nil, ErrRepoNotFound
	}
	if viewer != nil && viewer.Deploy != nil {
		// A deploy key sees its repositories alone (finish).
		return c.finish(ctx, &gen, r, o, viewer)
	}
	visible, err := SeesUser(ctx, c.store, o, viewer)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, UserNotFound(owner)
	}
	return c.finish(ctx, &gen, r, o, viewer)
}

// ResolveByID is Resolve for GET /repositories/{id}.
func (c *Checker) ResolveByID(ctx context.Context, id int64, viewer *auth.Principal) (*Repo, error) {
	gen, o, r, err := c.lookupByID(ctx, id)
	if err != nil {
		return nil, notFoundOr(err, ErrRepoNotFound)
	}
	if viewer != nil && viewer.Deploy != nil {
		return c.finish(ctx, &gen, r, o, viewer)
	}
	visible, err := SeesUser(ctx, c.store, o, viewer)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, ErrRepoNotFound
	}
	return c.finish(ctx, &gen, r, o, viewer)
}

// finish computes viewer's access to r, from the cache at gen (see
// grantsOf).
func (c *Checker) finish(ctx context.Context, gen *store.Generation, r *store.Repository, o *store.User, viewer *auth.Principal) (*Repo, error) {
	if viewer != nil && viewer.Deploy != nil {
		// A deploy key (SSH) reaches its own repositories at its mode,
		// every unit alike, and nothing else.
		mode := viewer.Deploy.Repos[r.ID]
		if mode == store.AccessNone {
			return nil, ErrRepoNotFound
		}
		return &Repo{Repository: r, Owner: o, Mode: min(mode, store.AccessWrite)}, nil
	}
	m, err := c.modes(ctx, gen, r, viewer, o)
	if err != nil {
		return nil, err
	}
	mode := m.any()
	if mode == store.AccessNone {
		return nil, ErrRepoNotFound
	}
	if r.IsPrivate && viewer.PublicOnly() {
		return nil, errs.New(errs.PermissionDenied, "token scope is limited to public repos")
	}
	out := &Repo{Repository: r, Owner: o, Mode: mode}
	if m.units != nil {
		out.grants = &m
	}
	return out, nil
}

// Mode is viewer's access to r, to any of its units: site administrators
// and the owner have owner access, collaborators their mode, members of
// the owning organization's teams what their teams give (modes), everyone
// else read on public repositories, except restricted users, who read
// only what is shared with them (Filter is the same rule for lists).
func (c *Checker) Mode(ctx context.Context, r *store.Repository, viewer *auth.Principal) (store.AccessMode, error) {
	m, err := c.modes(ctx, nil, r, viewer, nil)
	if err != nil {
		return store.AccessNone, err
	}
	return m.any(), nil
}

// UnitMode is viewer's access to unit u of r (Mode narrowed to the unit:
// a team may give write on code and read on issues).
func (c *Checker) UnitMode(ctx context.Context, r *store.Repository, viewer *auth.Principal, u auth.Unit) (store.AccessMode, error) {
	m, err := c.modes(ctx, nil, r, viewer, nil)
	if err != nil {
		return store.AccessNone, err
	}
	return m.unit(u), nil
}

// modes is a caller's access to a repository: base on every unit, and
// per unit (Gitea's unit types) what teams give on top.
type modes struct {
	base  store.AccessMode
	units map[int]store.AccessMode
}

func (m modes) unit(u auth.Unit) store.AccessMode {
	if u == auth.UnitAny {
		return m.any()
	}
	if u == auth.UnitIssuesOrPulls {
		return max(m.unit(auth.UnitIssues), m.unit(auth.UnitPulls))
	}
	return max(m.base, m.units[unitType(u)])
}

// anyEnabled is the best mode over the units r has switched on (code is
// always on): Gitea's reqAnyRepoReader counts only those, so a team's
// issues grant does not open a repository whose issues are off.
func (m modes) anyEnabled(r *store.Repository) store.AccessMode {
	out := m.base
	for _, u := range []auth.Unit{auth.UnitCode, auth.UnitIssues, auth.UnitPulls, auth.UnitReleases, auth.UnitWiki} {
		if unitEnabled(r, u) {
			out = max(out, m.units[unitType(u)])
		}
	}
	return out
}

// issuesOrPulls is the better mode over the issues and pull requests
// units r has on (Gitea's reqRepoWriter(issues, pulls) counts only
// those); none on: the mode on issues, for the unit-off rule.
func (m modes) issuesOrPulls(r *store.Repository) store.AccessMode {
	switch {
	case r.HasIssues && r.HasPullRequests:
		return m.unit(auth.UnitIssuesOrPulls)
	case r.HasPullRequests:
		return m.unit(auth.UnitPulls)
	}
	return m.unit(auth.UnitIssues)
}

func (m modes) any() store.AccessMode {
	out := m.base
	for _, v := range m.units {
		out = max(out, v)
	}
	return out
}

// unitType is Gitea's unit type number of a declared unit, as stored in
// team_units.
func unitType(u auth.Unit) int {
	switch u {
	case auth.UnitIssues:
		return store.UnitTypeIssues
	case auth.UnitPulls:
		return store.UnitTypePullRequests
	case auth.UnitReleases:
		return store.UnitTypeReleases
	case auth.UnitWiki:
		return store.UnitTypeWiki
	}
	return store.UnitTypeCode
}

// modes computes a caller's access to r; owner, when known, spares the
// team lookup for repositories of individuals; gen, when known, lets the
// cache answer (grantsOf).
func (c *Checker) modes(ctx context.Context, gen *store.Generation, r *store.Repository, viewer *auth.Principal, owner *store.User) (modes, error) {
	if viewer == nil || viewer.IsAdmin() || viewer.User.ID == r.OwnerID {
		return combineModes(r, viewer, store.AccessNone, nil), nil
	}
	// Teams of the owning organization (none for an individual's
	// repository).
	read, err := c.grantsOf(ctx, gen, r, viewer.User.ID, owner == nil || owner.Type == store.UserTypeOrganization)
	if err != nil {
		return modes{}, err
	}
	return combineModes(r, viewer, read.collab, read.grants), nil
}

// Modes is Mode for every repository of a page (repository lists), in a
// constant number of queries: viewer's collaborations and team grants on
// all of them are read at once.
func (c *Checker) Modes(ctx context.Context, repos []store.Repository, viewer *auth.Principal) (map[int64]store.AccessMode, error) {
	out := make(map[int64]store.AccessMode, len(repos))
	var ask []int64
	for i := range repos {
		r := &repos[i]
		if viewer == nil || viewer.IsAdmin() || viewer.User.ID == r.OwnerID {
			out[r.ID] = combineModes(r, viewer, store.AccessNone, nil).any()
		} else {
			ask = append(ask, r.ID)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	collabs, err := c.store.CollaboratorModes(ctx, ask, viewer.User.ID)
	if err != nil {
		return nil, errs.Wrap(err, "access")
	}
	grants, err := c.store.TeamGrantsOf(ctx, ask, viewer.User.ID)
	if err != nil {
		return nil, err
	}
	for i := range repos {
		r := &repos[i]
		if _, done := out[r.ID]; !done {
			out[r.ID] = combineModes(r, viewer, collabs[r.ID], grants[r.ID]).any()
		}
	}
	return out, nil
}

// combineModes is the rule: site administrators and the owner own r;
// others get their collaboration's mode, and what the teams of r's
// organization reaching r give them. As in Gitea, a team with admin
// access or more (the Owners team) owns every repository it reaches;
// other teams give their mode per unit, at most write: repository admin
// comes from the team's own access only, so a unit row holding admin
// (stored by an older version) never makes its member the repository's
// administrator. A public repository is readable by everyone but
// restricted users.
func combineModes(r *store.Repository, viewer *auth.Principal, collab store.AccessMode, grants []store.TeamGrant) modes {
	var m modes
	if viewer != nil {
		if viewer.IsAdmin() || viewer.User.ID == r.OwnerID {
			return modes{base: store.AccessOwner}
		}
		m.base = collab
		for _, g := range grants {
			if g.Authorize >= store.AccessAdmin {
				return modes{base: store.AccessOwner}
			}
			if m.units == nil {
				m.units = map[int]store.AccessMode{}
			}
			for u, mode := range g.Units {
				m.units[u] = max(m.units[u], min(mode, store.AccessWrite))
			}
		}
	}
	if !r.IsPrivate && !restricted(viewer) {
		m.base = max(m.base, store.AccessRead)
	}
	return m
}

// CanWrite reports whether the caller may write the repository's content:
// what branch views show as user_can_push, and who sees draft releases.
func (r *Repo) CanWrite() bool { return r.Mode >= store.AccessWrite }

// Require fails with Gitea's 403 message unless the caller has at least
// mode.
func (r *Repo) Require(mode store.AccessMode) error {
	if r.Mode >= mode {
		return nil
	}
	switch mode {
	case store.AccessRead:
		// Visible through another unit (a team's issues only), not this
		// one: Gitea's reader(U) refusal.
		return errs.New(errs.PermissionDenied, UnitOffMessage)
	case store.AccessWrite:
		return errs.New(errs.PermissionDenied, NeedWriteMessage)
	case store.AccessAdmin:
		return errs.New(errs.PermissionDenied, NeedAdminMessage)
	default:
		return errs.New(errs.PermissionDenied, NeedOwnerMessage)
	}
}
