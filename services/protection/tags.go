package protection

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"forge/services/errs"
	"forge/services/store"
)

// Tag protection: a rule's name pattern is a regular expression when
// written between slashes, a glob otherwise (no separator: * crosses /,
// matched case-sensitively as Gitea's glob does). A tag that a rule
// matches may be created, moved or deleted only by a user the rule or
// one of its teams whitelists; with several matching rules, one that
// admits the user is enough. A tag no rule matches is unprotected.

// TagStore is what tag protection reads and writes.
type TagStore interface {
	// TagProtections returns a repository's rules in creation order.
	TagProtections(ctx context.Context, repoID int64) ([]store.TagProtection, error)
	// TagProtectionByID returns store.ErrNotFound when the repository
	// has no rule with that id.
	TagProtectionByID(ctx context.Context, repoID, id int64) (*store.TagProtection, error)
	// CreateTagProtection returns store.ErrTagProtectionExists when the
	// pattern is taken.
	CreateTagProtection(ctx context.Context, p *store.TagProtection) error
	// UpdateTagProtection returns store.ErrNotFound when the rule is gone.
	UpdateTagProtection(ctx context.Context, p *store.TagProtection) error
	// DeleteTagProtection returns store.ErrNotFound when there is none.
	DeleteTagProtection(ctx context.Context, repoID, id int64) error
}

var (
	errNoPattern   = errs.New(errs.Invalid, "name_pattern are empty").WithHTTPStatus(400)
	errNoWhitelist = errs.New(errs.Invalid, "both whitelist_usernames and whitelist_teams are empty").WithHTTPStatus(400)
	errTooManyTags = errs.Newf(errs.Invalid, "a repository has at most %d tag protection rules", MaxRules)
	errBadPattern  = errs.New(errs.Invalid, "name_pattern is not a valid glob or regular expression")
)

// TagPatternMatches reports whether a rule's pattern matches tag.
func TagPatternMatches(pattern, tag string) bool {
	if re, ok := tagRegexp(pattern); ok {
		return re != nil && re.MatchString(tag)
	}
	return GlobMatches(pattern, tag)
}

// tagRegexp compiles a /regexp/ pattern; ok is false for a glob.
func tagRegexp(pattern string) (*regexp.Regexp, bool) {
	if len(pattern) < 2 || !strings.HasPrefix(pattern, "/") || !strings.HasSuffix(pattern, "/") {
		return nil, false
	}
	re, err := regexp.Compile(pattern[1 : len(pattern)-1])
	if err != nil {
		return nil, true
	}
	return re, true
}

func validTagPattern(pattern string) bool {
	if re, ok := tagRegexp(pattern); ok {
		return re != nil
	}
	return ValidGlob(pattern)
}

// TagGuard decides tag changes against a repository's tag rules.
type TagGuard struct {
	Rules []store.TagProtection
	org   bool
	owner int64
	st    Store
}

// TagRules loads the tag rules of a repository (owned by ownerID, an
// organization when org).
func (s *Service) TagRules(ctx context.Context, repoID, ownerID int64, org bool) (*TagGuard, error) {
	rules, err := s.store.TagProtections(ctx, repoID)
	if err != nil {
		return nil, errs.Wrap(err, "tag protections")
	}
	return &TagGuard{Rules: rules, org: org, owner: ownerID, st: s.store}, nil
}

// Allowed reports whether uid (0: a deploy key, nobody) may create, move
// or delete tag. It reads uid's teams only when a matching rule names
// teams (one query).
func (g *TagGuard) Allowed(ctx context.Context, uid int64, tag string) (bool, error) {
	if g == nil {
		return true, nil
	}
	var teams []int64
	loaded := false
	allowed := true
	for i := range g.Rules {
		p := &g.Rules[i]
		if !TagPatternMatches(p.NamePattern, tag) {
			continue
		}
		allowed = uid != 0 && slices.Contains(p.WhitelistUserIDs.IDs(), uid)
		if !allowed && uid != 0 && g.org && len(p.WhitelistTeamIDs.IDs()) > 0 {
			if !loaded {
				var err error
				if teams, err = g.st.TeamIDsOfMember(ctx, g.owner, uid); err != nil {
					return false, errs.Wrap(err, "teams of the doer")
				}
				loaded = true
			}
			for _, t := range p.WhitelistTeamIDs.IDs() {
				if slices.Contains(teams, t) {
					allowed = true
				}
			}
		}
		if allowed {
			return true, nil
		}
	}
	return allowed, nil
}

