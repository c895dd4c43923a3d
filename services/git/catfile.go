package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Object reads go through long-lived `git cat-file --batch-command`
// processes, one per concurrent reader of a repository, kept in a pool
// keyed by git directory. A process reads objects only: objects never
// change, so a reader that started before a push still answers correctly
// (git rescans its packs when an object is missing). Refs are never
// resolved through a pooled reader (refsfile.go reads them from disk on
// every request).

const (
	// defaultReaderIdle is how long an unused reader lives.
	defaultReaderIdle = 30 * time.Second
	// defaultMaxReaders caps the pooled cat-file processes of a Store.
	defaultMaxReaders = 32
	// smallObject is the largest object read into memory; bigger ones are
	// streamed from the process.
	smallObject = 1 << 20
	// smallBlob is the largest blob kept in the object cache.
	smallBlob = 64 << 10
)

// catFile is one running `git cat-file --batch-command --buffer`.
type catFile struct {
	dir    string      // absolute git dir (the pool key)
	dirID  os.FileInfo // identity of dir when started: a recreated repository gets new readers
	gen    int64       // the cache generation of dir when started (see repoIdentities)
	cmd    *limitedCmd
	cancel context.CancelFunc
	stdin  *bufio.Writer
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	used   time.Time
	reused bool // handed out before: may have died while idle
}

// readerPool holds idle cat-file processes.
type readerPool struct {
	mu      sync.Mutex
	idle    map[string][]*catFile
	open    int           // processes started and not yet closed
	freed   chan struct{} // closed and replaced whenever a process is returned or closed
	reaping bool

	max      int
	idleTime time.Duration
	started  atomic.Int64 // cat-file processes ever started (tests)
}

// LimitReaders sets the cap on pooled cat-file processes (n < 1: the
// default, 32) and how long an idle one lives (d <= 0: 30 s). Call it
// before the Store is used.
func (s *Store) LimitReaders(n int, d time.Duration) {
	s.readers.max, s.readers.idleTime = n, d
}

func (p *readerPool) limits() (int, time.Duration) {
	m, d := p.max, p.idleTime
	if m < 1 {
		m = defaultMaxReaders
	}
	if d <= 0 {
		d = defaultReaderIdle
	}
	return m, d
}

// ProcessesStarted counts every git process this Store started, pooled
// readers included (tests use it to check that reads do not start a
// process per object).
func (s *Store) ProcessesStarted() int64 { return s.processes.Load() }

// getReader returns a reader for the repository at path: an idle one, a
// new one while under the cap, or, at the cap, one freed by closing the
// oldest idle reader of another repository; otherwise it waits for one
// to come back until ctx ends.
func (s *Store) getReader(ctx context.Context, path string) (*catFile, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, notFoundf("repository %s", filepath.Base(path))
	}
	// A reader started in another generation of dir may have served a
	// repository another process has since replaced (keeping its packs
	// open), even when the new directory reused the old inode.
	gen := s.repoIDs.generation(dir)
	p := &s.readers
	max, _ := p.limits()
	for {
		p.mu.Lock()
		if p.idle == nil {
			p.idle = map[string][]*catFile{}
			p.freed = make(chan struct{})
		}
		for list := p.idle[dir]; len(list) > 0; list = p.idle[dir] {
			c := list[len(list)-1]
			p.idle[dir] = list[:len(list)-1]
			if len(p.idle[dir]) == 0 {
				delete(p.idle, dir)
			}
			if os.SameFile(c.dirID, st) && c.gen == gen {
				p.mu.Unlock()
				c.reused = true
				return c, nil
			}
			p.closeLocked(c) // the repository was deleted and recreated
		}
		if p.open >= max {
			if old := p.oldestIdleLocked(); old != nil {
				p.removeIdleLocked(old)
				p.closeLocked(old)
			}
		}
		if p.open < max {
			p.open++
			p.mu.Unlock()
			c, err := s.startReader(dir, st)
			if err == nil {
				c.gen = gen
			}
			if err != nil {
				p.mu.Lock()
				p.open--
				p.signalLocked()
				p.mu.Unlock()
				return nil, err
			}
			return c, nil
		}
		wait := p.freed
		p.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, errors.Join(ErrBusy, ctx.Err())
		}
	}
}

// putReader returns a healthy reader to the pool.
func (s *Store) putReader(c *catFile) {
	p := &s.readers
	_, idle := p.limits()
	c.used = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle[c.dir] = append(p.idle[c.dir], c)
	p.signalLocked()
	if !p.reaping {
		p.reaping = true
		go s.reapReaders(idle)
	}
}

// dropReader stops a reader whose state is unknown (cancelled or partial
// read, protocol error): it is never reused.
func (s *Store) dropReader(c *catFile) {
	p := &s.readers
	p.mu.Lock()
	p.closeLocked(c)
	p.mu.Unlock()
}

// forgetReaders stops the idle readers of the repository at path (it is
// being deleted or renamed).
func (s *Store) forgetReaders(path string) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return
	}
	p := &s.readers
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle[dir] {
		p.closeLocked(c)
	}
	delete(p.idle, dir)
}

