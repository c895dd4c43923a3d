package access

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"forge/services/auth"
	"forge/services/errs"
	"forge/services/store"
)

// Object rules decide on a second object beside the resource a policy
// declares: the issue or comment a request names inside the repository,
// a notification thread, the account a request field names, the other
// issue of a relation. A method names its rule in its proto
// (option (forge.options.v1.policy).rule); the interceptor resolves the
// resource, then the rule loads its object from the request and allows or
// refuses the call before the handler runs. The handler reads what was
// loaded with ObjectFrom. Rules is the one registry: the authorization
// golden prints each method's rule, and docs/authorization.md lists them.

// Object is what a rule loaded for the handler.
type Object struct {
	// Issue is the issue the request's index names in the resolved
	// repository.
	Issue *store.Issue
	// Comment is the comment the request's id names there.
	Comment *store.Comment
	// Thread is the notification thread the request's id names.
	Thread *store.NotificationThread
	// User is the account a request field names, as the caller sees it.
	User *store.User
	// Related is the other issue of a relation (the request's meta) and
	// Repo its repository; Repo is also the second repository a team
	// request names.
	Related *store.Issue
	Repo    *Repo
	// Review is the pull request review the request's id names.
	Review *store.Review
	// Time is the tracked time the request's id names.
	Time *store.TrackedTime
	// Teams are the team ids a transfer names (rule transfer-new-owner);
	// Direct says the transfer needs no acceptance.
	Teams  []int64
	Direct bool
	// Transfer is the pending transfer of Repo (rule transfer-recipient).
	Transfer *store.RepoTransfer
}

type objectKey struct{}

// ObjectFrom is what the method's rule loaded. A handler of a method
// without a rule gets an Internal error: its policy is missing the
// declaration, and nothing was checked.
func ObjectFrom(ctx context.Context) (*Object, error) {
	if o, _ := ctx.Value(objectKey{}).(*Object); o != nil {
		return o, nil
	}
	return nil, errs.New(errs.Internal, "the method's policy declares no object rule")
}

// Rule is one entry of the registry.
type Rule struct {
	// On is the resource kind a method naming the rule must declare
	// (auth.NoResource: none needed).
	On auth.ResourceKind
	// Fields are the request fields the rule reads; a method whose
	// request lacks one stops start-up (CheckRules).
	Fields []string
	// Reads are units of the repository resource the caller must read
	// besides the policy's (403 without, before the rule decides).
	Reads  []auth.Unit
	decide func(ctx context.Context, c *Checker, s *subject) (*Object, error)
}

// subject is what a rule decides with: the request, the caller and the
// resource the interceptor already resolved.
type subject struct {
	req    protoreflect.Message
	caller *auth.Principal
	repo   *Repo
	org    *Org
	team   *Team
}

// Gitea's refusals of the rules below.
const (
	PublicizeOtherMessage = "Cannot publicize another member"
	ConcealOtherMessage   = "Cannot conceal another member"
	QueryPermMessage      = "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own"
	TeamRepoAdminMessage  = "Must have admin-level access to the repository"
	OrgRepoCreateMessage  = "Given user is not allowed to create repository in organization."
	// GenerateWebhooksMessage is forge's own: Gitea lets any reader of a
	// template copy its webhooks.
	GenerateWebhooksMessage = "Only administrators of the template repository may copy its webhooks."
)

// errTargetNotFound is Gitea's answer for an unknown issue or comment.
var errTargetNotFound = errs.New(errs.NotFound, "")

