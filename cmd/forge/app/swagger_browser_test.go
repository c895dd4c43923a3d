package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// TestAPIDocumentationInBrowser opens /api/swagger in headless Chromium
// (Debian's chromium): the page lists every operation of the document,
// loads nothing from another origin and breaks no content security rule;
// "Authorize" with a token, then "Try it out" of GET /user, answers 200
// with the token's user.
func TestAPIDocumentationInBrowser(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	s := startServer(t, "sqlite3", nil)

	var doc apiDoc
	s.do("GET", "/swagger.v1.json", "").json(t, &doc)
	operations := 0
	for _, ops := range doc.Paths {
		operations += len(ops)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startChromium(ctx, t, bin)
	p := b.newPage(ctx, t)
	// Recorded from the first byte of every document the tab loads.
	p.mustCall(ctx, "Page.enable", nil, nil)
	p.mustCall(ctx, "Network.enable", nil, nil)
	p.mustCall(ctx, "Runtime.enable", nil, nil)
	p.mustCall(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`}, nil)
	p.mustCall(ctx, "Page.navigate", map[string]any{"url": s.URL + "/api/swagger"}, nil)

	// Swagger UI renders only the operations near the viewport: the test
	// scrolls through the page as a reader would, collecting them.
	p.eval(ctx, t, scrollHelpers, nil)
	p.waitFor(ctx, t, `document.querySelector("#swagger-ui .opblock") !== null`)
	var rendered struct {
		Title      string
		Operations []string
	}
	p.eval(ctx, t, `(async () => ({
		title: (document.querySelector("#swagger-ui .info .title") || {}).textContent || "",
		operations: await window.__forgeOperations(),
	}))()`, &rendered)
	if !strings.Contains(rendered.Title, "forge API") {
		t.Errorf("title %q", rendered.Title)
	}
	var want []string
	for path, ops := range doc.Paths {
		for verb := range ops {
			want = append(want, strings.ToUpper(verb)+" "+path)
		}
	}
	sort.Strings(want)
	sort.Strings(rendered.Operations)
	if !slices.Equal(rendered.Operations, want) {
		t.Errorf("the page lists other operations than the document:\n%s", diffLists(want, rendered.Operations))
	}
	if !slices.Contains(rendered.Operations, "GET /repos/{owner}/{repo}") {
		t.Errorf("GET /repos/{owner}/{repo} is not listed")
	}

	// Authorize: the token header's scheme, typed into its field.
	p.click(ctx, t, `document.querySelector("#swagger-ui .auth-wrapper .authorize")`)
	scheme := `[...document.querySelectorAll("#swagger-ui .modal-ux .auth-container")].find(e => e.textContent.includes("AuthorizationHeaderToken"))`
	p.waitFor(ctx, t, scheme+` !== undefined`)
	p.click(ctx, t, scheme+`.querySelector("input")`) // focus
	p.mustCall(ctx, "Input.insertText", map[string]any{"text": "token " + s.AdminToken}, nil)
	p.click(ctx, t, scheme+`.querySelector("button.authorize")`)
	p.waitFor(ctx, t, `[...`+scheme+`.querySelectorAll("button")].some(b => b.textContent.trim() === "Logout")`)
	p.click(ctx, t, `document.querySelector("#swagger-ui .modal-ux .btn-done, #swagger-ui .modal-ux .close-modal")`)

	// Try it out: GET /user answers with the token's user.
	p.eval(ctx, t, `window.__forgeScrollTo("GET", "/user")`, nil)
	op := `[...document.querySelectorAll("#swagger-ui .opblock.opblock-get")].find(e => e.querySelector(".opblock-summary-path").dataset.path === "/user")`
	p.click(ctx, t, op+`.querySelector(".opblock-summary-control")`)
	p.waitFor(ctx, t, op+`.querySelector(".try-out__btn") !== null`)
	p.click(ctx, t, op+`.querySelector(".try-out__btn")`)
	p.waitFor(ctx, t, op+`.querySelector("button.execute") !== null`)
	p.click(ctx, t, op+`.querySelector("button.execute")`)
	p.waitFor(ctx, t, op+`.querySelector(".live-responses-table tr.response .response-col_status") !== null`)
	var tried struct {
		Status string
		Body   string
		Curl   string
	}
	p.eval(ctx, t, `(() => { const o = `+op+`; return {
		status: o.querySelector(".live-responses-table tr.response .response-col_status").textContent.trim(),
		body: (o.querySelector(".live-responses-table tr.response .response-col_description pre") || {}).textContent || "",
		curl: (o.querySelector(".curl-command") || {}).textContent || "",
	}})()`, &tried)
	if !strings.HasPrefix(tried.Status, "200") || !strings.Contains(tried.Body, `"login": "root"`) {
		t.Errorf("Try it out of GET /user: status %q, body %.300q", tried.Status, tried.Body)
	}
	if !strings.Contains(tried.Curl, s.URL+"/api/v1/user") || !strings.Contains(tried.Curl, "Authorization: token") {
		t.Errorf("the request was not the same origin's /api/v1/user with the token: %.500q", tried.Curl)
	}

	var violations []string
	p.eval(ctx, t, `window.__violations`, &violations)
	if len(violations) > 0 {
		t.Errorf("content security policy violations: %v", violations)
	}
	requested := p.requested()
	for _, want := range []string{s.URL + "/api/swagger", s.URL + "/swagger.v1.json", s.URL + "/api/v1/user"} {
		if !slices.Contains(requested, want) {
			t.Errorf("the page did not request %s (requests seen: %v)", want, requested)
		}
	}
	for _, u := range requested {
		if !strings.HasPrefix(u, s.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s, outside its origin", u)
		}
	}
	for _, e := range p.exceptions() {
		t.Errorf("page exception: %s", e)
	}
}

// scrollHelpers defines, in the page, __forgeOperations (scrolls from top
// to bottom and answers every operation rendered on the way, as "GET
// /path") and __forgeScrollTo(method, path) (scrolls until that operation
// is rendered and brings it into view). Both give up after 3000 steps.
const scrollHelpers = `
window.__forgeFrame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 20)));
window.__forgeRendered = () => [...document.querySelectorAll("#swagger-ui .opblock")].map(e => ({
	element: e,
	key: e.querySelector(".opblock-summary-method").textContent.trim().toUpperCase() + " " + e.querySelector(".opblock-summary-path").dataset.path,
}));
window.__forgeWalk = async (visit) => {
	window.scrollTo(0, 0);
	await window.__forgeFrame();
	for (let i = 0; i < 3000; i++) {
		for (const o of window.__forgeRendered()) {
			if (visit(o)) return true;
		}
		const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
		if (bottom) return false;
		window.scrollBy(0, Math.max(100, window.innerHeight / 2));
		await window.__forgeFrame();
	}
	return false;
};
window.__forgeOperations = async () => {
	const seen = new Set();
	await window.__forgeWalk(o => { seen.add(o.key); return false; });
	window.scrollTo(0, 0);
	return [...seen];
};
window.__forgeScrollTo = async (method, path) => {
	let found = null;
	await window.__forgeWalk(o => { if (o.key === method + " " + path) { found = o.element; return true } return false });
	if (!found) throw new Error(method + " " + path + " is not on the page");
	found.scrollIntoView({block: "start"});
	await window.__forgeFrame();
	return true;
};
`

// chromiumPath finds Debian's chromium, or fails (CI) or skips the test.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "chromium is not installed (apt-get install chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + ": required under CI")
	}
	t.Skip(msg + "; skipped because CI is not set")
	return ""
}

// browser is a headless Chromium driven over the DevTools protocol (a
// websocket carrying JSON calls and events; pages are flattened sessions
// of the browser's connection).
type browser struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	events  map[string][]cdpMessage // by session
	closed  chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startChromium runs chromium with its own profile and process group,
// both gone when the test ends.
func startChromium(ctx context.Context, t *testing.T, bin string) *browser {
	const origin = "http://127.0.0.1"
	cmd := exec.Command(bin, "--headless=new", "--disable-gpu", "--no-sandbox",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--remote-allow-origins="+origin,
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-dev-shm-usage", "--mute-audio",
		"about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var log strings.Builder
	var logMu sync.Mutex
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			if log.Len() < 16<<10 {
				log.WriteString(line + "\n")
			}
			logMu.Unlock()
			if u, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
				select {
				case found <- u:
				default:
				}
			}
		}
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		// The whole group: the browser and its renderers.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Errorf("chromium (pid %d) did not exit", cmd.Process.Pid)
		}
	})
	chromiumLog := func() string { logMu.Lock(); defer logMu.Unlock(); return log.String() }
	var wsURL string
	select {
	case wsURL = <-found:
	case <-exited:
		t.Fatalf("chromium exited:\n%s", chromiumLog())
	case <-time.After(30 * time.Second):
		t.Fatalf("chromium did not open its DevTools port in 30s:\n%s", chromiumLog())
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	cfg, err := websocket.NewConfig(wsURL, origin)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dialer = &net.Dialer{Timeout: 10 * time.Second}
	ws, err := websocket.DialConfig(cfg)
	if err != nil {
		t.Fatalf("DevTools websocket %s: %v\n%s", wsURL, err, chromiumLog())
	}
	b := &browser{ws: ws, pending: map[int]chan cdpMessage{}, events: map[string][]cdpMessage{}, closed: make(chan struct{})}
	go b.read()
	t.Cleanup(func() { ws.Close() })
	return b
}

func (b *browser) read() {
	defer close(b.closed)
	for {
		var m cdpMessage
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			return
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else if m.Method != "" && len(b.events[m.SessionID]) < 10000 {
			b.events[m.SessionID] = append(b.events[m.SessionID], m)
		}
		b.mu.Unlock()
	}
}

// call sends one command (in a page's session, or the browser's) and
// waits for its answer.
func (b *browser) call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := websocket.JSON.Send(b.ws, msg); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-b.closed:
		return errors.New(method + ": the DevTools connection closed")
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// page is a tab attached as a flattened session.
type page struct {
	b       *browser
	t       *testing.T
	session string
}

func (b *browser) newPage(ctx context.Context, t *testing.T) *page {
	var target struct{ TargetID string }
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	return &page{b: b, t: t, session: attached.SessionID}
}

func (p *page) mustCall(ctx context.Context, method string, params, result any) {
	p.t.Helper()
	if err := p.b.call(ctx, p.session, method, params, result); err != nil {
		p.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out (nil: ignored); an exception fails the test.
func (p *page) eval(ctx context.Context, t *testing.T, expr string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	p.mustCall(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

// waitFor polls a JavaScript condition for up to 30 seconds; errors while
// the page is still building count as false.
func (p *page) waitFor(ctx context.Context, t *testing.T, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	expr := `(() => { try { return !!(` + cond + `) } catch (e) { return false } })()`
	for {
		var ok bool
		p.eval(ctx, t, expr, &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var body string
			p.eval(ctx, t, `document.body ? document.body.innerText.slice(0, 2000) : ""`, &body)
			t.Fatalf("still false after 30s: %s\npage text: %s\nexceptions: %v", cond, body, p.exceptions())
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}

// click clicks the element an expression finds (and focuses it).
func (p *page) click(ctx context.Context, t *testing.T, element string) {
	t.Helper()
	p.waitFor(ctx, t, element+` != null`)
	p.eval(ctx, t, `(() => { const e = `+element+`; e.focus(); e.click(); return true })()`, nil)
}

// requested lists the URLs the tab asked for.
func (p *page) requested() []string {
	var out []string
	for _, e := range p.eventsNamed("Network.requestWillBeSent") {
		var r struct{ Request struct{ URL string } }
		if json.Unmarshal(e.Params, &r) == nil {
			out = append(out, r.Request.URL)
		}
	}
	return out
}

// exceptions lists the uncaught exceptions the page threw.
func (p *page) exceptions() []string {
	var out []string
	for _, e := range p.eventsNamed("Runtime.exceptionThrown") {
		out = append(out, string(e.Params))
	}
	return out
}

func (p *page) eventsNamed(method string) []cdpMessage {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	var out []cdpMessage
	for _, e := range p.b.events[p.session] {
		if e.Method == method {
			out = append(out, e)
		}
	}
	return out
}
