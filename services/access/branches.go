package access

import (
	"context"
	"strings"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// RenameBranchAdminMessage is Gitea's refusal of a rename that needs
// repository administration.
const RenameBranchAdminMessage = "User must be a repo or site admin to rename default or protected branches."

func init() {
	// branch-renamer: the default branch, and a branch protected by a rule named after it (not a pattern), renamed by repository or site administrators only (403).
	Rules["branch-renamer"] = Rule{
		On: auth.RepositoryResource, Fields: []string{"branch", "name"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return &Object{}, c.branchRenamer(ctx, s)
		},
	}
}

// branchRenamer is the rule branch-renamer. Gitea asks for administration
// only once the names are sound, so the rule lets through what the
// handler refuses to everyone before that: an empty repository (404) and
// a rename onto the same name (422). A branch under a pattern rule is not
// the caller's matter: the handler refuses its rename to administrators
// too, as Gitea's model does.
func (c *Checker) branchRenamer(ctx context.Context, s *subject) error {
	r, from := s.repo, stringField(s.req, "branch")
	if r.UnitMode(auth.UnitCode) >= store.AccessAdmin || r.IsEmpty || from == stringField(s.req, "name") {
		return nil
	}
	refused := errs.New(errs.PermissionDenied, RenameBranchAdminMessage)
	if from == r.DefaultBranch {
		return refused
	}
	rules, err := c.store.BranchProtections(ctx, r.ID)
	if err != nil {
		return errs.Wrap(err, "branch protections")
	}
	// A rule named after the branch is the one that protects it, whatever
	// patterns match too: names match before patterns, and without
	// regard to case (protection.Match).
	for i := range rules {
		if name := rules[i].RuleName; !store.IsGlobRuleName(name) && strings.EqualFold(name, from) {
			return refused
		}
	}
	return nil
}
