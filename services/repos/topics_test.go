package repos

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// topicStore keeps one repository's topics in memory, applying the change
// as the store does (sorted, once).
type topicStore struct {
	Store
	topics []string
	calls  int
}

func (f *topicStore) UpdateRepoTopics(_ context.Context, _ int64, change func([]string) ([]string, error)) error {
	f.calls++
	next, err := change(slices.Clone(f.topics))
	if err != nil {
		return err
	}
	slices.Sort(next)
	f.topics = slices.Compact(next)
	return nil
}

func TestSanitizeTopics(t *testing.T) {
	valid, invalid := sanitizeTopics([]string{" Go ", "go", "", "a.b-c", "-x", "x_y", strings.Repeat("a", 35), strings.Repeat("b", 36), "ÄÖ"})
	if want := []string{"go", "a.b-c", strings.Repeat("a", 35)}; !slices.Equal(valid, want) {
		t.Errorf("valid %q, want %q", valid, want)
	}
	if want := []string{"-x", "x_y", strings.Repeat("b", 36), "äö"}; !slices.Equal(invalid, want) {
		t.Errorf("invalid %q, want %q", invalid, want)
	}
	if valid, invalid := sanitizeTopics(nil); valid == nil || invalid == nil {
		t.Error("no names must give empty lists, not nil (JSON [])")
	}
}

// fieldsOf is the body fields of err, a domain error of kind Invalid.
func fieldsOf(t *testing.T, err error, msg string) map[string]any {
	t.Helper()
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.Invalid || e.Message != msg {
		t.Fatalf("error %v, want Invalid %q", err, msg)
	}
	return e.Fields
}

func TestTopicRules(t *testing.T) {
	ctx := context.Background()
	st := &topicStore{}
	svc := &Service{store: st}
	repo := &access.Repo{Repository: &store.Repository{ID: 1}}

	// More than 25 valid names is refused before the invalid ones are named.
	var many []string
	for i := range 26 {
		many = append(many, fmt.Sprintf("t%02d", i))
	}
	err := svc.SetTopics(ctx, repo, append(many, "-bad"))
	if f := fieldsOf(t, err, "Exceeding maximum number of topics per repo"); !reflect.DeepEqual(f, map[string]any{"invalidTopics": nil}) {
		t.Fatalf("fields %v", f)
	}
	// A list longer than any real one is refused before it is sorted out.
	huge := make([]string, maxTopicNames+1)
	for i := range huge {
		huge[i] = fmt.Sprintf("n%d", i)
	}
	err = svc.SetTopics(ctx, repo, huge)
	if f := fieldsOf(t, err, "Exceeding maximum number of topics per repo"); !reflect.DeepEqual(f, map[string]any{"invalidTopics": nil}) {
		t.Fatalf("a list of %d names: fields %v", len(huge), f)
	}
	err = svc.SetTopics(ctx, repo, []string{"ok", "Not OK", "-bad"})
	if f := fieldsOf(t, err, "Topic names are invalid"); !reflect.DeepEqual(f, map[string]any{"invalidTopics": []string{"not ok", "-bad"}}) {
		t.Fatalf("fields %v", f)
	}
	if st.calls != 0 {
		t.Fatal("a refused list reached the store")
	}
	if err := svc.SetTopics(ctx, repo, many[:25]); err != nil {
		t.Fatal(err)
	}

	// At 25, nothing is added, not even a topic the repository has.
	for _, name := range []string{"new", "t00"} {
		if err := svc.AddTopic(ctx, repo, name); !errors.Is(err, errTopicLimit) {
			t.Fatalf("add %s at the limit: %v", name, err)
		}
	}
	err = svc.AddTopic(ctx, repo, "Bad Name")
	if f := fieldsOf(t, err, "Topic name is invalid"); !reflect.DeepEqual(f, map[string]any{"invalidTopics": "bad name"}) {
		t.Fatalf("fields %v", f)
	}
	if err := svc.DeleteTopic(ctx, repo, " T00 "); err != nil || len(st.topics) != 24 || slices.Contains(st.topics, "t00") {
		t.Fatalf("delete: %v, %q", err, st.topics)
	}
	if err := svc.DeleteTopic(ctx, repo, "t00"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("delete a topic it does not have: %v", err)
	}
	if err := svc.AddTopic(ctx, repo, "New"); err != nil || !slices.Contains(st.topics, "new") {
		t.Fatalf("add under the limit: %v, %q", err, st.topics)
	}

	// The list pages the repository's own copy.
	repo.Topics = store.TopicNames{"a", "b", "c"}
	if names, total := svc.Topics(repo, 2, 2); !slices.Equal(names, []string{"c"}) || total != 3 {
		t.Fatalf("page: %q of %d", names, total)
	}
	if names, total := svc.Topics(repo, 4, 2); names == nil || len(names) != 0 || total != 3 {
		t.Fatalf("past the end: %q of %d", names, total)
	}
}
