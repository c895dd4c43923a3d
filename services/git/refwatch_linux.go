package git

import (
	"errors"
	"sync"
	"unsafe"

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
//
// The process has one inotify instance (the kernel allows 128 per user by
// default, and a test binary runs hundreds of servers), with one watch per
// journal directory; a directory removed takes its watch with it.
var inotify struct {
	once  sync.Once
	fd    int // -1: no instance
	mu    sync.Mutex
	moves map[int32]*uint64 // watch descriptor → its directory's count
	buf   [4096]byte
}

func inotifyFD() int {
	inotify.once.Do(func() {
		inotify.fd = -1
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err == nil {
			inotify.fd, inotify.moves = fd, map[int32]*uint64{}
		}
	})
	return inotify.fd
}

// refWatch is a Store's watch on its journal directory.
type refWatch struct {
	once  sync.Once
	moves *uint64 // nil: no watch
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
		fd := inotifyFD()
		if fd < 0 || s.setup() != nil {
			return
		}
		const events = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE |
			unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
		inotify.mu.Lock()
		defer inotify.mu.Unlock()
		wd, err := unix.InotifyAddWatch(fd, s.journalDir, events)
		if err != nil {
			return
		}
		// Two Stores on one root share the watch, and its count.
		c := inotify.moves[int32(wd)]
		if c == nil {
			c = new(uint64)
			inotify.moves[int32(wd)] = c
		}
		w.moves = c
	})
	if w.moves == nil {
		return 0, false
	}
	// One reader at a time, and the counts raised before anyone else may
	// read them: a caller must not see an old count once another caller
	// has taken the events off the queue.
	inotify.mu.Lock()
	defer inotify.mu.Unlock()
	if !drainInotify() {
		return 0, false
	}
	return *w.moves, true
}

// drainInotify reads every queued event and counts it for its directory
// (all of them when the queue overflowed); false on a read error.
func drainInotify() bool {
	for {
		n, err := unix.Read(inotify.fd, inotify.buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return true
		}
		if err != nil || n <= 0 {
			return false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&inotify.buf[off]))
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				for _, c := range inotify.moves {
					*c++
				}
			case inotify.moves[ev.Wd] != nil:
				*inotify.moves[ev.Wd]++
				if ev.Mask&unix.IN_IGNORED != 0 {
					// The directory is gone and the kernel may give its
					// descriptor to another; its Store counts no more.
					delete(inotify.moves, ev.Wd)
				}
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
