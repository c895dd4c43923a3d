//go:build !linux

package git

type refWatch struct{}

// RefMoves has no watch on this platform: nothing read from git is
// replayed (refwatch_linux.go).
func (s *Store) RefMoves() (uint64, bool) { return 0, false }
