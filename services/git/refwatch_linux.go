package git

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// The ref watch tells a cache of answers read from git whether any ref
// may have moved since it last looked, in any process: every ref
// transaction of a git process forge runs creates an entry in the journal
// directory before the refs move and renames it once they have (journal.go),
// and the kernel queues an inotify event for each before the call that
// made it returns. So once a ref has moved, an event for its transaction is
// already queued; RefMoves reads what is queued (one read that finds
// nothing, when nothing happened) and counts it.
type refWatch struct {
	once  sync.Once
	fd    int // inotify descriptor; -1: none (the watch could not be set)
	mu    sync.Mutex
	moves uint64
	buf   [4096]byte
}

// RefMoves returns a number that changes whenever a ref of any repository
// under the root may have moved since the last call returned: equal
// numbers mean no ref moved in between (apart from a transaction in flight
// at the first call, which its second journal event then reports). ok is
// false where there is no watch (another platform, inotify refused), and
// then nothing read from git may be replayed.
func (s *Store) RefMoves() (n uint64, ok bool) {
	w := &s.refWatch
	w.once.Do(func() {
		w.fd = -1
		if s.setup() != nil {
			return
		}
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			return
		}
		const events = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE |
			unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
		if _, err := unix.InotifyAddWatch(fd, s.journalDir, events); err != nil {
			unix.Close(fd)
			return
		}
		w.fd = fd
	})
	if w.fd < 0 {
		return 0, false
	}
	// One reader at a time, and the count raised before anyone else may
	// read it: a caller must not see the old count once another caller has
	// taken the events off the queue.
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if n > 0 {
			w.moves++
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			return 0, false
		}
		return w.moves, true
	}
}
