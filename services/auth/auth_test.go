package auth

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScopes(t *testing.T) {
	cases := []struct {
		in   []string
		want string
		err  bool
	}{
		{[]string{"read:user"}, "read:user", false},
		{[]string{"read:user", "write:user"}, "write:user", false},
		{[]string{"write:repository,read:issue", "public-only"}, "public-only,read:issue,write:repository", false},
		{[]string{"all"}, "all", false},
		{[]string{"write:activitypub", "write:admin", "write:misc", "write:notification", "write:organization",
			"write:package", "write:issue", "write:repository", "write:user"}, "all", false},
		{[]string{""}, "", false},
		{nil, "", false},
		{[]string{"read:nothing"}, "", true},
		{[]string{"delete:user"}, "", true},
	}
	for _, c := range cases {
		s, err := ParseScopes(c.in)
		if (err != nil) != c.err {
			t.Errorf("%v: error %v", c.in, err)
			continue
		}
		if err == nil && s.String() != c.want {
			t.Errorf("%v: normalised %q, want %q", c.in, s.String(), c.want)
		}
	}
	s, _ := ParseScopes([]string{"write:issue", "read:repository"})
	if !s.Has(CategoryIssue, LevelRead) || !s.Has(CategoryIssue, LevelWrite) || !s.Has(CategoryRepository, LevelRead) ||
		s.Has(CategoryRepository, LevelWrite) || s.Has(CategoryUser, LevelRead) {
		t.Errorf("Has: %v", s)
	}
}

func TestPasswordHash(t *testing.T) {
	h := HashPassword("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q", h)
	}
	if h == HashPassword("correct horse") {
		t.Fatal("hashes are not salted")
	}
	if !CheckPassword(h, "correct horse") || CheckPassword(h, "correct horsE") || CheckPassword("garbage", "x") {
		t.Fatal("CheckPassword")
	}
}

func TestTokens(t *testing.T) {
	plain, hash := NewToken()
	if !LooksLikeToken(plain) || HashToken(plain) != hash || len(hash) != 64 || strings.Contains(hash, plain) {
		t.Fatalf("token %q hash %q", plain, hash)
	}
	if LooksLikeToken(strings.ToUpper(plain)) || LooksLikeToken(plain[:39]) {
		t.Fatal("LooksLikeToken accepts bad shapes")
	}
}

type fakeUsageStore struct {
	mu      sync.Mutex
	batches []map[int64]int64
}

func (f *fakeUsageStore) TouchAccessTokens(_ context.Context, used map[int64]int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(used) > 0 {
		f.batches = append(f.batches, used)
	}
	return nil
}

// TestUsageRecorderCoalesces: many uses of a token cost one write.
func TestUsageRecorderCoalesces(t *testing.T) {
	st := &fakeUsageStore{}
	r := NewUsageRecorder(st, time.Hour)
	for i := 0; i < 1000; i++ {
		r.Record(7)
		r.Record(8)
	}
	if len(st.batches) != 0 {
		t.Fatal("recording wrote to the store")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if len(st.batches) != 1 || len(st.batches[0]) != 2 || st.batches[0][7] == 0 {
		t.Fatalf("batches %v, want one with tokens 7 and 8", st.batches)
	}
}
