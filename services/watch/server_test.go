package watch_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	watchv1 "forge/gen/forge/watch/v1"
	"forge/services/access"
	"forge/services/access/accesstest"
	"forge/services/area"
	"forge/services/auth"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/rpcerr"
	"forge/services/store"
	"forge/services/store/storetest"
	"forge/services/users"
	"forge/services/watch"
)

const root = "http://forge.test/"

func TestWatchService(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		user := func(name string, scopes ...string) (*store.User, context.Context) {
			u := &store.User{Name: name, Email: name + "@x.org", IsActive: true}
			if err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
			p := &auth.Principal{User: u}
			if scopes != nil {
				sc, err := auth.ParseScopes(scopes)
				if err != nil {
					t.Fatal(err)
				}
				p.Token, p.Scopes = &store.AccessToken{UID: u.ID}, sc
			}
			return u, auth.NewContext(ctx, p)
		}
		owner, ownerCtx := user("owner")
		bob, bobCtx := user("bob")
		_, bobPublicOnly := user("bob2", "public-only", "all")
		mkRepo := func(name string, private bool) *store.Repository {
			r := &store.Repository{OwnerID: owner.ID, OwnerName: owner.Name, Name: name, IsPrivate: private, DefaultBranch: "main"}
			if err := s.CreateRepository(ctx, r, owner.ID); err != nil {
				t.Fatal(err)
			}
			return r
		}
		pub := mkRepo("pub", false)
		secret := mkRepo("secret", true)
		render := repos.Renderer{RootURL: root, Users: users.Renderer{RootURL: root, Domain: "forge.test"}}
		checker := access.NewChecker(s)
		pols, err := area.Policies([]area.Area{watch.Area})
		if err != nil {
			t.Fatal(err)
		}
		ch := accesstest.Channel(checker, pols)
		watchv1.RegisterWatchServiceServer(ch, watch.NewServer(s, checker, render, paging.Limits{Default: 30, Max: 50}))
		srv := watchv1.NewWatchServiceClient(ch)

		get := func(c context.Context, repo string) (*watchv1.WatchInfo, error) {
			resp, err := srv.GetSubscription(c, &watchv1.GetSubscriptionRequest{Owner: "owner", Repo: repo})
			return resp.GetSubscription(), err
		}
		if _, err := get(bobCtx, "pub"); status.Code(rpcerr.Status(err)) != codes.NotFound {
			t.Fatalf("not watching: %v", err)
		}
		// The creator auto-watches; created_at is the repository's.
		info, err := get(ownerCtx, "pub")
		if err != nil {
			t.Fatal(err)
		}
		if !info.GetSubscribed() || info.GetIgnored() || info.Reason != nil ||
			!info.GetCreatedAt().AsTime().Equal(time.Unix(pub.CreatedUnix, 0)) ||
			info.GetUrl() != root+"api/v1/repos/owner/pub/subscription" || info.GetRepositoryUrl() != root+"api/v1/repos/owner/pub" {
			t.Fatalf("watch info: %+v", info)
		}
		for range 2 {
			if _, err := srv.Watch(bobCtx, &watchv1.WatchRequest{Owner: "owner", Repo: "pub"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := get(bobCtx, "pub"); err != nil {
			t.Fatalf("watching: %v", err)
		}
		if r, _ := s.RepositoryByID(ctx, pub.ID); r.NumWatches != 2 {
			t.Fatalf("num_watches %d, want 2", r.NumWatches)
		}
		// An invisible repository is NotFound, watched or not.
		if _, err := srv.Watch(bobCtx, &watchv1.WatchRequest{Owner: "owner", Repo: "secret"}); status.Code(rpcerr.Status(err)) != codes.NotFound {
			t.Fatalf("watch invisible repo: %v", err)
		}

		subs, err := srv.ListSubscribers(ctx, &watchv1.ListSubscribersRequest{Owner: "owner", Repo: "pub"})
		if err != nil || subs.GetTotalCount() != 2 || len(subs.GetUsers()) != 2 || subs.GetUsers()[1].GetLogin() != "bob" {
			t.Fatalf("subscribers: %v %v", subs, err)
		}
		if _, err := srv.ListSubscribers(ctx, &watchv1.ListSubscribersRequest{Owner: "owner", Repo: "secret"}); status.Code(rpcerr.Status(err)) != codes.NotFound {
			t.Fatalf("subscribers of an invisible repo: %v", err)
		}

		// Bob watches the private repository while a collaborator, then
		// loses access: it drops out of his list.
		s.SetCollaborator(ctx, secret.ID, bob.ID, store.AccessRead)
		if _, err := srv.Watch(bobCtx, &watchv1.WatchRequest{Owner: "owner", Repo: "secret"}); err != nil {
			t.Fatal(err)
		}
		mine := func(c context.Context) []string {
			t.Helper()
			resp, err := srv.ListMySubscriptions(c, &watchv1.ListMySubscriptionsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range resp.GetRepositories() {
				out = append(out, r.GetFullName())
				if r.GetPermissions() == nil || !r.GetPermissions().GetPull() {
					t.Fatalf("permissions of %s: %v", r.GetFullName(), r.GetPermissions())
				}
			}
			if int(resp.GetTotalCount()) != len(out) {
				t.Fatalf("total %d for %v", resp.GetTotalCount(), out)
			}
			return out
		}
		if got := mine(bobCtx); len(got) != 2 {
			t.Fatalf("bob's subscriptions: %v", got)
		}
		s.DeleteCollaborator(ctx, secret.ID, bob.ID)
		if got := mine(bobCtx); len(got) != 1 || got[0] != "owner/pub" {
			t.Fatalf("after losing access: %v", got)
		}
		if got := mine(ownerCtx); len(got) != 2 {
			t.Fatalf("owner's subscriptions: %v", got)
		}
		// Another user's list, as anonymous and as a public-only token.
		other, err := srv.ListUserSubscriptions(ctx, &watchv1.ListUserSubscriptionsRequest{Username: "owner"})
		if err != nil || other.GetTotalCount() != 1 || other.GetRepositories()[0].GetName() != "pub" {
			t.Fatalf("owner's list seen anonymously: %v %v", other, err)
		}
		other, _ = srv.ListUserSubscriptions(bobPublicOnly, &watchv1.ListUserSubscriptionsRequest{Username: "owner"})
		if other.GetTotalCount() != 1 {
			t.Fatalf("public-only token sees %d", other.GetTotalCount())
		}

		for range 2 {
			if _, err := srv.Unwatch(bobCtx, &watchv1.UnwatchRequest{Owner: "owner", Repo: "pub"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := get(bobCtx, "pub"); status.Code(rpcerr.Status(err)) != codes.NotFound {
			t.Fatalf("after unwatch: %v", err)
		}
		if r, _ := s.RepositoryByID(ctx, pub.ID); r.NumWatches != 1 {
			t.Fatalf("num_watches %d, want 1", r.NumWatches)
		}
	})
}
