package auth

import (
	"context"
	"errors"
	"testing"

	"forge/services/config"
	"forge/services/errs"
	"forge/services/store"
)

type externalStore struct{ users map[string]*store.User }

func (s *externalStore) AccessTokenByHash(context.Context, string) (*store.AccessToken, *store.User, error) {
	return nil, nil, store.ErrNotFound
}
func (s *externalStore) AuthGeneration(context.Context) (store.Generation, error) {
	return store.Generation{}, nil
}
func (s *externalStore) UserByName(_ context.Context, name string) (*store.User, error) {
	if u, ok := s.users[name]; ok {
		return u, nil
	}
	return nil, store.ErrNotFound
}
func (s *externalStore) ClaimTOTPStep(context.Context, int64, int64) (bool, error) { return true, nil }

// fakeSource accepts "right" and is down when down is set.
type fakeSource struct {
	down     bool
	verified []string
	created  []string
}

func (f *fakeSource) Verify(_ context.Context, u *store.User, pw string) (*store.User, error) {
	f.verified = append(f.verified, u.Name)
	switch {
	case f.down:
		return nil, errs.New(errs.Unavailable, "down")
	case pw != "right":
		return nil, errs.New(errs.Unauthenticated, "bad")
	}
	v := *u
	v.IsAdmin = true // the directory's admin filter
	return &v, nil
}

func (f *fakeSource) SignInNew(_ context.Context, login, pw string) (*store.User, error) {
	if f.down || pw != "right" {
		return nil, errs.New(errs.Unauthenticated, "bad")
	}
	f.created = append(f.created, login)
	return &store.User{ID: 99, Name: login, LoginSource: 1, LoginName: login, IsActive: true}, nil
}

// TestExternalSignIn: users of a login source are judged by it, never by
// a hash; a source that is down refuses with errSourceDown without
// spending the failure allowance; unknown names go to SignInNew.
func TestExternalSignIn(t *testing.T) {
	cfg := config.Default()
	cfg.Security.LoginMaxFailuresPerAccount = 3
	cfg.Security.LoginMaxFailuresPerAddress = 0
	st := &externalStore{users: map[string]*store.User{
		"dora":  {ID: 1, Name: "dora", LoginSource: 1, LoginName: "dora", IsActive: true},
		"local": {ID: 2, Name: "local", PasswdHash: HashPassword("right"), IsActive: true},
		"nopw":  {ID: 3, Name: "nopw", IsActive: true},
	}}
	src := &fakeSource{}
	a := NewAuthenticator(cfg, st, nil, nil, nil).WithExternal(src)
	ctx := context.Background()

	p, err := a.byPassword(ctx, "dora", "right", otpCode{}, nil)
	if err != nil || p.User.Name != "dora" || !p.User.IsAdmin || p.Method != MethodBasicPassword {
		t.Fatalf("dora: %+v %v", p, err)
	}
	if _, err := a.byPassword(ctx, "local", "right", otpCode{}, nil); err != nil {
		t.Fatalf("local user: %v", err)
	}
	if len(src.verified) != 1 {
		t.Fatalf("the source judged %v", src.verified)
	}
	if _, err := a.byPassword(ctx, "nopw", "", otpCode{}, nil); !errors.Is(err, errBadPassword) {
		t.Fatalf("local user without password: %v", err)
	}

	// Down: 401 errSourceDown, as often as it is tried.
	src.down = true
	for i := 0; i < 5; i++ {
		if _, err := a.byPassword(ctx, "dora", "right", otpCode{}, nil); !errors.Is(err, errSourceDown) {
			t.Fatalf("down %d: %v", i, err)
		}
	}
	src.down = false
	if _, err := a.byPassword(ctx, "dora", "right", otpCode{}, nil); err != nil {
		t.Fatalf("the directory back: %v", err)
	}
	// Wrong passwords spend the allowance.
	for i := 0; i < 3; i++ {
		if _, err := a.byPassword(ctx, "dora", "wrong", otpCode{}, nil); !errors.Is(err, errBadPassword) {
			t.Fatalf("wrong %d: %v", i, err)
		}
	}
	if _, err := a.byPassword(ctx, "dora", "right", otpCode{}, nil); errs.KindOf(err) != errs.ResourceExhausted {
		t.Fatalf("after the allowance: %v", err)
	}

	p, err = a.byPassword(ctx, "newbie", "right", otpCode{}, nil)
	if err != nil || p.User.Name != "newbie" || len(src.created) != 1 {
		t.Fatalf("first sign-in: %+v %v %v", p, err, src.created)
	}
	if _, err := a.byPassword(ctx, "stranger", "wrong", otpCode{}, nil); !errors.Is(err, errBadPassword) {
		t.Fatalf("unknown name: %v", err)
	}

	// Without sources, a source's user cannot sign in at all.
	b := NewAuthenticator(cfg, st, nil, nil, nil)
	if _, err := b.byPassword(ctx, "local", "x", otpCode{}, nil); !errors.Is(err, errBadPassword) {
		t.Fatal(err)
	}
	st.users["dora"].PasswdHash = HashPassword("right") // left over from before the source
	if _, err := b.byPassword(ctx, "dora", "right", otpCode{}, nil); !errors.Is(err, errBadPassword) {
		t.Fatalf("a source's user signed in by a hash: %v", err)
	}
}
