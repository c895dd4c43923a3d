package code

import (
	"net/url"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	commitsv1 "forge/gen/forge/commits/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	"forge/services/git"
	"forge/services/users"
)

// Renderer turns git objects into Gitea's API objects; it knows ROOT_URL.
type Renderer struct {
	RootURL string
	Users   users.Renderer
}

// RepoURLs are the API and HTML base URLs of one repository.
type RepoURLs struct {
	API  string // ROOT_URL/api/v1/repos/owner/name
	HTML string // ROOT_URL/owner/name
}

// URLs returns the base URLs of owner/name.
func (v Renderer) URLs(owner, name string) RepoURLs {
	full := owner + "/" + name
	return RepoURLs{API: v.RootURL + "api/v1/repos/" + full, HTML: v.RootURL + full}
}

func (u RepoURLs) commit(sha string) string { return u.API + "/git/commits/" + url.PathEscape(sha) }
func (u RepoURLs) tree(sha string) string   { return u.API + "/git/trees/" + url.PathEscape(sha) }
func (u RepoURLs) blob(sha string) string   { return u.API + "/git/blobs/" + url.PathEscape(sha) }
func (u RepoURLs) htmlCommit(sha string) string {
	return u.HTML + "/commit/" + url.PathEscape(sha)
}

// CommitOptions choose the optional parts of a rendered Commit. The
// commit's Files and Stats must have been read when Files or Stat is set.
type CommitOptions struct {
	Stat         bool
	Verification bool
	Files        bool
}

// goZero is how Gitea writes a time it never set.
var goZero = timestamppb.New(time.Time{})

// NotSigned is the verification of every commit: forge does not check
// signatures, so each reads as Gitea's answer for an unsigned commit.
func NotSigned() *commitsv1.PayloadCommitVerification {
	return &commitsv1.PayloadCommitVerification{Reason: "gpg.error.not_signed_commit"}
}

// Commit renders c as Gitea's Commit. who attributes it to accounts; they
// are shown as to an anonymous viewer, as Gitea does.
func (v Renderer) Commit(u RepoURLs, c *git.Commit, who Accounts, opts CommitOptions) *commitsv1.Commit {
	out := &commitsv1.Commit{
		Url:     u.commit(c.SHA),
		Sha:     c.SHA,
		Created: timestamppb.New(c.Committer.When),
		HtmlUrl: u.htmlCommit(c.SHA),
		Commit: &commitsv1.RepoCommit{
			Url:       u.commit(c.SHA),
			Author:    commitUser(c.Author, false),
			Committer: commitUser(c.Committer, false),
			Message:   c.Message,
			Tree:      &commitsv1.CommitMeta{Url: u.tree(c.Tree), Sha: c.Tree, Created: timestamppb.New(c.Committer.When)},
		},
		Parents: parents(u, c.Parents),
	}
	if a := who.lookup(c.Author.Email); a != nil {
		out.Author = v.Users.User(a, nil)
	}
	if a := who.lookup(c.Committer.Email); a != nil {
		out.Committer = v.Users.User(a, nil)
	}
	if opts.Verification {
		out.Commit.Verification = NotSigned()
	}
	if opts.Files {
		out.Files = affectedFiles(c.Files)
	}
	if opts.Stat && c.Stats != nil {
		out.Stats = &commitsv1.CommitStats{
			Total: int64(c.Stats.Total), Additions: int64(c.Stats.Additions), Deletions: int64(c.Stats.Deletions),
		}
	}
	return out
}

// affectedFiles lists files as Gitea does without rename detection: a
// rename is the old name removed and the new one added.
func affectedFiles(files []git.ChangedFile) []*commitsv1.CommitAffectedFiles {
	out := make([]*commitsv1.CommitAffectedFiles, 0, len(files))
	add := func(name, st string) {
		out = append(out, &commitsv1.CommitAffectedFiles{Filename: name, Status: st})
	}
	for _, f := range files {
		switch f.Status {
		case git.FileAdded:
			add(f.Filename, "added")
		case git.FileDeleted:
			add(f.Filename, "removed")
		case git.FileRenamed:
			add(f.PreviousFilename, "removed")
			add(f.Filename, "added")
		default:
			add(f.Filename, "modified")
		}
	}
	return out
}

func parents(u RepoURLs, shas []string) []*commitsv1.CommitMeta {
	out := make([]*commitsv1.CommitMeta, len(shas))
	for i, p := range shas {
		out[i] = &commitsv1.CommitMeta{Url: u.commit(p), Sha: p, Created: goZero}
	}
	return out
}

// commitUser renders a signature; Gitea writes the date in the commit's
// own zone in commits and in UTC in file-change responses.
func commitUser(s git.Signature, utc bool) *commitsv1.CommitUser {
	when := s.When
	if utc {
		when = when.UTC()
	}
	return &commitsv1.CommitUser{Name: s.Name, Email: s.Email, Date: when.Format(time.RFC3339)}
}

// PayloadCommit renders c as Gitea's PayloadCommit (a branch's head).
func (v Renderer) PayloadCommit(u RepoURLs, c *git.Commit, who Accounts) *commitsv1.PayloadCommit {
	return &commitsv1.PayloadCommit{
		Id:           c.SHA,
		Message:      c.Message,
		Url:          u.htmlCommit(c.SHA),
		Author:       payloadUser(c.Author, who),
		Committer:    payloadUser(c.Committer, who),
		Verification: NotSigned(),
		Timestamp:    timestamppb.New(c.Author.When),
	}
}

func payloadUser(s git.Signature, who Accounts) *commitsv1.PayloadUser {
	out := &commitsv1.PayloadUser{Name: s.Name, Email: s.Email}
	if a := who.lookup(s.Email); a != nil {
		out.Username = a.Name
	}
	return out
}

// FileCommit renders c as the commit of a file-change response.
func (v Renderer) FileCommit(u RepoURLs, c *git.Commit) *contentsv1.FileCommitResponse {
	return &contentsv1.FileCommitResponse{
		Url:       u.commit(c.SHA),
		Sha:       c.SHA,
		Created:   goZero,
		HtmlUrl:   u.htmlCommit(c.SHA),
		Author:    commitUser(c.Author, true),
		Committer: commitUser(c.Committer, true),
		Parents:   parents(u, c.Parents),
		Message:   c.Message,
		Tree:      &commitsv1.CommitMeta{Url: u.tree(c.Tree), Sha: c.Tree, Created: goZero},
	}
}

// pathEscape escapes each segment of a slash-separated path.
func pathEscape(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