// TagPushRefusal is the line a git client shows for a refused tag.
func TagPushRefusal(tag string) string { return fmt.Sprintf("Tag %s is protected", tag) }

// CheckTag refuses (with refusal) a change of tag in repository repoID
// by uid that its tag rules forbid.
func (s *Service) CheckTag(ctx context.Context, repoID, ownerID int64, org bool, uid int64, tag string, refusal error) error {
	g, err := s.TagRules(ctx, repoID, ownerID, org)
	if err != nil {
		return err
	}
	ok, err := g.Allowed(ctx, uid, tag)
	if err != nil {
		return err
	}
	if !ok {
		return refusal
	}
	return nil
}

// ListTags returns the rules in creation order.
func (s *Service) ListTags(ctx context.Context, r Repo) ([]store.TagProtection, error) {
	rules, err := s.store.TagProtections(ctx, r.ID)
	return rules, errs.Wrap(err, "tag protections")
}

// GetTag returns rule id of the repository.
func (s *Service) GetTag(ctx context.Context, r Repo, id int64) (*store.TagProtection, error) {
	return s.store.TagProtectionByID(ctx, r.ID, id)
}

// CreateTag adds a rule for pattern with the named users and teams.
func (s *Service) CreateTag(ctx context.Context, r Repo, pattern string, users, teams []string) (*store.TagProtection, error) {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return nil, errNoPattern
	}
	if len(users) == 0 && len(teams) == 0 {
		return nil, errNoWhitelist
	}
	if !validTagPattern(pattern) {
		return nil, errBadPattern
	}
	existing, err := s.store.TagProtections(ctx, r.ID)
	if err != nil {
		return nil, errs.Wrap(err, "tag protections")
	}
	for i := range existing {
		if existing[i].NamePattern == pattern {
			return nil, store.ErrTagProtectionExists
		}
	}
	if len(existing) >= MaxRules {
		return nil, errTooManyTags
	}
	p := &store.TagProtection{RepoID: r.ID, NamePattern: pattern}
	if err := s.tagLists(ctx, r, p, users, teams, true); err != nil {
		return nil, err
	}
	if err := s.store.CreateTagProtection(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// EditTag changes rule id: a nil pattern or list is unchanged.
func (s *Service) EditTag(ctx context.Context, r Repo, id int64, pattern *string, users, teams []string) (*store.TagProtection, error) {
	p, err := s.store.TagProtectionByID(ctx, r.ID, id)
	if err != nil {
		return nil, err
	}
	if pattern != nil {
		if *pattern == "" || !validTagPattern(*pattern) {
			return nil, errBadPattern
		}
		p.NamePattern = *pattern
	}
	if err := s.tagLists(ctx, r, p, users, teams, false); err != nil {
		return nil, err
	}
	if err := s.store.UpdateTagProtection(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// DeleteTag removes rule id.
func (s *Service) DeleteTag(ctx context.Context, r Repo, id int64) error {
	return s.store.DeleteTagProtection(ctx, r.ID, id)
}

// tagLists resolves the given lists (all on create) into p; team lists
// only apply to organizations' repositories; unknown names are 422.
func (s *Service) tagLists(ctx context.Context, r Repo, p *store.TagProtection, users, teams []string, create bool) error {
	tmp := &store.BranchProtection{PushWhitelistUserIDs: p.WhitelistUserIDs, PushWhitelistTeamIDs: p.WhitelistTeamIDs}
	if err := s.applyLists(ctx, r, tmp, Lists{PushUsers: users, PushTeams: teams}, create); err != nil {
		return err
	}
	p.WhitelistUserIDs, p.WhitelistTeamIDs = tmp.PushWhitelistUserIDs, tmp.PushWhitelistTeamIDs
	return nil
}

// TagNames loads the users and teams tag rules name, in two queries.
func (s *Service) TagNames(ctx context.Context, r Repo, rules []store.TagProtection) (Names, error) {
	bp := make([]store.BranchProtection, len(rules))
	for i := range rules {
		bp[i] = store.BranchProtection{PushWhitelistUserIDs: rules[i].WhitelistUserIDs, PushWhitelistTeamIDs: rules[i].WhitelistTeamIDs}
	}
	return s.Names(ctx, r, bp)
}
