// Package users serves forge.users.v1.UserService and renders accounts as
// Gitea's User object for every service that embeds one.
package users

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	usersv1 "forge/gen/forge/users/v1"
	"forge/services/auth"
	"forge/services/store"
)

// Renderer turns stored users into API objects; it knows ROOT_URL and the
// no-reply domain.
type Renderer struct {
	RootURL string
	Domain  string
	// Counts reads the follow and star counts of user lists (FillCounts);
	// nil leaves them 0.
	Counts SocialCounter
	// Gravatar makes avatar URLs Gravatar's ([picture] DISABLE_GRAVATAR
	// off); otherwise they are forge's own.
	Gravatar bool
}

// AvatarURL is the avatar_url of an account, as Gitea renders one without
// an uploaded avatar: with Gravatar on, Gravatar's URL for the MD5 of the
// lower-cased address (Gitea's default avatar for an account without
// one); otherwise forge's avatars/<name>.
func (r Renderer) AvatarURL(u *store.User) string {
	if !r.Gravatar {
		return r.RootURL + "avatars/" + u.LowerName
	}
	email := strings.ToLower(strings.TrimSpace(u.Email))
	if email == "" {
		return r.RootURL + "assets/img/avatar_default.png"
	}
	sum := md5.Sum([]byte(email))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon"
}

// SocialCounter reads follow and star counts for a page of users at once
// (store.Store).
type SocialCounter interface {
	// SocialCountsOf: ids that name no user are absent.
	SocialCountsOf(ctx context.Context, ids []int64) (map[int64]store.SocialCounts, error)
}

// FillCounts sets the followers, following and starred counts of a
// rendered list of users, with one query for the whole list.
func (r Renderer) FillCounts(ctx context.Context, list []*usersv1.User) error {
	if r.Counts == nil || len(list) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i, u := range list {
		ids[i] = u.GetId()
	}
	counts, err := r.Counts.SocialCountsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, u := range list {
		c := counts[u.GetId()]
		u.FollowersCount, u.FollowingCount, u.StarredReposCount = c.Followers, c.Following, c.Stars
	}
	return nil
}

var (
	goZeroTime = timestamppb.New(time.Time{})
	epoch      = timestamppb.New(time.Unix(0, 0))
)

// User renders u as seen by viewer (nil: anonymous). Private fields are
// real only for the user themself and site administrators; the e-mail is a
// no-reply placeholder for anonymous viewers, and for every other viewer
// when the user keeps it private (hide_email in /user/settings).
func (r Renderer) User(u *store.User, viewer *auth.Principal) *usersv1.User {
	authed := viewer != nil && (viewer.IsAdmin() || viewer.User.ID == u.ID)
	out := &usersv1.User{
		Id:          u.ID,
		Login:       u.Name,
		Username:    u.Name,
		FullName:    u.FullName,
		Email:       u.Email,
		AvatarUrl:   r.AvatarURL(u),
		HtmlUrl:     r.RootURL + u.Name,
		Created:     timestamppb.New(time.Unix(u.CreatedUnix, 0)),
		Restricted:  u.Restricted,
		Location:    u.Location,
		Website:     u.Website,
		Description: u.Description,
		Visibility:  u.Visibility.String(),
		LastLogin:   goZeroTime,
	}
	if viewer == nil || (u.KeepEmailPrivate && !authed) {
		out.Email = strings.ToLower(u.Name) + "@noreply." + r.Domain
	}
	if authed {
		out.IsAdmin = u.IsAdmin
		out.LoginName = u.LoginName
		out.SourceId = u.LoginSource
		out.Language = u.Language
		out.Active = u.IsActive
		out.ProhibitLogin = u.ProhibitLogin
		out.LastLogin = epoch
		out.MaxRepoCreation = proto.Int32(int32(u.MaxRepoCreation))
		if u.LastLoginUnix != 0 {
			out.LastLogin = timestamppb.New(time.Unix(u.LastLoginUnix, 0))
		}
	}
	return out
}
