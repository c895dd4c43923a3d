package repos

import (
	"context"
	"errors"
	"time"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/git"
	"forge/services/store"
	"forge/services/templates"
)

const defaultBranch = "main"

// CreateOptions describe a new repository (Gitea's CreateRepoOption, the
// fields forge honours).
type CreateOptions struct {
	Name             string
	Description      string
	Private          bool
	AutoInit         bool
	Template         bool
	Readme           string
	Gitignores       string // comma-separated .gitignore template names
	License          string // license template name
	IssueLabels      string // label set name
	DefaultBranch    string
	ObjectFormatName string
}

// CreateOwn makes a repository owned by the caller (POST /user/repos);
// an organization cannot call it for itself.
func (s *Service) CreateOwn(ctx context.Context, caller *auth.Principal, in CreateOptions) (*access.Repo, error) {
	if caller.User.Type != store.UserTypeIndividual {
		return nil, errs.New(errs.Invalid, "not allowed creating repository for organization")
	}
	return s.Create(ctx, caller.User, in, caller)
}

// CreateFor makes a repository owned by the account named owner (POST
// /admin/users/{username}/repos); an owner hidden from caller is NotFound.
func (s *Service) CreateFor(ctx context.Context, owner string, in CreateOptions, caller *auth.Principal) (*access.Repo, error) {
	u, err := access.VisibleUser(ctx, s.store, owner, caller)
	if err != nil {
		return nil, err
	}
	return s.Create(ctx, u, in, caller)
}

// Create makes owner's repository in.Name for caller: the record, the bare
// repository and, with AutoInit, the first commit and its branch record,
// all or nothing (see createAtomic). The result carries owner access.
func (s *Service) Create(ctx context.Context, owner *store.User, in CreateOptions, caller *auth.Principal) (*access.Repo, error) {
	// The name's form and the field sizes are declared on the request and
	// checked before the call (services/validate); these rules need more.
	branch := in.DefaultBranch
	if branch == "" {
		branch = defaultBranch
	}
	if err := validateDefaultBranch(branch); err != nil {
		return nil, err
	}
	if f := in.ObjectFormatName; f != "" && f != "sha1" {
		return nil, errs.Newf(errs.Invalid, "[ObjectFormatName]: unsupported object format %q (sha1)", f)
	}
	path, err := s.git.RepoPath(owner.Name, in.Name)
	if err != nil {
		return nil, errs.New(errs.Invalid, err.Error())
	}
	rec := newRecord(owner, in.Name, in.Description, branch, in.Private)
	rec.IsTemplate = in.Template
	init, err := initialContent(in, rec, caller)
	if err != nil {
		return nil, err
	}
	if err := s.createAtomic(ctx, rec, path, init, caller, s.access.RepoLimit(owner, caller)); err != nil {
		return nil, err
	}
	return &access.Repo{Repository: rec, Owner: owner, Mode: store.AccessOwner}, nil
}

// validateDefaultBranch checks a default branch name given through the
// API: a valid branch name for git (git.ValidRefName, which also caps it at
// 255 bytes, the size of the database column). Long names are shortened in
// the message.
func validateDefaultBranch(name string) error {
	if git.ValidRefName(name) {
		return nil
	}
	shown := name
	if len(shown) > 100 {
		shown = shown[:100] + "..."
	}
	return errs.Newf(errs.Invalid, "[DefaultBranch]: invalid branch name %q", shown)
}

// newRecord is a repository record with Gitea's defaults.
func newRecord(owner *store.User, name, description, branch string, private bool) *store.Repository {
	return &store.Repository{
		OwnerID: owner.ID, OwnerName: owner.Name, Name: name, Description: description,
		DefaultBranch: branch, IsPrivate: private, IsEmpty: true,
		HasIssues: true, HasWiki: true, HasPullRequests: true, HasProjects: true, HasReleases: true,
		HasPackages: true, HasActions: true, AllowMergeCommits: true, AllowRebase: true,
		AllowRebaseExplicit: true, AllowSquashMerge: true, AllowFastForwardOnlyMerge: true,
		AllowRebaseUpdate: true, DefaultMergeStyle: "merge",
	}
}

// NewRecord is newRecord for other services that create repositories
// (migrations).
func NewRecord(owner *store.User, name, description, branch string, private bool) *store.Repository {
	return newRecord(owner, name, description, branch, private)
}

// initial is what a new repository starts with: the files of its first
// commit (none: no commit) and its labels.
type initial struct {
	files  map[string][]byte
	labels []store.Label
}