// Rules is the registry of object rules, by the name policies use.
var Rules = map[string]Rule{
	// issue-poster-or-writer: the issue's poster, or a writer of its unit.
	"issue-poster-or-writer": {
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			return &Object{Issue: is}, posterOrWriter(s.repo, s.caller, is.PosterID, NotPosterMessage)
		},
	},
	// comment-poster-or-writer: the comment's poster, or a writer of the issues unit.
	"comment-poster-or-writer": {
		On: auth.RepositoryResource, Fields: []string{"id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			cm, err := c.comment(ctx, s)
			if err != nil {
				return nil, err
			}
			return &Object{Comment: cm}, posterOrWriter(s.repo, s.caller, cm.PosterID, NotPosterMessage)
		},
	},
	// issue-unlocked-or-writer: anyone the resource admits on an unlocked issue; writers on a locked one.
	"issue-unlocked-or-writer": {
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			if is.IsLocked && s.repo.Mode < store.AccessWrite {
				return nil, errs.New(errs.PermissionDenied, NeedWriteMessage)
			}
			return &Object{Issue: is}, nil
		},
	},
	// issue-files-poster-or-writer: the issue's poster, or a writer of its unit (its files).
	"issue-files-poster-or-writer": {
		On: auth.RepositoryResource, Fields: []string{"index"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			return &Object{Issue: is}, posterOrWriter(s.repo, s.caller, is.PosterID, WriteIssueMessage)
		},
	},
	// comment-files-poster-or-admin: a writer of the issues unit who posted the comment, or an administrator of the repository (its files).
	"comment-files-poster-or-admin": {
		On: auth.RepositoryResource, Fields: []string{"id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			cm, err := c.comment(ctx, s)
			if err != nil {
				return nil, err
			}
			r := s.repo
			if s.caller != nil && r.Mode >= store.AccessWrite && (s.caller.ID() == cm.PosterID || r.Mode >= store.AccessAdmin) {
				return &Object{Comment: cm}, nil
			}
			return nil, errs.New(errs.PermissionDenied, EditCommentMessage)
		},
	},
	// thread-owner-or-admin: the thread's owner, or a site administrator.
	"thread-owner-or-admin": {
		On: auth.NoResource, Fields: []string{"id"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			id := intField(s.req, "id")
			t, err := c.store.NotificationByID(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				return nil, ThreadNotFound(id)
			}
			if err != nil {
				return nil, errs.Wrap(err, "load notification")
			}
			if s.caller.ID() != t.UserID && !s.caller.IsAdmin() {
				return nil, errs.Newf(errs.PermissionDenied, "only user itself and admin are allowed to read/change this thread %d", t.ID)
			}
			return &Object{Thread: t}, nil
		},
	},
	// issue-subscriber-self-or-admin: the issue (index) exists, and the account (user) is the caller, or the caller administers the repository or the site.
	"issue-subscriber-self-or-admin": {
		On: auth.RepositoryResource, Fields: []string{"index", "user"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			is, err := c.issue(ctx, s, errTargetNotFound)
			if err != nil {
				return nil, err
			}
			u, err := c.individual(ctx, stringField(s.req, "user"), s.caller)
			if err != nil {
				return nil, err
			}
			if s.caller.ID() != u.ID && s.repo.Mode < store.AccessAdmin && !s.caller.IsAdmin() {
				return nil, errs.Newf(errs.PermissionDenied, "%s is not permitted to change subscriptions for %s", s.caller.User.Name, u.Name)
			}
			return &Object{Issue: is, User: u}, nil
		},
	},
	// collaborator-self-or-repo-admin: an administrator of the repository, or the collaborator asking about themself.
	"collaborator-self-or-repo-admin": {
		On: auth.RepositoryResource, Fields: []string{"collaborator"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			u, err := c.individual(ctx, stringField(s.req, "collaborator"), s.caller)
			if err != nil {
				return nil, err
			}
			if s.repo.Mode >= store.AccessAdmin || s.caller.ID() == u.ID {
				return &Object{User: u}, nil
			}
			return nil, errs.New(errs.PermissionDenied, QueryPermMessage)
		},
	},
	// member-self-publicize: the member themself.
	"member-self-publicize": {
		On: auth.OrganizationResource, Fields: []string{"username"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.self(ctx, s, PublicizeOtherMessage)
		},
	},
	// member-self-conceal: the member themself.
	"member-self-conceal": {
		On: auth.OrganizationResource, Fields: []string{"username"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.self(ctx, s, ConcealOtherMessage)
		},
	},
	// team-repo-admin: an administrator of the repository the request names (org/repo).
	"team-repo-admin": {
		On: auth.TeamResource, Fields: []string{"org", "repo"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			r, err := c.Resolve(ctx, stringField(s.req, "org"), stringField(s.req, "repo"), s.caller)
			if err != nil {
				return nil, err
			}
			if r.Mode < store.AccessAdmin {
				return nil, errs.New(errs.PermissionDenied, TeamRepoAdminMessage)
			}
			return &Object{Repo: r}, nil
		},
	},
	// org-repo-creator: a member of a team that may create repositories (owners do), or a site administrator.
	"org-repo-creator": {
		On: auth.OrganizationResource,
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			if s.caller.IsAdmin() {
				return &Object{}, nil
			}
			ok, err := c.store.CanCreateOrgRepo(ctx, s.org.ID, s.caller.ID())
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errs.New(errs.PermissionDenied, OrgRepoCreateMessage)
			}
			return &Object{}, nil
		},
	},
	// fork-owner: the caller's own account, or the organization the request names where the caller may create repositories (as org-repo-creator).
	"fork-owner": {
		On: auth.RepositoryResource, Fields: []string{"organization"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.forkOwner(ctx, s)
		},
	},
	// generate-owner: the owner a repository generated from the template names (generate.owner): the caller's own account, an organization where the caller may create repositories (as org-repo-creator), or any account for a site administrator; copying the template's webhooks (generate.webhooks) needs admin on the template.
	"generate-owner": {
		On: auth.RepositoryResource, Fields: []string{"generate"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.generateOwner(ctx, s)
		},
	},
	// org-creator: a site administrator, or a user allowed to create organizations while the site allows it.
	"org-creator": {
		On: auth.NoResource,
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return &Object{}, c.mayCreateOrg(s.caller)
		},
	},
	// migration-owner: the caller's own account, an organization they own, or any account for a site administrator.
	"migration-owner": {
		Fields: []string{"repo_owner", "uid"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			u, err := c.migrationOwner(ctx, s)
			if err != nil {
				return nil, err
			}
			return &Object{User: u}, c.mayCreateIn(ctx, s.caller, u)
		},
	},
	// pull-head: a reader of the code unit too, and of the head repository's code (the request's head: a branch, or owner:branch of the owner's fork).
	"pull-head": {
		On: auth.RepositoryResource, Fields: []string{"head"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.pullHead(ctx, s)
		},
	},
	// pull-merger: a reader of the code unit too; the pull request open and not merged (404, 405), and the caller a writer of the code (else 405).
	"pull-merger": {
		On: auth.RepositoryResource, Fields: []string{"index"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.pullMerger(ctx, s)
		},
	},
	// auto-merge-canceller: a reader of the code unit too; the pull request and its scheduled merge exist (404), and the caller scheduled it or administers the repository (else 403).
	"auto-merge-canceller": {
		On: auth.RepositoryResource, Fields: []string{"index"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.autoMergeCanceller(ctx, s)
		},
	},
	// pull-updater: a reader of the code unit too; the pull request open (404, 422), and the caller a writer of the head repository's code, or of the base's when maintainers may edit (else 403).
	"pull-updater": {
		On: auth.RepositoryResource, Fields: []string{"index", "style"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.pullUpdater(ctx, s)
		},
	},
	// pull-poster-or-writer: a reader of the code unit too; the pull request's poster, or a writer of the pulls unit.
	"pull-poster-or-writer": {
		On: auth.RepositoryResource, Fields: []string{"index"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.pullPosterOrWriter(ctx, s)
		},
	},
	// pull-review: a reader of the code unit too; the index a pull request (404).
	"pull-review": {
		On: auth.RepositoryResource, Fields: []string{"index"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.pullReview(ctx, s)
		},
	},
	// pull-review-visible: pull-review, and the id a review of that pull request, someone else's pending one only for site administrators (404).
	"pull-review-visible": {
		On: auth.RepositoryResource, Fields: []string{"index", "id"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.reviewVisible(ctx, s)
		},
	},
	// pull-review-owner-or-admin: pull-review-visible, and the caller its reviewer or a site administrator.
	"pull-review-owner-or-admin": {
		On: auth.RepositoryResource, Fields: []string{"index", "id"}, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.reviewOwnerOrAdmin(ctx, s)
		},
	},
	// pull-code: a reader of the code unit too (what a pull request changes is code).
	"pull-code": {
		On: auth.RepositoryResource, Reads: []auth.Unit{auth.UnitCode},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return &Object{}, nil
		},
	},
	// transfer-new-owner: the account new_owner names, visible to the caller (404), and team_ids teams of that organization (422, 403); no acceptance needed from a site administrator, the new owner, or a member who may create repositories in the organization.
	"transfer-new-owner": {
		On: auth.RepositoryResource, Fields: []string{"new_owner", "team_ids"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.transferTarget(ctx, s)
		},
	},
	// transfer-recipient: the repository has a pending transfer (404) and the caller is its recipient, or a member who may create repositories in the recipient organization (403).
	"transfer-recipient": {
		On: auth.RepositoryResource,
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.transferRecipient(ctx, s)
		},
	},
	// relate-issue: the URL's issue writable in its unit, the other issue (meta) readable in its own repository and unit.
	"relate-issue": {
		On: auth.RepositoryResource, Fields: []string{"index", "meta"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.relate(ctx, s, store.AccessWrite, store.AccessRead, auth.WritesUndeclared)
		},
	},
	// relate-issue-writable: the URL's issue readable in its unit, the other issue (meta) writable in its own repository and unit.
	"relate-issue-writable": {
		On: auth.RepositoryResource, Fields: []string{"index", "meta"},
		decide: func(ctx context.Context, c *Checker, s *subject) (*Object, error) {
			return c.relate(ctx, s, store.AccessRead, store.AccessWrite, auth.WritesIssues)
		},
	},
}

