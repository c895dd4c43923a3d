package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"forge/services/cron"
	"forge/services/failpoint"
	"forge/services/protection"
	"forge/services/secretbox"
	"forge/services/store"
)

// QueueStore is what the worker needs of the database.
type QueueStore interface {
	// ClaimHookEvents claims up to max queued events for lease.
	ClaimHookEvents(ctx context.Context, max int, lease time.Duration) ([]store.HookEvent, error)
	// ResolveHookEvent replaces a claimed event by its deliveries in one
	// transaction.
	ResolveHookEvent(ctx context.Context, id int64, tasks []store.HookTask) error
	// HooksForRepo: the active hooks an event in the repository goes to.
	HooksForRepo(ctx context.Context, repoID int64) ([]store.Webhook, error)
	// HooksForOwner: the active hooks of an owner and the system hooks
	// (the events of a deleted repository).
	HooksForOwner(ctx context.Context, ownerID int64) ([]store.Webhook, error)
	// WebhookByID: store.ErrNotFound when the hook is gone.
	WebhookByID(ctx context.Context, id int64) (*store.Webhook, error)
	// ClaimHookTasks claims up to max due deliveries for lease.
	ClaimHookTasks(ctx context.Context, max int, lease time.Duration) ([]store.HookTask, error)
	// FinishHookTaskAttempt records an attempt and releases the task.
	FinishHookTaskAttempt(ctx context.Context, id int64, r store.HookTaskResult) error
	// RetryHookTasksNow makes the deliveries waiting for a retry due now.
	RetryHookTasksNow(ctx context.Context) (int64, error)
}

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	Store   QueueStore
	Render  *Renderers
	Marshal func(proto.Message) ([]byte, error) // Gitea's JSON (gateway/giteajson)
	// SecretKey is [security] SECRET_KEY, which sealed the hooks' secrets.
	SecretKey     string
	Hosts         HostList
	Timeout       time.Duration // [webhook] DELIVER_TIMEOUT
	SkipTLSVerify bool
	Workers       int  // deliveries at once
	Disabled      bool // [security] DISABLE_WEBHOOKS: queue kept, nothing sent
	Poll          time.Duration
}

// Worker turns queued events into deliveries and sends them: durable (the
// queue is in the database: what a crash or a restart interrupted is sent
// by the next run), once across processes (each row is claimed by one
// worker for a lease; an attempt that outlives its lease may be repeated,
// never lost), bounded (Workers deliveries at once, each within Timeout)
// and apart from requests (a slow receiver delays only its own delivery).
type Worker struct {
	o        WorkerOptions
	box      *secretbox.Box
	client   *http.Client
	kick     chan struct{}
	log      *slog.Logger
	slots    chan struct{}  // one per delivery in flight, Workers at most
	inflight sync.WaitGroup // deliveries in flight, awaited by Run
	// succeeded and failed count finished attempts (Deliveries).
	succeeded, failed atomic.Int64
}

// PollInterval is how often the worker looks for work other processes
// queued and for retries that came due.
const PollInterval = time.Second

// MaxAttempts bounds the attempts of one delivery.
const MaxAttempts = 6

// backoff is the wait after a failed attempt n (1-based): 10 s, 30 s,
// 90 s, ... at most an hour.
func backoff(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 3
	}
	return min(d, time.Hour)
}

// settle are the retries after a kick that found nothing: the kick comes
// from inside the inserting transaction, which commits a moment later.
var settle = []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond}

const eventBatch = 50

// resolvers is how many claimed events a round renders at once.
const resolvers = 4

// maxEventAge is how long an event whose payload fails to render is
// retried (each claim lasts a minute) before it is dropped.
const maxEventAge = time.Hour

