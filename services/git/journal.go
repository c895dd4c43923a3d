package git

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Ref journal.
//
// Every git process forge runs uses forge's hooks directory, where a
// reference-transaction hook writes each ref transaction to the journal
// directory (Root/@forge/journal) before git moves the refs ("prepared")
// and again after ("committed"). An entry therefore exists on disk for every
// ref move whose database record may not have been written yet, whatever
// moved it (a push, an API write, a mirror fetch) and wherever the process
// was killed. The reconciler (repos.Syncer) re-reads git's current value of
// just the journaled refs, fixes the records, and only then forgets the
// entry, so the records converge to git after a crash or a failed write.
//
// Entry files hold the repository directory on the first line and git's
// "<old> <new> <ref>" lines after it:
//
//	p-<pid>          prepared by git process <pid>; renamed to c-… when committed
//	c-<pid>-<hook>   committed: the refs have moved
//	t-<pid>-<hook>   a committed entry being written (renamed to c-…)
//
// The journal is as durable as git's own loose refs (neither is fsynced by
// default), which is what a crash of forge or git needs.
const journalEnv = "FORGE_REF_JOURNAL"

// referenceTransactionHook writes the journal. A failure to write the
// prepared entry aborts the transaction (exit 1), so a ref never moves
// without an entry.
const referenceTransactionHook = `#!/bin/sh
# Installed by forge: journals ref transactions so branch records can be
# reconciled with git after a crash (services/git/journal.go). It runs
# twice for every ref transaction, so it spawns as little as it can: one
# cat when prepared, one mv when committed.
test -n "$` + journalEnv + `" || exit 0
j="$` + journalEnv + `"
pending="$j/p-$PPID"
case "$1" in
prepared)
	# Ref moves reported to forge (refreport.go): the marker exists before
	# any ref moves.
	test -z "$` + refsMovedEnv + `" || : >"$` + refsMovedEnv + `" || exit 1
	cd -P "${GIT_DIR:-.}" || exit 1
	{ echo "$PWD"; cat; } >"$pending" || exit 1
	;;
committed)
	done="$j/c-$PPID-$$"
	while test -e "$done"; do done="$done-"; done # an entry not yet reconciled
	mv -f "$pending" "$done" 2>/dev/null && exit 0
	# No prepared entry under our parent's pid (git ran us through a shell).
	cd -P "${GIT_DIR:-.}" || exit 0
	{ echo "$PWD"; cat; } >"$j/t-$PPID-$$" && mv -f "$j/t-$PPID-$$" "$done"
	;;
*)
	rm -f "$pending"
	;;
esac
exit 0
`

// journalLease is how long a prepared entry of a live process (or a
// half-written committed one) is kept before it is treated as settled.
const journalLease = time.Minute

// JournalEntry is one journaled ref transaction.
type JournalEntry struct {
	file      string
	Owner     string    // repository owner (lower case, as on disk); "" if outside Root
	Name      string    // repository name without .git
	Refs      []string  // full ref names
	Olds      []string  // each ref's value before the transaction (zeros: it did not exist)
	Committed bool      // the refs have moved
	At        time.Time // when the entry was last written
	settled   bool
}

// Settled reports whether the entry's refs can no longer move: the
// transaction committed, or the git process that prepared it is gone, or
// the entry is older than journalLease. Records written after reading git
// once an entry is settled are final for its refs.
func (e JournalEntry) Settled() bool { return e.settled }

// RefJournal returns the journal's entries, oldest first. Its cost is
// proportional to the number of entries (ref transactions not yet
// reconciled), not to the number of repositories or refs.
func (s *Store) RefJournal() ([]JournalEntry, error) {
	if err := s.setup(); err != nil {
		return nil, err
	}
	dirents, err := os.ReadDir(s.journalDir)
	if err != nil {
		return nil, err
	}
	type stamped struct {
		e   JournalEntry
		mod time.Time
	}
	var list []stamped
	now := time.Now()
	for _, d := range dirents {
		info, err := d.Info()
		if err != nil {
			continue // removed meanwhile
		}
		name := d.Name()
		old := now.Sub(info.ModTime()) > journalLease
		if strings.HasPrefix(name, "t-") {
			if old { // the hook died before renaming it
				os.Remove(filepath.Join(s.journalDir, name))
			}
			continue
		}
		e, err := s.readJournalEntry(name)
		if err != nil {
			// Empty: being written, or its hook died before writing (then
			// git aborted the transaction and nothing moved).
			if pid, ok := strings.CutPrefix(name, "p-"); ok && (old || !processAlive(atoi(pid))) {
				os.Remove(filepath.Join(s.journalDir, name))
			}
			continue
		}
		switch {
		case strings.HasPrefix(name, "c-"):
			e.Committed, e.settled = true, true
		case strings.HasPrefix(name, "p-"):
			e.settled = old || !processAlive(atoi(strings.TrimPrefix(name, "p-")))
		default:
			continue
		}
		list = append(list, stamped{e, info.ModTime()})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].mod.Before(list[j].mod) })
	out := make([]JournalEntry, len(list))
	for i := range list {
		out[i] = list[i].e
		out[i].At = list[i].mod
	}
	return out, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func (s *Store) readJournalEntry(name string) (JournalEntry, error) {
	e := JournalEntry{file: name}
	f, err := os.Open(filepath.Join(s.journalDir, name))
	if err != nil {
		return e, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	if !sc.Scan() { // empty: being written; the next read sees it
		return e, errors.Join(errors.New("empty journal entry"), sc.Err())
	}
	e.Owner, e.Name = s.repoOfDir(sc.Text())
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 {
			e.Refs = append(e.Refs, fields[2])
			e.Olds = append(e.Olds, fields[0])
		}
	}
	return e, sc.Err()
}

// repoOfDir maps a repository directory to owner and name; "" when it is
// not a repository under Root (a scratch clone, forge's own files).
func (s *Store) repoOfDir(dir string) (owner, name string) {
	rel, err := filepath.Rel(s.realRoot, filepath.Clean(dir))
	if err != nil {
		return "", ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 2 || !strings.HasSuffix(parts[1], ".git") {
		return "", ""
	}
	owner, name = parts[0], strings.TrimSuffix(parts[1], ".git")
	if !ValidName(owner) || !ValidName(name) {
		return "", ""
	}
	return owner, name
}

// ForgetJournalEntry removes an entry once the records match git for its
// refs. Only settled entries may be forgotten.
func (s *Store) ForgetJournalEntry(e JournalEntry) error {
	if err := os.Remove(filepath.Join(s.journalDir, e.file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