// RuleNames lists the registry, sorted.
func RuleNames() []string {
	out := make([]string, 0, len(Rules))
	for name := range Rules {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// CheckRules verifies the rules and writer fields the policies of
// services name: a known rule, on the resource kind it runs on, whose
// request fields the method's request has. Start-up stops on an error, so
// a typo cannot open a method.
func CheckRules(services []*grpc.ServiceDesc, pols auth.Policies) error {
	for _, sd := range services {
		for _, m := range sd.Methods {
			if err := checkRule(sd.ServiceName, m.MethodName, pols); err != nil {
				return err
			}
		}
		for _, m := range sd.Streams {
			if err := checkRule(sd.ServiceName, m.StreamName, pols); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkRule(service, method string, pols auth.Policies) error {
	name := "/" + service + "/" + method
	pol, ok := pols[name]
	if !ok || pol.Rule == "" {
		return nil
	}
	rule, ok := Rules[pol.Rule]
	if !ok {
		return fmt.Errorf("access: %s: unknown rule %q (known: %s)", name, pol.Rule, strings.Join(RuleNames(), ", "))
	}
	if rule.On != auth.NoResource && pol.Resource.Kind != rule.On {
		return fmt.Errorf("access: %s: rule %q needs the method to declare its %s resource", name, pol.Rule, rule.On)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return fmt.Errorf("access: %s: %w", name, err)
	}
	md := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
	for _, f := range rule.Fields {
		if md.Input().Fields().ByName(protoreflect.Name(f)) == nil {
			return fmt.Errorf("access: %s: rule %q reads the request field %q, which %s lacks", name, pol.Rule, f, md.Input().FullName())
		}
	}
	return nil
}

// applyRule runs pol's rule (and clears its writer fields) for the caller
// once the resource is resolved, and returns ctx carrying what it loaded.
func (c *Checker) applyRule(ctx context.Context, pol auth.Policy, req any, s *subject) (context.Context, error) {
	msg, ok := req.(proto.Message)
	if !ok {
		return nil, errs.New(errs.Internal, "the request is not a message")
	}
	s.req = msg.ProtoReflect()
	if len(pol.WriterFields) > 0 && (s.repo == nil || s.repo.Mode < store.AccessWrite) {
		for _, f := range pol.WriterFields {
			if fd := s.req.Descriptor().Fields().ByName(protoreflect.Name(f)); fd != nil {
				s.req.Clear(fd)
			}
		}
	}
	if pol.Rule == "" {
		return ctx, nil
	}
	rule, ok := Rules[pol.Rule]
	if !ok {
		return nil, errs.Newf(errs.Internal, "unknown rule %q", pol.Rule)
	}
	for _, u := range rule.Reads {
		if s.repo != nil && s.repo.UnitMode(u) < store.AccessRead {
			return nil, errs.New(errs.PermissionDenied, UnitOffMessage)
		}
	}
	obj, err := rule.decide(ctx, c, s)
	if err != nil {
		return nil, err
	}
	return context.WithValue(ctx, objectKey{}, obj), nil
}

// posterOrWriter allows the poster of an issue or comment and writers of
// the resolved unit.
func posterOrWriter(r *Repo, caller *auth.Principal, posterID int64, refusal string) error {
	if r.Mode >= store.AccessWrite || (caller != nil && posterID != 0 && caller.ID() == posterID) {
		return nil
	}
	return errs.New(errs.PermissionDenied, refusal)
}

// issue loads the issue the request's index names in the resolved
// repository; missing is notFound.
func (c *Checker) issue(ctx context.Context, s *subject, notFound error) (*store.Issue, error) {
	is, err := c.store.IssueByIndex(ctx, s.repo.ID, intField(s.req, "index"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load issue")
	}
	return is, nil
}

// comment loads the comment the request's id names in the resolved
// repository.
func (c *Checker) comment(ctx context.Context, s *subject) (*store.Comment, error) {
	cm, err := c.store.CommentByID(ctx, s.repo.ID, intField(s.req, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTargetNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "load comment")
	}
	return cm, nil
}

// individual is the named account as viewer sees it; an organization, or
// an account hidden from viewer, is as unknown as a missing one.
func (c *Checker) individual(ctx context.Context, name string, viewer *auth.Principal) (*store.User, error) {
	u, err := VisibleUser(ctx, c.store, name, viewer)
	if err != nil {
		return nil, err
	}
	if u.Type != store.UserTypeIndividual {
		return nil, UserNotFound(name)
	}
	return u, nil
}

// self allows a request about the caller's own account (the request's
// username).
func (c *Checker) self(ctx context.Context, s *subject, refusal string) (*Object, error) {
	u, err := VisibleUser(ctx, c.store, stringField(s.req, "username"), s.caller)
	if err != nil {
		return nil, err
	}
	if s.caller.ID() != u.ID {
		return nil, errs.New(errs.PermissionDenied, refusal)
	}
	return &Object{User: u}, nil
}

// relate loads the URL's issue and the other issue of a relation (the
// request's meta), in Gitea's order: the URL's issue (404), a
// cross-repository link while those are off (400), needURL on the URL's
// issue's own unit (issues, or pull requests; 404 without, as Gitea: the
// policy already let the caller read the issues there), then mayRelate
// with needOther on the other one.
func (c *Checker) relate(ctx context.Context, s *subject, needURL, needOther store.AccessMode, w auth.RepoWrite) (*Object, error) {
	is, err := c.issue(ctx, s, ErrRelatedIssueNotFound)
	if err != nil {
		return nil, err
	}
	meta := s.req.Get(s.req.Descriptor().Fields().ByName("meta")).Message()
	owner, name := stringField(meta, "owner"), stringField(meta, "repo")
	if !SameRepo(s.repo, owner, name) && !c.crossRepoDeps {
		return nil, errCrossRepo
	}
	unit := auth.UnitIssues
	if is.IsPull {
		unit = auth.UnitPulls
	}
	if s.repo.issueUnitMode(unit) < needURL {
		return nil, errTargetNotFound
	}
	r, related, err := c.mayRelate(ctx, s.repo, owner, name, intField(meta, "index"), needOther, w, s.caller)
	if err != nil {
		return nil, err
	}
	return &Object{Issue: is, Related: related, Repo: r}, nil
}

// intField and stringField read a request field CheckRules verified.
func intField(m protoreflect.Message, name string) int64 {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name))).Int()
}

// intList is a repeated int64 field's values.
func intList(m protoreflect.Message, name string) []int64 {
	l := m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name))).List()
	out := make([]int64, l.Len())
	for i := range out {
		out[i] = l.Get(i).Int()
	}
	return out
}