// NewWorker builds a worker.
func NewWorker(o WorkerOptions) (*Worker, error) {
	box, err := NewBox(o.SecretKey)
	if err != nil {
		return nil, err
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.Poll <= 0 {
		o.Poll = PollInterval
	}
	return &Worker{o: o, box: box, client: newClient(o.Hosts, o.Timeout, o.SkipTLSVerify),
		kick: make(chan struct{}, 1), log: slog.Default(), slots: make(chan struct{}, o.Workers)}, nil
}

// Kick wakes the worker; it never blocks.
func (w *Worker) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Round is one round of the delivery schedule, for the registry of
// scheduled tasks (task deliver_webhooks: every Poll, at start-up and
// whenever Woken receives). It claims and renders queued events and
// starts the due deliveries in the free slots, then returns: deliveries
// run in the worker's own goroutines (at most Workers at once), so a slow
// receiver holds a slot, never the round nor the registry. After a kick
// that found nothing it looks again a few times (the kick comes from
// inside the inserting transaction). A manual round (cron.Manual: POST
// /admin/cron/deliver_webhooks) first makes the deliveries waiting for a
// retry due, so they are sent now.
//
// ctx must live as long as the deliveries it starts may run: the
// registry's context, which ends with the server (then Wait).
func (w *Worker) Round(ctx context.Context) error {
	if w.o.Disabled {
		return nil
	}
	if cron.Manual(ctx) {
		if _, err := w.o.Store.RetryHookTasksNow(ctx); err != nil {
			return err
		}
	}
	if w.Drain(ctx) > 0 || !cron.Woken(ctx) {
		return nil
	}
	for _, d := range settle {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
		if w.Drain(ctx) > 0 {
			return nil
		}
	}
	return nil
}

// Deliveries counts the delivery attempts this worker finished, by
// outcome (/metrics).
func (w *Worker) Deliveries() (succeeded, failed int64) {
	return w.succeeded.Load(), w.failed.Load()
}

// Poll is the worker's poll interval: how often it looks for work other
// processes queued and for retries that came due.
func (w *Worker) Poll() time.Duration { return w.o.Poll }

// Woken receives after each Kick: an event or delivery queued by this
// process, or a delivery slot freed.
func (w *Worker) Woken() <-chan struct{} { return w.kick }

// Wait waits for the deliveries in flight (each ends within Timeout; one
// cut short by the end of its context is left claimed and is sent again
// after its lease).
func (w *Worker) Wait() { w.inflight.Wait() }

// Drain resolves queued events into deliveries and starts sending the due
// ones in the free slots, until there is nothing left, every slot is busy
// or ctx is done; it returns how many events and deliveries it took.
// Failures are logged; the rows stay queued.
func (w *Worker) Drain(ctx context.Context) int {
	if w.o.Disabled {
		return 0
	}
	n := 0
	for ctx.Err() == nil {
		events, err := w.o.Store.ClaimHookEvents(ctx, eventBatch, time.Minute)
		if err != nil {
			w.logErr(ctx, "claim events", err)
			break
		}
		// Rendering is mostly waiting for the database (a few reads and
		// the resolving transaction per event): a few at once.
		sem := make(chan struct{}, resolvers)
		var wg sync.WaitGroup
		for i := range events {
			sem <- struct{}{}
			wg.Add(1)
			go func(e *store.HookEvent) {
				defer func() { <-sem; wg.Done() }()
				if err := w.resolve(ctx, e); err != nil {
					w.logErr(ctx, "render event", err, "event", e.ID)
				}
			}(&events[i])
		}
		wg.Wait()
		n += len(events)
		if len(events) < eventBatch {
			break
		}
	}
	// Deliveries: as many as there are free slots; each slot, when its
	// delivery ends, wakes the worker to take the next, so a slow
	// receiver holds one slot, not a batch.
	for ctx.Err() == nil {
		free := cap(w.slots) - len(w.slots)
		if free == 0 {
			break
		}
		tasks, err := w.o.Store.ClaimHookTasks(ctx, free, w.o.Timeout+30*time.Second)
		if err != nil {
			w.logErr(ctx, "claim deliveries", err)
			break
		}
		for i := range tasks {
			w.slots <- struct{}{}
			w.inflight.Add(1)
			go func(t store.HookTask) {
				defer func() {
					<-w.slots
					w.inflight.Done()
					w.Kick()
				}()
				w.deliver(ctx, &t)
			}(tasks[i])
		}
		n += len(tasks)
		if len(tasks) < free {
			break
		}
	}
	return n
}

func (w *Worker) logErr(ctx context.Context, what string, err error, args ...any) {
	if ctx.Err() == nil {
		w.log.Error("webhooks: "+what+" failed", append(args, "err", err)...)
	}
}

// resolve renders e once and queues a delivery for each hook that hears
// it (a test delivery: its one hook, whatever its events).
func (w *Worker) resolve(ctx context.Context, e *store.HookEvent) error {
	var hooks []store.Webhook
	if e.HookID != 0 {
		h, err := w.o.Store.WebhookByID(ctx, e.HookID)
		if errors.Is(err, store.ErrNotFound) {
			return w.o.Store.ResolveHookEvent(ctx, e.ID, nil)
		}
		if err != nil {
			return err
		}
		hooks = []store.Webhook{*h}
	} else if e.Kind == store.HookKindRepoDeleted {
		var gone struct{ OwnerID int64 }
		_ = json.Unmarshal([]byte(e.Extra), &gone)
		var err error
		if hooks, err = w.o.Store.HooksForOwner(ctx, gone.OwnerID); err != nil {
			return err
		}
	} else {
		var err error
		if hooks, err = w.o.Store.HooksForRepo(ctx, e.RepoID); err != nil {
			return err
		}
	}
	if len(hooks) == 0 {
		return w.o.Store.ResolveHookEvent(ctx, e.ID, nil)
	}
	r, err := w.o.Render.render(ctx, e)
	if errors.Is(err, errSkip) {
		return w.o.Store.ResolveHookEvent(ctx, e.ID, nil)
	}
	if err != nil {
		if time.Since(time.Unix(e.CreatedUnix, 0)) > maxEventAge {
			// Still failing after an hour of retries: give up on it
			// rather than retry it forever.
			w.log.Error("webhooks: event dropped, its payload cannot be rendered", "event", e.ID, "kind", e.Kind, "err", err)
			return w.o.Store.ResolveHookEvent(ctx, e.ID, nil)
		}
		return err
	}
	body, err := w.o.Marshal(r.payload)
	if err != nil {
		return err
	}
	var tasks []store.HookTask
	for _, h := range hooks {
		if e.HookID == 0 && (!hears(h.Events, r.typ) || !branchMatches(h.BranchFilter, r.branch)) {
			continue
		}
		tasks = append(tasks, store.HookTask{HookID: h.ID, RepoID: e.RepoID, UUID: newUUID(),
			Event: eventHeader(r.typ), EventType: r.typ, Payload: string(body)})
	}
	return w.o.Store.ResolveHookEvent(ctx, e.ID, tasks)
}

// branchMatches applies a hook's branch filter (a glob; empty or * every
// branch) to the branch of an event; events without a branch pass.
func branchMatches(filter, branch string) bool {
	if filter == "" || filter == "*" || branch == "" {
		return true
	}
	return protection.GlobMatches(filter, branch)
}

// deliver makes one attempt of t and records it.
// FailpointClaimed is the test-only failpoint (see package failpoint)
// between claiming a delivery and sending it: a crash there leaves the
// delivery claimed, and it is sent once the claim has run out.
const FailpointClaimed = "webhook-delivery-claimed"

func (w *Worker) deliver(ctx context.Context, t *store.HookTask) {
	failpoint.Hit(FailpointClaimed)
	res := w.attempt(ctx, t)
	if ctx.Err() != nil {
		return // shutting down: the claim expires and the attempt is made again
	}
	if res.Succeeded {
		w.succeeded.Add(1)
	} else {
		w.failed.Add(1)
	}
	if !res.Succeeded && res.RetryAt == 0 && t.Attempts+1 < MaxAttempts && res.RequestInfo != "" {
		res.RetryAt = time.Now().Add(backoff(t.Attempts + 1)).Unix()
	}
	if err := w.o.Store.FinishHookTaskAttempt(ctx, t.ID, res); err != nil {
		w.logErr(ctx, "record delivery", err, "task", t.ID)
	}
}

// attempt sends t. A result without RequestInfo is final (nothing could
// be sent: the hook is gone or its type cannot be delivered).
func (w *Worker) attempt(ctx context.Context, t *store.HookTask) store.HookTaskResult {
	h, err := w.o.Store.WebhookByID(ctx, t.HookID)
	if err != nil {
		return store.HookTaskResult{ResponseInfo: errInfo(fmt.Errorf("hook: %w", err))}
	}
	secret, authz, err := w.open(h)
	if err != nil {
		return store.HookTaskResult{ResponseInfo: errInfo(errors.New("hook secrets cannot be opened"))}
	}
	req, err := buildRequest(h.Type, h.URL, h.ContentType, h.Meta, t.UUID, t.Event, t.EventType, []byte(t.Payload), secret, authz)
	if err != nil {
		return store.HookTaskResult{ResponseInfo: errInfo(err)}
	}
	dctx, cancel := context.WithTimeout(ctx, w.o.Timeout)
	defer cancel()
	ok, reqInfo, respInfo := send(dctx, w.client, req)
	return store.HookTaskResult{Succeeded: ok, RequestInfo: reqInfo, ResponseInfo: respInfo}
}

func (w *Worker) open(h *store.Webhook) (secret, authz string, err error) {
	if len(h.Secret) > 0 {
		b, err := w.box.Open(h.Secret)
		if err != nil {
			return "", "", err
		}
		secret = string(b)
	}
	if len(h.AuthorizationHeader) > 0 {
		b, err := w.box.Open(h.AuthorizationHeader)
		if err != nil {
			return "", "", err
		}
		authz = string(b)
	}
	return secret, authz, nil
}

// newUUID is a random (version 4) UUID, a delivery's X-Gitea-Delivery.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
