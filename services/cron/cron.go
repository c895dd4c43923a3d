// Package cron is forge's registry of scheduled background work: each task
// has a name (Gitea's where Gitea has the same task), an interval, and
// one round of work. The server runs every task's schedule (Run); the
// site administrator lists the tasks and starts a round at once through
// GET and POST /api/v1/admin/cron.
//
// The state a task shows (last and next run, number of runs) is the
// process's own: with several forge processes on one database each runs
// its schedules, and a manual run happens in the process that received
// the request.
package cron

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// Task is one piece of scheduled work.
type Task struct {
	// Name is the task's name in the API (update_mirrors, ...).
	Name string
	// Every is the interval between rounds.
	Every time.Duration
	// AtStart runs a first round as soon as the schedule starts;
	// otherwise the first round is after Every.
	AtStart bool
	// Wake, when set, starts a round at once whenever it receives; that
	// round's context answers true to Woken.
	Wake <-chan struct{}
	// MaxBackoff, when set, doubles the wait after each failed round up
	// to this, until a round succeeds.
	MaxBackoff time.Duration
	// Do is one round; its error is logged.
	Do func(ctx context.Context) error
}

// State is what a task shows: Gitea's Cron object.
type State struct {
	Name string
	// Schedule is the interval as Gitea writes it ("@every 10m").
	Schedule string
	// Next is when the next scheduled round is due (zero before the
	// schedule starts), Prev when the last round started (zero if none).
	Next, Prev time.Time
	// ExecTimes counts the rounds started, scheduled or manual.
	ExecTimes int64
}

type entry struct {
	Task
	mu        sync.Mutex
	running   bool
	prev      time.Time
	next      time.Time
	execTimes int64
}

// Registry holds the tasks. Add them before Run.
type Registry struct {
	mu      sync.Mutex
	tasks   map[string]*entry
	ctx     context.Context // Run's, for manual rounds
	manual  sync.WaitGroup
	stopped bool
}

// New returns an empty registry.
func New() *Registry { return &Registry{tasks: map[string]*entry{}} }

// Add registers t; a name may be used once.
func (r *Registry) Add(t Task) error {
	if t.Name == "" || t.Every <= 0 || t.Do == nil {
		return errors.New("cron: a task needs a name, an interval and its work")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tasks[t.Name]; dup {
		return errors.New("cron: task " + t.Name + " added twice")
	}
	r.tasks[t.Name] = &entry{Task: t}
	return nil
}

// Run runs every task's schedule until ctx is done, then waits for the
// rounds in progress, manual ones included.
func (r *Registry) Run(ctx context.Context) {
	r.mu.Lock()
	r.ctx = ctx
	all := make([]*entry, 0, len(r.tasks))
	for _, e := range r.tasks {
		all = append(all, e)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range all {
		wg.Add(1)
		go func() { defer wg.Done(); r.loop(ctx, e) }()
	}
	wg.Wait()
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.manual.Wait()
}

func (r *Registry) loop(ctx context.Context, e *entry) {
	wait := e.Every
	start := time.Now()
	if e.AtStart {
		e.setNext(start)
	}
	woken := false
	for run := e.AtStart; ; run = true {
		if run {
			start = time.Now()
			rctx := ctx
			if woken {
				rctx = context.WithValue(ctx, wokenKey{}, true)
			}
			ran, err := r.round(rctx, e)
			switch {
			case ran && err != nil && e.MaxBackoff > 0:
				wait = min(2*wait, e.MaxBackoff)
			default:
				wait = e.Every
			}
		}
		due := start.Add(wait)
		e.setNext(due)
		timer := time.NewTimer(max(0, time.Until(due)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-e.Wake: // a nil channel never receives
			timer.Stop()
			woken = true
		case <-timer.C:
			woken = false
		}
	}
}

// round runs one round of e unless one is already running (ran false).
func (r *Registry) round(ctx context.Context, e *entry) (ran bool, err error) {
	e.mu.Lock()
	if e.running {
		e.mu.Unlock()
		return false, nil
	}
	e.running = true
	e.prev = time.Now()
	e.execTimes++
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.running = false
		e.mu.Unlock()
	}()
	err = e.Do(ctx)
	if err != nil && ctx.Err() == nil {
		slog.Warn("scheduled task failed", "task", e.Name, "err", err)
	}
	return true, err
}

type wokenKey struct{}

// Woken reports whether the round running under ctx was started by its
// task's Wake channel (not by its interval nor by hand).
func Woken(ctx context.Context) bool {
	w, _ := ctx.Value(wokenKey{}).(bool)
	return w
}

type manualKey struct{}

// Manual reports whether the round running under ctx was started by hand
// (Start: POST /admin/cron/{task}), not by its schedule nor its Wake.
func Manual(ctx context.Context) bool {
	m, _ := ctx.Value(manualKey{}).(bool)
	return m
}

func (e *entry) setNext(t time.Time) {
	e.mu.Lock()
	e.next = t
	e.mu.Unlock()
}

// List returns the tasks' states, sorted by name.
func (r *Registry) List() []State {
	r.mu.Lock()
	out := make([]State, 0, len(r.tasks))
	for _, e := range r.tasks {
		e.mu.Lock()
		out = append(out, State{Name: e.Name, Schedule: Schedule(e.Every), Next: e.next, Prev: e.prev, ExecTimes: e.execTimes})
		e.mu.Unlock()
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b State) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Start starts a round of the task named name now, in the background,
// unless one is running already; it reports false for an unknown name.
// The round runs under Run's context (a background one before Run), so
// it stops with the server, not with the request.
func (r *Registry) Start(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.tasks[name]
	if !ok {
		return false
	}
	if r.stopped {
		return true
	}
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r.manual.Add(1)
	go func() {
		defer r.manual.Done()
		r.round(context.WithValue(ctx, manualKey{}, true), e)
	}()
	return true
}

// Schedule writes an interval as Gitea's schedules do: "@every 10m",
// "@every 1h", "@every 2s".
func Schedule(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return "@every " + s
}