// reapReaders closes readers idle for longer than idle, until none is left.
func (s *Store) reapReaders(idle time.Duration) {
	p := &s.readers
	tick := idle / 4
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	for {
		time.Sleep(tick)
		p.mu.Lock()
		now := time.Now()
		n := 0
		for dir, list := range p.idle {
			keep := list[:0]
			for _, c := range list {
				if now.Sub(c.used) >= idle {
					p.closeLocked(c)
				} else {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				delete(p.idle, dir)
			} else {
				p.idle[dir] = keep
				n += len(keep)
			}
		}
		if n == 0 {
			p.reaping = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

func (p *readerPool) oldestIdleLocked() *catFile {
	var old *catFile
	for _, list := range p.idle {
		for _, c := range list {
			if old == nil || c.used.Before(old.used) {
				old = c
			}
		}
	}
	return old
}

func (p *readerPool) removeIdleLocked(c *catFile) {
	list := p.idle[c.dir]
	for i, x := range list {
		if x == c {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(p.idle, c.dir)
	} else {
		p.idle[c.dir] = list
	}
}

// closeLocked stops c and frees its place; it is reaped in the background
// so the pool's lock is not held while the process exits.
func (p *readerPool) closeLocked(c *catFile) {
	p.open--
	p.signalLocked()
	c.cancel()
	c.in.Close()
	go c.cmd.Wait()
}

func (p *readerPool) signalLocked() {
	close(p.freed)
	p.freed = make(chan struct{})
}

// startReader starts a cat-file process for dir. It does not hold one of
// the Store's process slots (LimitProcesses): pooled readers have their
// own cap, and an idle reader must not make other git commands busy.
func (s *Store) startReader(dir string, st os.FileInfo) (*catFile, error) {
	ctx, cancel := context.WithCancel(context.Background())
	inv := invocation{gitDir: dir, args: []string{"cat-file", "--batch-command", "--buffer"}}
	cmd, stderr, err := s.command(ctx, inv)
	if err != nil {
		cancel()
		return nil, err
	}
	cmd.slots = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, s.wrapErr(ctx, inv, stderr, err)
	}
	s.readers.started.Add(1)
	return &catFile{dir: dir, dirID: st, cmd: cmd, cancel: cancel, in: in,
		stdin: bufio.NewWriterSize(in, 4<<10), out: bufio.NewReaderSize(out, 64<<10), stderr: stderr}, nil
}

// send writes commands (each "info <name>" or "contents <name>") and a
// flush. Names must not contain newlines.
func (c *catFile) send(cmds ...string) error {
	for _, cmd := range cmds {
		if strings.ContainsAny(cmd, "\n") {
			return invalidf("object name contains a newline")
		}
		c.stdin.WriteString(cmd)
		c.stdin.WriteByte('\n')
	}
	c.stdin.WriteString("flush\n")
	return c.stdin.Flush()
}

// header reads one answer line: an objectInfo, Type "" for a missing or
// ambiguous name.
func (c *catFile) header() (objectInfo, error) {
	line, err := c.out.ReadString('\n')
	if err != nil {
		return objectInfo{}, c.failed(err)
	}
	return parseBatchHeader(strings.TrimSuffix(line, "\n")), nil
}

// failed describes a reader that stopped answering.
func (c *catFile) failed(err error) error {
	return &Error{Command: "cat-file", Stderr: c.stderr.String(), Err: err}
}

// withReader runs fn on a pooled reader of path. The reader goes back to
// the pool only if fn succeeded (or failed with a domain error after a
// complete exchange) and ctx did not end meanwhile; a cancelled ctx kills
// the process so fn returns at once. A reader taken from the pool that
// turns out broken (its process died while idle) is replaced once: reads
// are idempotent.
func (s *Store) withReader(ctx context.Context, path string, fn func(c *catFile) error) error {
	for attempt := 0; ; attempt++ {
		c, err := s.getReader(ctx, path)
		if err != nil {
			return err
		}
		stop := context.AfterFunc(ctx, c.cancel)
		err = fn(c)
		if stop() && (err == nil || isDomainErr(err)) {
			s.putReader(c)
			return err
		}
		s.dropReader(c)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return errors.Join(ctxErr, err)
		}
		if !c.reused || attempt > 0 {
			return err
		}
	}
}

// isDomainErr reports whether err is one of the package's outcomes
// (ErrNotFound etc.) rather than a broken exchange.
func isDomainErr(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid)
}

// readObjects reads the content of objects by name in one exchange.
// Missing names give a batchObject with Type "". Blobs larger than
// smallObject bytes are refused with ErrInvalid (callers stream those).
func (c *catFile) readObjects(names []string) ([]batchObject, error) {
	cmds := make([]string, len(names))
	for i, n := range names {
		cmds[i] = "contents " + n
	}
	if err := c.send(cmds...); err != nil {
		return nil, c.failed(err)
	}
	objs := make([]batchObject, len(names))
	var tooBig error
	for i := range names {
		info, err := c.header()
		if err != nil {
			return nil, err
		}
		if info.Type == "" {
			continue
		}
		if info.Type == "blob" && info.Size > smallObject {
			// Skip it to keep the stream in step; the caller streams it.
			// (Trees, commits and tags are always read: a directory of
			// many thousand entries is still a listing callers need.)
			if _, err := c.out.Discard(int(info.Size) + 1); err != nil {
				return nil, c.failed(err)
			}
			tooBig = invalidf("object %s is larger than %d bytes", info.SHA, smallObject)
			continue
		}
		data := make([]byte, info.Size+1) // content and a newline
		if _, err := io.ReadFull(c.out, data); err != nil {
			return nil, c.failed(fmt.Errorf("short object: %w", err))
		}
		objs[i] = batchObject{SHA: info.SHA, Type: info.Type, Data: data[:info.Size]}
	}
	if tooBig != nil {
		return nil, tooBig
	}
	return objs, nil
}

// infos looks up object names in one exchange.
func (c *catFile) infos(names []string) ([]objectInfo, error) {
	cmds := make([]string, len(names))
	for i, n := range names {
		cmds[i] = "info " + n
	}
	if err := c.send(cmds...); err != nil {
		return nil, c.failed(err)
	}
	out := make([]objectInfo, len(names))
	for i := range names {
		info, err := c.header()
		if err != nil {
			return nil, err
		}
		out[i] = info
	}
	return out, nil
}