func stringField(m protoreflect.Message, name string) string {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name))).String()
}

// migrationOwner is the account a migration names (repo_owner, or the
// deprecated uid), the caller by default. An account the caller may not
// see is as unknown as a missing one: 422, as Gitea.
func (c *Checker) migrationOwner(ctx context.Context, s *subject) (*store.User, error) {
	name := stringField(s.req, "repo_owner")
	var (
		u   *store.User
		err error
	)
	switch uid := intField(s.req, "uid"); {
	case name != "":
		u, err = c.store.UserByName(ctx, name)
	case uid > 0:
		u, err = c.store.UserByID(ctx, uid)
	default:
		return s.caller.User, nil
	}
	if err == nil {
		var visible bool
		if visible, err = SeesUser(ctx, c.store, u, s.caller); err == nil && !visible {
			err = store.ErrNotFound
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Newf(errs.Invalid, "user does not exist [name: %s]", name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "load migration owner")
	}
	return u, nil
}

// forkOwner is the account a fork goes to (the request's organization,
// or the caller): an organization that is unknown, hidden from the caller
// or not an organization is Gitea's 422 for a missing one; one where the
// caller may not create repositories (site administrators may, owners
// and teams with can_create_org_repo may) is 403.
func (c *Checker) forkOwner(ctx context.Context, s *subject) (*Object, error) {
	name := stringField(s.req, "organization")
	if name == "" {
		return &Object{User: s.caller.User}, nil
	}
	org, err := c.store.UserByName(ctx, name)
	if err == nil {
		var visible bool
		if visible, err = SeesUser(ctx, c.store, org, s.caller); err == nil && (!visible || org.Type != store.UserTypeOrganization) {
			err = store.ErrNotFound
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Newf(errs.Invalid, "org does not exist [id: 0, name: %s]", name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "load the fork's organization")
	}
	if s.caller.IsAdmin() {
		return &Object{User: org}, nil
	}
	ok, err := c.store.CanCreateOrgRepo(ctx, org.ID, s.caller.ID())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.PermissionDenied, OrgRepoCreateMessage)
	}
	return &Object{User: org}, nil
}

