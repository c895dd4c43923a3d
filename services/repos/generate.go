package repos

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
)

// GenerateOptions are Gitea's GenerateRepoOption: the new repository and
// what it takes from the template.
type GenerateOptions struct {
	Name, Description, DefaultBranch string
	Private                          bool
	// GitContent: the template's default branch's files, as one commit.
	GitContent bool
	// Topics, Labels: copies of the template's.
	Topics, Labels bool
	// GitHooks, Avatar: forge keeps no custom git hooks and no repository
	// avatars, so there is nothing to copy (as in Gitea for a template
	// without them).
	GitHooks, Avatar bool
	// Webhooks, ProtectedBranch: copies of the template's own webhooks
	// and branch protection rules.
	Webhooks, ProtectedBranch bool
	// Links gives the addresses template variables name ($REPO_LINK,
	// $REPO_HTTPS_URL...); nil leaves them empty.
	Links func(owner, name string) RepoLinks
}

// Generate makes owner's repository in.Name from the template repository
// tmpl (POST /repos/{o}/{r}/generate): with GitContent its default branch
// (in.DefaultBranch, else the template's) holds one commit by caller with
// the tree of the template's default branch and none of its history, the
// files its .gitea/template names with their variables expanded (in
// content and path) and .gitea/template itself left out; with
// Labels, Topics, Webhooks and ProtectedBranch it has copies of the
// template's, read in the new repository's transaction. Everything is
// recorded and placed all or nothing (CreateStaged). The policy checked
// that the caller reads tmpl's code and may create repositories in owner
// (rule generate-owner). Refused with 422: a repository that is not a
// template, no item chosen.
func (s *Service) Generate(ctx context.Context, tmpl *access.Repo, owner *store.User, in GenerateOptions, caller *auth.Principal) (*access.Repo, error) {
	if !tmpl.IsTemplate {
		return nil, errs.New(errs.Invalid, "this is not a template repo")
	}
	if !(in.GitContent || in.Topics || in.GitHooks || in.Webhooks || in.Avatar || in.Labels || in.ProtectedBranch) {
		return nil, errs.New(errs.Invalid, "must select at least one template item")
	}
	branch := in.DefaultBranch
	if branch == "" {
		branch = tmpl.DefaultBranch
	}
	if err := validateDefaultBranch(branch); err != nil {
		return nil, err
	}
	path, err := s.git.RepoPath(owner.Name, in.Name)
	if err != nil {
		return nil, errs.New(errs.Invalid, "[Name]: invalid repository name")
	}
	tmplPath, err := s.git.RepoPath(tmpl.Owner.Name, tmpl.Name)
	if err != nil {
		return nil, errs.Wrap(err, "template repository path")
	}
	limit := s.access.RepoLimit(owner, caller)
	if err := CheckCreatable(ctx, s.store, owner.ID, in.Name, limit); err != nil {
		return nil, err
	}
	rec := newRecord(owner, in.Name, in.Description, branch, in.Private)
	n := store.NewRepository{Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Limit: limit}
	if in.Webhooks || in.ProtectedBranch {
		n.FromTemplate = &store.TemplateCopy{RepoID: tmpl.ID, Webhooks: in.Webhooks, Protections: in.ProtectedBranch}
	}
	if in.Topics {
		n.Topics = slices.Clone([]string(tmpl.Topics))
	}
	if in.Labels {
		labels, _, err := s.store.ListLabels(ctx, store.LabelListOptions{Owner: store.LabelOwner{RepoID: tmpl.ID}, Limit: -1})
		if err != nil {
			return nil, errs.Wrap(err, "read the template's labels")
		}
		for _, l := range labels {
			n.Labels = append(n.Labels, store.Label{Name: l.Name, Color: l.Color, Description: l.Description,
				Exclusive: l.Exclusive, ArchivedUnix: l.ArchivedUnix})
		}
	}
	staged, err := s.git.InitStaged(ctx, branch)
	if err != nil {
		return nil, errs.Wrap(err, "stage repository")
	}
	err = CreateStaged(ctx, s.git, s.store, staged, path, n, func(n *store.NewRepository) error {
		if !in.GitContent || tmpl.IsEmpty {
			return nil
		}
		sig := git.Signature{Name: caller.User.Name, Email: caller.User.Email, When: time.Now()}
		links := func(string, string) RepoLinks { return RepoLinks{} }
		if in.Links != nil {
			links = in.Links
		}
		vars := newTemplateVars(tmpl.Owner.Name, tmpl.Name, tmpl.Description, links(tmpl.Owner.Name, tmpl.Name),
			owner.Name, in.Name, in.Description, links(owner.Name, in.Name))
		if _, err := s.git.CommitTreeOf(ctx, staged, tmplPath, tmpl.DefaultBranch, branch, sig, "Initial commit", templateRules(vars)); err != nil {
			if errors.Is(err, git.ErrInvalid) {
				// A template whose expansion is out of bounds or makes
				// colliding paths.
				msg := strings.TrimSuffix(err.Error(), ": "+git.ErrInvalid.Error())
				if !strings.HasPrefix(msg, "the template") {
					msg = "the template's expanded file paths collide" // git's words name scratch paths
				}
				return errs.New(errs.Invalid, msg)
			}
			return errs.Wrap(err, "copy the template's files")
		}
		b, err := s.stagedBranch(ctx, staged, rec)
		if err != nil {
			return errs.Wrap(err, "read the new branch")
		}
		n.Branches = append(n.Branches, branchUpdate(b))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &access.Repo{Repository: rec, Owner: owner, Mode: store.AccessOwner}, nil
}
