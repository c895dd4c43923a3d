package repos

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"forge/services/access"
	"forge/services/errs"
	"forge/services/store"
)

// Gitea's topic rules: a name is trimmed and lower-cased, then has at most
// 35 characters of the pattern; a repository carries at most 25.
const (
	maxTopicsPerRepo = 25
	maxTopicLength   = 35
	// maxTopicNames bounds the names one request may send, so that
	// sorting them out costs nothing a client could inflate; any list this
	// long holds more than 25 distinct names or is padding.
	maxTopicNames = 1000
)

var topicPattern = regexp.MustCompile(`^[a-z0-9][-.a-z0-9]*$`)

// The 422 answers of Gitea's topic endpoints, each with its own message
// and "invalidTopics" member (a list, null, or the one name).
var (
	errTooManyTopics   = errs.New(errs.Invalid, "Exceeding maximum number of topics per repo")
	errTopicLimit      = errs.New(errs.Invalid, "Exceeding maximum allowed topics per repo.")
	errInvalidTopics   = errs.New(errs.Invalid, "Topic names are invalid")
	errInvalidTopic    = errs.New(errs.Invalid, "Topic name is invalid")
	errTopicNotPresent = errs.New(errs.NotFound, "") // Gitea's bare not-found
)

// normalTopic is a topic name as stored: trimmed and lower-cased.
func normalTopic(name string) string { return strings.TrimSpace(strings.ToLower(name)) }

// validTopic reports whether a normalised name follows Gitea's rules.
func validTopic(name string) bool {
	return len(name) <= maxTopicLength && topicPattern.MatchString(name)
}

// sanitizeTopics normalises names and splits them, in their order, into
// the valid ones (each once) and the invalid ones; empty names are
// dropped, as Gitea does.
func sanitizeTopics(names []string) (valid, invalid []string) {
	valid, invalid = []string{}, []string{}
	seen := map[string]bool{}
	for _, n := range names {
		n = normalTopic(n)
		switch {
		case n == "" || seen[n]:
		case validTopic(n):
			seen[n] = true
			valid = append(valid, n)
		default:
			invalid = append(invalid, n)
		}
	}
	return valid, invalid
}

// Topics is a page of r's topic names, sorted, and how many it has. They
// are read from the repository the request resolved.
func (s *Service) Topics(r *access.Repo, offset, limit int) ([]string, int64) {
	all := r.Topics
	total := int64(len(all))
	if offset >= len(all) {
		return []string{}, total
	}
	return all[offset:min(offset+limit, len(all))], total
}

// SetTopics replaces r's topics with names (PUT .../topics): more than 25
// valid names, or any invalid one, is refused with Gitea's 422 body.
func (s *Service) SetTopics(ctx context.Context, r *access.Repo, names []string) error {
	if len(names) > maxTopicNames {
		return errTooManyTopics.WithFields(map[string]any{"invalidTopics": nil})
	}
	valid, invalid := sanitizeTopics(names)
	if len(valid) > maxTopicsPerRepo {
		return errTooManyTopics.WithFields(map[string]any{"invalidTopics": nil})
	}
	if len(invalid) > 0 {
		return errInvalidTopics.WithFields(map[string]any{"invalidTopics": invalid})
	}
	return s.store.UpdateRepoTopics(ctx, r.ID, func([]string) ([]string, error) { return valid, nil })
}

// AddTopic adds name to r's topics (PUT .../topics/{topic}); a topic r
// has already is a no-op. As in Gitea, a repository holding 25 topics
// refuses, even that one.
func (s *Service) AddTopic(ctx context.Context, r *access.Repo, name string) error {
	name = normalTopic(name)
	if !validTopic(name) {
		return errInvalidTopic.WithFields(map[string]any{"invalidTopics": name})
	}
	return s.store.UpdateRepoTopics(ctx, r.ID, func(current []string) ([]string, error) {
		if len(current) >= maxTopicsPerRepo {
			return nil, errTopicLimit
		}
		return append(current, name), nil
	})
}

// DeleteTopic removes name from r's topics (DELETE .../topics/{topic});
// NotFound when r does not have it.
func (s *Service) DeleteTopic(ctx context.Context, r *access.Repo, name string) error {
	name = normalTopic(name)
	if !validTopic(name) {
		return errInvalidTopic.WithFields(map[string]any{"invalidTopics": name})
	}
	return s.store.UpdateRepoTopics(ctx, r.ID, func(current []string) ([]string, error) {
		i := slices.Index(current, name)
		if i < 0 {
			return nil, errTopicNotPresent
		}
		return slices.Delete(current, i, i+1), nil
	})
}

// SearchTopics is a page of the topics whose name contains keyword, the
// most used first (GET /topics/search), and how many match.
func (s *Service) SearchTopics(ctx context.Context, keyword string, offset, limit int) ([]store.Topic, int64, error) {
	return s.store.SearchTopics(ctx, keyword, offset, limit)
}