// generateOwner is the account a repository generated from a template
// goes to (the request's generate.owner): the caller, or an account that
// is unknown or hidden from the caller (404), a user other than the
// caller (403 but for site administrators), an organization where the
// caller may not create repositories (403 but for site administrators).
func (c *Checker) generateOwner(ctx context.Context, s *subject) (*Object, error) {
	opt := s.req.Get(s.req.Descriptor().Fields().ByName("generate")).Message()
	if opt.Get(opt.Descriptor().Fields().ByName("webhooks")).Bool() && s.repo.Mode < store.AccessAdmin {
		// The copies carry the hooks' secrets and authorization headers
		// to a repository the caller administers.
		return nil, errs.New(errs.PermissionDenied, GenerateWebhooksMessage)
	}
	name := stringField(opt, "owner")
	if strings.EqualFold(name, s.caller.User.Name) {
		return &Object{User: s.caller.User}, nil
	}
	u, err := c.store.UserByName(ctx, name)
	if err == nil {
		var visible bool
		if visible, err = SeesUser(ctx, c.store, u, s.caller); err == nil && !visible {
			err = store.ErrNotFound
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Newf(errs.NotFound, "request owner `%s` does not exist", name)
	}
	if err != nil {
		return nil, errs.Wrap(err, "load the generated repository's owner")
	}
	if s.caller.IsAdmin() {
		return &Object{User: u}, nil
	}
	if u.Type != store.UserTypeOrganization {
		return nil, errs.New(errs.PermissionDenied, "Only admin can generate repository for other user.")
	}
	ok, err := c.store.CanCreateOrgRepo(ctx, u.ID, s.caller.ID())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.PermissionDenied, OrgRepoCreateMessage)
	}
	return &Object{User: u}, nil
}

// ThreadNotFound is Gitea's answer for an unknown notification thread.
func ThreadNotFound(id int64) error {
	return errs.Newf(errs.NotFound, "notification does not exist [id: %d]", id)
}
