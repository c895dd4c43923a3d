package protection

import (
	"context"
	"log/slog"
	"strings"

	"forge/services/git"
	"forge/services/store"
)

// Git is what the push check reads of a push's quarantined objects (see
// git.ReceivePackChecked): one process per question, never per object.
type Git interface {
	QuarantineIsAncestor(ctx context.Context, q *git.Quarantine, a, b string) (bool, error)
	ChangedPaths(ctx context.Context, q *git.Quarantine, a, b string, max int) ([]string, error)
	FirstUnsigned(ctx context.Context, q *git.Quarantine, a, b string) (string, error)
}

// maxCheckedPaths bounds the paths a push's check compares to the rule's
// file patterns.
const maxCheckedPaths = 100000

// Pusher is a push's check of the branch and tag rules of one
// repository.
type Pusher struct {
	Rules *RepoRules
	Tags  *TagGuard
	Git   Git
	UID   int64
	// DeployKey: the push comes from a deploy key (UID is then 0).
	DeployKey bool
}

// PushCheck returns the pre-receive check of a push by uid to the
// repository, nil when it has no branch or tag rule (the push then runs
// as without protection).
func (s *Service) PushCheck(ctx context.Context, g Git, repoID, ownerID int64, org bool, uid int64) (git.PreReceiveFunc, error) {
	p, err := s.pusher(ctx, g, repoID, ownerID, org)
	if p == nil || err != nil {
		return nil, err
	}
	p.UID = uid
	return p.Check, nil
}

// DeployKeyPushCheck is PushCheck for a push with a deploy key: no user,
// a push whitelist admits it only with push_whitelist_deploy_keys, and
// no tag rule admits it.
func (s *Service) DeployKeyPushCheck(ctx context.Context, g Git, repoID, ownerID int64, org bool) (git.PreReceiveFunc, error) {
	p, err := s.pusher(ctx, g, repoID, ownerID, org)
	if p == nil || err != nil {
		return nil, err
	}
	p.DeployKey = true
	return p.Check, nil
}

// pusher loads the repository's rules; nil when it has none.
func (s *Service) pusher(ctx context.Context, g Git, repoID, ownerID int64, org bool) (*Pusher, error) {
	rules, err := s.Rules(ctx, repoID, ownerID, org)
	if err != nil {
		return nil, err
	}
	tags, err := s.TagRules(ctx, repoID, ownerID, org)
	if err != nil {
		return nil, err
	}
	if len(rules.Rules) == 0 && len(tags.Rules) == 0 {
		return nil, nil
	}
	return &Pusher{Rules: rules, Tags: tags, Git: g}, nil
}

// Check decides every branch update of a push (Decide) and every tag
// update (TagGuard.Allowed); one refusal refuses the push, each printed
// on its own line.
func (p *Pusher) Check(ctx context.Context, q *git.Quarantine) ([]string, bool) {
	var lines []string
	var doer *Doer
	for _, u := range q.Updates {
		if tag, ok := strings.CutPrefix(u.Name, "refs/tags/"); ok {
			uid := p.UID
			if p.DeployKey {
				uid = 0
			}
			allowed, err := p.Tags.Allowed(ctx, uid, tag)
			if err != nil {
				slog.Error("pre-receive: tag rules", "tag", tag, "err", err)
				return []string{"forge: internal error checking tag protection"}, false
			}
			if !allowed {
				lines = append(lines, TagPushRefusal(tag))
			}
			continue
		}
		branch, ok := strings.CutPrefix(u.Name, "refs/heads/")
		if !ok {
			continue
		}
		rule := p.Rules.Match(branch)
		if rule == nil {
			continue
		}
		if doer == nil {
			d, err := p.Rules.Doer(ctx, p.UID)
			if err != nil {
				slog.Error("pre-receive: doer", "err", err)
				return []string{"forge: internal error checking branch protection"}, false
			}
			d.DeployKey = p.DeployKey
			doer = &d
		}
		c, err := p.change(ctx, q, rule.RequireSignedCommits, needFiles(rule, *doer), branch, u)
		if err != nil {
			slog.Error("pre-receive: inspect push", "branch", branch, "err", err)
			return []string{"forge: internal error checking branch protection"}, false
		}
		if r := Decide(rule, *doer, c); r != nil {
			lines = append(lines, r.Message)
		}
	}
	return lines, len(lines) == 0
}

// needFiles: the changed paths matter when the rule names protected
// files, or when the doer may not push and unprotected files could let
// the push through.
func needFiles(rule *store.BranchProtection, d Doer) bool {
	return strings.TrimSpace(rule.ProtectedFilePatterns) != "" ||
		(!CanPush(rule, d) && strings.TrimSpace(rule.UnprotectedFilePatterns) != "")
}

func (p *Pusher) change(ctx context.Context, q *git.Quarantine, signed, files bool, branch string, u git.RefUpdate) (Change, error) {
	c := Change{Branch: branch, Create: u.OldSHA == git.ZeroSHA, Delete: u.NewSHA == git.ZeroSHA}
	if c.Delete {
		return c, nil
	}
	var err error
	if !c.Create {
		anc, err := p.Git.QuarantineIsAncestor(ctx, q, u.OldSHA, u.NewSHA)
		if err != nil {
			return c, err
		}
		c.Force = !anc
		if files && !c.Force {
			if c.Files, err = p.Git.ChangedPaths(ctx, q, u.OldSHA, u.NewSHA, maxCheckedPaths); err != nil {
				return c, err
			}
		}
	}
	if signed && !c.Force {
		c.Unsigned, err = p.Git.FirstUnsigned(ctx, q, u.OldSHA, u.NewSHA)
	}
	return c, err
}
