package git

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Move intents.
//
// A repository's directory moves with a database change (an ownership
// transfer: the record's owner and the directory <owner>/<name>.git change
// together). The move is done inside the record's transaction, before it
// commits; a process killed between the two leaves the files at the new
// place and the record at the old one. So before moving, BeginMove writes
// an intent file (Root/@forge/moves/m-<pid>-…) naming both places and the
// repository; End removes it once the transaction has settled. An intent
// that outlives its process (PendingMoves) is settled at start-up by
// whoever reads the record: the files go where the record says (Settle).

// moveLease is how long an intent of a live process is left alone; a
// transfer's transaction takes far less.
const moveLease = time.Minute

// Move is one intended move of a repository directory.
type Move struct {
	s      *Store
	file   string
	RepoID int64  `json:"repo_id"`
	Old    string `json:"old"`
	New    string `json:"new"`
}

func (s *Store) movesDir() string { return filepath.Join(s.root, internalDir, "moves") }

// BeginMove records the intent to move repository repoID's directory from
// oldPath to newPath, durably, before anything moves. It returns
// ErrInvalid for a path outside Root.
func (s *Store) BeginMove(repoID int64, oldPath, newPath string) (*Move, error) {
	if err := s.inRoot(oldPath); err != nil {
		return nil, err
	}
	if err := s.inRoot(newPath); err != nil {
		return nil, err
	}
	m := &Move{s: s, RepoID: repoID, Old: oldPath, New: newPath}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dir := s.movesDir()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("m-%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	m.file = f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(m.file)
		return nil, err
	}
	return m, nil
}

// Do moves the directory to the new place (Store.Rename's errors).
func (m *Move) Do() error { return m.s.Rename(m.Old, m.New) }

// Undo moves it back to the old place.
func (m *Move) Undo() error { return m.s.Rename(m.New, m.Old) }

// End forgets the intent: the record and the files agree.
func (m *Move) End() error {
	if err := os.Remove(m.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Settle puts the files where the record says (at the new place when
// atNew, else at the old one), if they are at the other, and ends the
// intent.
func (m *Move) Settle(atNew bool) error {
	want, other := m.Old, m.New
	if atNew {
		want, other = m.New, m.Old
	}
	if !m.s.Exists(want) && m.s.Exists(other) {
		if err := m.s.Rename(other, want); err != nil {
			return err
		}
	}
	return m.End()
}

// PendingMoves returns the intents whose process is gone (or that are
// older than a minute): moves a crash may have cut short.
func (s *Store) PendingMoves() ([]*Move, error) {
	if err := s.setup(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(s.movesDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Move
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, "m-")
		if !ok {
			continue
		}
		pid, _ := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		info, err := e.Info()
		if err != nil {
			continue // ended meanwhile
		}
		if processAlive(pid) && time.Since(info.ModTime()) < moveLease {
			continue // in flight
		}
		file := filepath.Join(s.movesDir(), name)
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		m := &Move{s: s, file: file}
		if json.Unmarshal(data, m) != nil || s.inRoot(m.Old) != nil || s.inRoot(m.New) != nil {
			os.Remove(file) // torn before it was synced: nothing moved
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// syncDir makes a directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Path is the store's RepoPath of owner/name.
func (m *Move) Path(owner, name string) (string, error) { return m.s.RepoPath(owner, name) }
