package releases

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	releasesv1 "forge/gen/forge/releases/v1"
	"forge/services/access"
	"forge/services/attachments"
	"forge/services/git"
	"forge/services/store"
	"forge/services/users"
)

// view renders releases and tags.
type view struct {
	root  string // ROOT_URL, ends with "/"
	users users.Renderer
}

// ghost stands in for a publisher whose account is gone, as in Gitea.
var ghost = &store.User{ID: -1, Name: "Ghost", LowerName: "ghost"}

// release renders rel of r with its assets. The publisher is rendered as
// for an anonymous viewer, as Gitea does.
func (v view) release(r *access.Repo, rel *store.Release, publisher *store.User, assets []store.Attachment) *releasesv1.Release {
	if publisher == nil {
		publisher = ghost
	}
	full := r.Owner.Name + "/" + r.Name
	api := v.root + "api/v1/repos/" + full + "/releases/" + itoa(rel.ID)
	html := v.root + full
	tag := escapeSegments(rel.TagName)
	created := timestamppb.New(time.Unix(rel.CreatedUnix, 0))
	return &releasesv1.Release{
		Id:              rel.ID,
		TagName:         rel.TagName,
		TargetCommitish: rel.Target,
		Name:            rel.Title,
		Body:            rel.Note,
		Url:             api,
		HtmlUrl:         html + "/releases/tag/" + tag,
		TarballUrl:      html + "/archive/" + tag + ".tar.gz",
		ZipballUrl:      html + "/archive/" + tag + ".zip",
		UploadUrl:       api + "/assets",
		Draft:           rel.IsDraft,
		Prerelease:      rel.IsPrerelease,
		CreatedAt:       created,
		PublishedAt:     created,
		Author:          v.users.User(publisher, nil),
		Assets:          attachments.Views(v.root, assets),
	}
}

// tag renders a git tag as Gitea does: the message trimmed, id the tag
// object (annotated) or commit (lightweight), commit.url built from that
// id, commit.created the tagger's (or, lightweight, committer's) time.
func (v view) tag(r *access.Repo, t git.Tag) *releasesv1.Tag {
	full := r.Owner.Name + "/" + r.Name
	html := v.root + full + "/archive/" + escapeSegments(t.Name)
	return &releasesv1.Tag{
		Name:    t.Name,
		Message: strings.TrimSpace(t.Message),
		Id:      t.ID(),
		Commit: &releasesv1.CommitMeta{
			Url:     v.root + "api/v1/repos/" + full + "/git/commits/" + t.ID(),
			Sha:     t.CommitSHA,
			Created: timestamppb.New(t.Tagger.When),
		},
		ZipballUrl: html + ".zip",
		TarballUrl: html + ".tar.gz",
	}
}

// escapeSegments escapes each /-separated segment of a ref name for a URL
// path.
func escapeSegments(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
