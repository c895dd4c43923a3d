// Package repos serves forge.repos.v1.RepositoryService and renders
// repositories as Gitea's Repository object for every service that embeds
// one.
package repos

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	reposv1 "forge/gen/forge/repos/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/store"
	"forge/services/users"
)

// Renderer turns stored repositories into API objects.
type Renderer struct {
	RootURL string
	Users   users.Renderer
	// SSH is the built-in SSH server's address in clone URLs; nil when
	// the server is off (ssh_url is then empty).
	SSH *SSHAddress
	// NoTimeTracker and AnyoneTracksTime are the time tracking settings
	// repositories show in internal_tracker ([service]
	// ENABLE_TIMETRACKING and DEFAULT_ENABLE_TIMETRACKING off;
	// DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME off); the zero value
	// is Gitea's defaults.
	NoTimeTracker, AnyoneTracksTime bool
}

// SSHAddress is what an SSH clone URL names: Gitea's [server] SSH_USER,
// SSH_DOMAIN and SSH_PORT.
type SSHAddress struct {
	User, Domain string
	Port         int
}

// CloneURL is the SSH clone URL of owner/name, in Gitea's form: scp-like
// user@host:owner/name.git on port 22, else ssh://user@host:port/...
func (a *SSHAddress) CloneURL(owner, name string) string {
	if a == nil {
		return ""
	}
	path := url.PathEscape(owner) + "/" + url.PathEscape(name) + ".git"
	if a.Port != 22 {
		return "ssh://" + a.User + "@" + net.JoinHostPort(a.Domain, strconv.Itoa(a.Port)) + "/" + path
	}
	if strings.Contains(a.Domain, ":") {
		return "ssh://" + a.User + "@[" + a.Domain + "]/" + path
	}
	return a.User + "@" + a.Domain + ":" + path
}

var epoch = timestamppb.New(time.Unix(0, 0))

// Repository renders r as seen by viewer, whose access r.Mode carries.
func (v Renderer) Repository(r *access.Repo, viewer *auth.Principal) *reposv1.Repository {
	full := r.Owner.Name + "/" + r.Name
	out := &reposv1.Repository{
		Id:              r.ID,
		Owner:           v.Users.User(r.Owner, viewer),
		Name:            r.Name,
		FullName:        full,
		Description:     r.Description,
		Empty:           r.IsEmpty,
		Private:         r.IsPrivate,
		Fork:            r.IsFork,
		Template:        r.IsTemplate,
		Mirror:          r.IsMirror,
		Size:            r.Size,
		LanguagesUrl:    v.RootURL + "api/v1/repos/" + full + "/languages",
		HtmlUrl:         v.RootURL + full,
		Url:             v.RootURL + "api/v1/repos/" + full,
		CloneUrl:        v.RootURL + full + ".git",
		SshUrl:          v.SSH.CloneURL(r.Owner.Name, r.Name),
		OriginalUrl:     r.OriginalURL,
		Website:         r.Website,
		StarsCount:      int64(r.NumStars),
		ForksCount:      int64(r.NumForks),
		WatchersCount:   int64(r.NumWatches),
		OpenIssuesCount: int64(r.NumIssues - r.NumClosedIssues),
		OpenPrCounter:   int64(r.NumPulls - r.NumClosedPulls),
		DefaultBranch:   r.DefaultBranch,
		Archived:        r.IsArchived,
		CreatedAt:       timestamppb.New(time.Unix(r.CreatedUnix, 0)),
		UpdatedAt:       timestamppb.New(time.Unix(r.UpdatedUnix, 0)),
		ArchivedAt:      timestamppb.New(time.Unix(r.ArchivedUnix, 0)),
		Permissions:     permission(r),
		HasIssues:       r.HasIssues,
		// forge serves no wiki, projects or packages, so it never
		// advertises them, whatever an edit stored (docs/api-level.md).
		HasWiki:                       false,
		HasPullRequests:               r.HasPullRequests,
		HasProjects:                   false,
		ProjectsMode:                  "all",
		HasReleases:                   r.HasReleases,
		HasPackages:                   false,
		HasActions:                    r.HasActions,
		IgnoreWhitespaceConflicts:     r.IgnoreWhitespaceConflicts,
		AllowMergeCommits:             r.AllowMergeCommits,
		AllowRebase:                   r.AllowRebase,
		AllowRebaseExplicit:           r.AllowRebaseExplicit,
		AllowSquashMerge:              r.AllowSquashMerge,
		AllowFastForwardOnlyMerge:     r.AllowFastForwardOnlyMerge,
		AllowRebaseUpdate:             r.AllowRebaseUpdate,
		DefaultDeleteBranchAfterMerge: r.DefaultDeleteBranchAfterMerge,
		DefaultMergeStyle:             r.DefaultMergeStyle,
		DefaultAllowMaintainerEdit:    r.DefaultAllowMaintainerEdit,
		Internal:                      !r.IsPrivate && r.Owner.Visibility != store.VisibilityPublic,
		MirrorUpdated:                 timestamppb.New(time.Time{}),
		Topics:                        r.Topics,
	}
	if r.HasIssues {
		out.InternalTracker = &reposv1.InternalTracker{EnableTimeTracker: !v.NoTimeTracker,
			AllowOnlyContributorsToTrackTime: !v.AnyoneTracksTime, EnableIssueDependencies: true}
	}
	return out
}

// MirrorState fills the mirror fields of a rendered repository.
func MirrorState(out *reposv1.Repository, interval time.Duration, updated int64) {
	out.MirrorInterval = interval.String()
	if updated > 0 {
		out.MirrorUpdated = timestamppb.New(time.Unix(updated, 0))
	} else {
		out.MirrorUpdated = epoch
	}
}

// permission is Gitea's: admin from the caller's access to the
// repository, push and pull from its access to the code unit (a team
// with only the issues unit reads the repository but does not pull).
func permission(r *access.Repo) *reposv1.Permission {
	code := r.UnitMode(auth.UnitCode)
	return &reposv1.Permission{Admin: r.Mode >= store.AccessAdmin, Push: code >= store.AccessWrite, Pull: code >= store.AccessRead}
}

// Details renders d as seen by viewer: the repository, its release
// counter, for a pull mirror its interval and last sync, and for a fork
// its parent.
func (v Renderer) Details(d Details, viewer *auth.Principal) *reposv1.Repository {
	out := v.Repository(d.Repo, viewer)
	out.ReleaseCounter = d.Releases
	if d.Mirror != nil {
		MirrorState(out, mirrorInterval(d.Mirror), d.Mirror.UpdatedUnix)
	}
	if t := d.Transfer; t != nil {
		out.RepoTransfer = &reposv1.RepoTransfer{Doer: v.Users.User(t.Doer, viewer), Recipient: v.Users.User(t.Recipient, viewer)}
	}
	if d.Parent != nil {
		parent := *d.Parent
		parent.Parent = nil // one level, as Gitea
		out.Parent = v.Details(parent, viewer)
	}
	return out
}