// initialContent reads the templates in names, all before anything is
// written: an unknown name is refused (422) whether or not it would be
// used. With AutoInit, the first commit holds README.md (the readme
// template, Default when none is named), .gitignore (the named gitignore
// templates, concatenated) and LICENSE (the license, its placeholders
// filled with the owner, the caller's email, the repository and the
// year), as Gitea's; without it only the label set is used.
func initialContent(in CreateOptions, rec *store.Repository, caller *auth.Principal) (initial, error) {
	var out initial
	readme := in.Readme
	if readme == "" {
		readme = "Default"
	}
	readmeFile, ok := templates.ReadmeFile(readme, rec.Name, rec.Description)
	if !ok {
		return out, errs.Newf(errs.Invalid, "readme template %q does not exist", readme)
	}
	var gitignore []byte
	if in.Gitignores != "" {
		var unknown string
		if gitignore, unknown = templates.GitignoreFile(in.Gitignores); unknown != "" {
			return out, errs.Newf(errs.Invalid, "gitignore template %q does not exist", unknown)
		}
	}
	var license []byte
	if in.License != "" {
		license, ok = templates.LicenseFile(in.License, templates.LicenseValues{
			Owner: rec.OwnerName, Email: caller.User.Email, Repo: rec.Name, Year: time.Now().Format("2006"),
		})
		if !ok {
			return out, errs.Newf(errs.Invalid, "license template %q does not exist", in.License)
		}
	}
	if in.IssueLabels != "" {
		set, ok := templates.LabelSet(in.IssueLabels)
		if !ok {
			return out, errs.Newf(errs.Invalid, "label template %q does not exist", in.IssueLabels)
		}
		out.labels = labelRecords(set)
	}
	if in.AutoInit {
		out.files = map[string][]byte{"README.md": readmeFile}
		if gitignore != nil {
			out.files[".gitignore"] = gitignore
		}
		if license != nil {
			out.files["LICENSE"] = license
		}
	}
	return out, nil
}

// labelRecords are the labels of a label set for a new repository.
func labelRecords(set []templates.Label) []store.Label {
	out := make([]store.Label, len(set))
	for i, l := range set {
		out[i] = store.Label{Name: l.Name, Color: "#" + l.Color, Description: l.Description, Exclusive: l.Exclusive}
	}
	return out
}

// createAtomic makes a repository, with its first commit and labels
// (init), all or nothing (see CreateStaged). limit is the owner's
// repository limit (access.Checker.RepoLimit).
func (s *Service) createAtomic(ctx context.Context, rec *store.Repository, path string, init initial, caller *auth.Principal, limit int) error {
	staged, err := s.git.InitStaged(ctx, rec.DefaultBranch)
	if err != nil {
		return errs.Wrap(err, "stage repository")
	}
	n := store.NewRepository{Repo: rec, WatcherID: caller.ID(), PusherID: caller.ID(), Limit: limit, Labels: init.labels}
	return CreateStaged(ctx, s.git, s.store, staged, path, n, func(n *store.NewRepository) error {
		if init.files == nil {
			return nil
		}
		b, err := s.autoInit(ctx, staged, rec, init.files, caller)
		if err != nil {
			return errs.Wrap(err, "auto-init repository")
		}
		n.Branches = append(n.Branches, branchUpdate(b))
		return nil
	})
}

// autoInit makes the first commit (files) in the staged repository and
// returns the branch it created.
func (s *Service) autoInit(ctx context.Context, staged string, rec *store.Repository, files map[string][]byte, caller *auth.Principal) (git.Branch, error) {
	sig := git.Signature{Name: caller.User.Name, Email: caller.User.Email, When: time.Now()}
	if _, err := s.git.InitialCommit(ctx, staged, rec.DefaultBranch, files, sig, "Initial commit"); err != nil {
		return git.Branch{}, err
	}
	return s.stagedBranch(ctx, staged, rec)
}

// stagedBranch reads the default branch a staged repository's first
// commit created.
func (s *Service) stagedBranch(ctx context.Context, staged string, rec *store.Repository) (git.Branch, error) {
	b, err := s.git.BranchesByName(ctx, staged, []string{rec.DefaultBranch})
	if err != nil {
		return git.Branch{}, err
	}
	if len(b) != 1 {
		return git.Branch{}, errors.New("auto_init: the initial branch is missing")
	}
	return b[0], nil
}
