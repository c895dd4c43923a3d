package git

import (
	"context"
	"os/exec"
	"sync"
	"sync/atomic"
)

// LimitProcesses caps the git processes this Store runs at once at n
// (n < 1: no cap). A process that would exceed the cap is not started:
// the operation fails with ErrBusy at once, so an overloaded server
// answers "try again" instead of queueing work it cannot finish. Call it
// before the Store is used.
func (s *Store) LimitProcesses(n int) {
	if n < 1 {
		s.slots = nil
		return
	}
	s.slots = make(chan struct{}, n)
}

// Running is the number of git processes started and not yet waited for
// (0 without a cap).
func (s *Store) Running() int { return len(s.slots) }

// limitedCmd is an exec.Cmd that holds one of the Store's process slots from
// Start until Wait, so every git process, whoever starts it, counts.
type limitedCmd struct {
	*exec.Cmd
	slots   chan struct{}
	started *atomic.Int64 // the Store's process counter
	once    sync.Once
	held    bool
	// moved is the marker file of a reported ref transaction, report what
	// reports it (refreport.go); "": not reported.
	moved  string
	report func()
}

func (s *Store) newCmd(ctx context.Context, name string, args ...string) *limitedCmd {
	return &limitedCmd{Cmd: exec.CommandContext(ctx, name, args...), slots: s.slots, started: &s.processes}
}

// Start takes a slot (or fails with ErrBusy) and starts the process.
func (c *limitedCmd) Start() error {
	if c.slots != nil {
		select {
		case c.slots <- struct{}{}:
			c.held = true
		default:
			return ErrBusy
		}
	}
	if err := c.Cmd.Start(); err != nil {
		c.release()
		return err
	}
	c.started.Add(1)
	return nil
}

// Wait waits for the process, reports its ref transaction (if it was
// one) and gives its slot back.
func (c *limitedCmd) Wait() error {
	defer c.release()
	err := c.Cmd.Wait()
	c.reportMoved()
	return err
}

// Run starts the process and waits for it.
func (c *limitedCmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

func (c *limitedCmd) release() {
	if c.held {
		c.once.Do(func() { <-c.slots })
	}
}
