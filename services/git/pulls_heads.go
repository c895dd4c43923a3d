package git

import (
	"context"
	"sort"
	"strings"
)

// SetPullHeads points the refs/pull/<index>/head of several pull requests
// of the repository at path at their new commits, in one git process and
// one ref transaction (all or none).
func (s *Store) SetPullHeads(ctx context.Context, path string, heads map[int64]string) error {
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
		in.WriteString("update " + PullHeadRef(index) + " " + heads[index] + "\n")
	}
	_, err := s.outputIn(ctx, path, strings.NewReader(in.String()), nil, "update-ref", "--stdin")
	return err
}
