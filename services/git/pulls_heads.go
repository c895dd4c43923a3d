package git

import (
	"context"
	"sort"
	"strconv"
	"strings"
)

// SetPullHeads points the refs/pull/<index>/head of several pull requests
// of the repository at path at their new commits, in one git process and
// one ref transaction (all or none).
func (s *Store) SetPullHeads(ctx context.Context, path string, heads map[int64]string) error {
	return s.updatePullHeads(ctx, path, "update", heads)
}

// PullHeads returns the refs/pull/<index>/head refs of the repository at
// path and their commits, by index (one git process); refs under
// refs/pull/ of another shape are left out.
func (s *Store) PullHeads(ctx context.Context, path string) (map[int64]string, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	out, err := s.output(ctx, path, "for-each-ref", "--format=%(objectname) %(refname)", "refs/pull/")
	if err != nil {
		return nil, err
	}
	heads := map[int64]string{}
	for _, line := range strings.Split(string(out), "\n") {
		sha, ref, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(strings.TrimPrefix(ref, "refs/pull/"), "/head")
		if !ok {
			continue
		}
		index, err := strconv.ParseInt(num, 10, 64)
		if err != nil || index <= 0 || PullHeadRef(index) != ref {
			continue
		}
		heads[index] = sha
	}
	return heads, nil
}

// DropPullHeads removes refs/pull/<index>/head of each index whose ref
// still points at the commit heads gives, in one git process and one ref
// transaction (all or none).
func (s *Store) DropPullHeads(ctx context.Context, path string, heads map[int64]string) error {
	return s.updatePullHeads(ctx, path, "delete", heads)
}

// updatePullHeads runs one update-ref --stdin transaction of verb
// ("update": point at the commit; "delete": only if it still points
// there) for each pull request head, in index order.
func (s *Store) updatePullHeads(ctx context.Context, path, verb string, heads map[int64]string) error {
	if len(heads) == 0 {
		return nil
	}
	if err := s.checkRepo(path); err != nil {
		return err
	}
	indexes := make([]int64, 0, len(heads))
	for index, sha := range heads {
		if !validSHA(sha) {
			return invalidf("pull request head %q", sha)
		}
		indexes = append(indexes, index)
	}
	sort.Slice(indexes, func(i, j int) bool { return indexes[i] < indexes[j] })
	var in strings.Builder
	for _, index := range indexes {
		in.WriteString(verb + " " + PullHeadRef(index) + " " + heads[index] + "\n")
	}
	_, err := s.outputIn(ctx, path, strings.NewReader(in.String()), nil, "update-ref", "--stdin")
	return err
}
