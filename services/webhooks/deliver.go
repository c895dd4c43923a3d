package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"
)

// HostList is [webhook] ALLOWED_HOST_LIST: where deliveries may connect.
// Entries are Gitea's: "external" (public unicast addresses), "private"
// (RFC 1918 and unique-local addresses), "loopback", "*" (anything),
// CIDRs, and host name globs (matched on the URL's host, before
// resolution). Addresses are checked on the resolved address at connect
// time, so a name that resolves to a refused address is refused.
type HostList struct {
	all, external, private, loopback bool
	nets                             []*net.IPNet
	names                            []string
}

// ParseHostList reads the setting; empty means "external".
func ParseHostList(s string) HostList {
	var h HostList
	if strings.TrimSpace(s) == "" {
		s = "external"
	}
	for _, e := range strings.Split(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch e {
		case "":
		case "*":
			h.all = true
		case "external":
			h.external = true
		case "private":
			h.private = true
		case "loopback":
			h.loopback = true
		default:
			if _, n, err := net.ParseCIDR(e); err == nil {
				h.nets = append(h.nets, n)
			} else if ip := net.ParseIP(e); ip != nil {
				h.nets = append(h.nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(len(ip)*8, len(ip)*8)})
			} else {
				h.names = append(h.names, e)
			}
		}
	}
	return h
}

// allowsName reports whether host is allowed by name.
func (h HostList) allowsName(host string) bool {
	host = strings.ToLower(host)
	for _, p := range h.names {
		if ok, _ := path.Match(p, host); ok {
			return true
		}
	}
	return false
}

// AllowsIP reports whether a delivery may connect to ip.
func (h HostList) AllowsIP(ip net.IP) bool {
	if h.all {
		return true
	}
	for _, n := range h.nets {
		if n.Contains(ip) {
			return true
		}
	}
	switch {
	case ip.IsLoopback():
		return h.loopback
	case ip.IsPrivate():
		return h.private
	case ip.IsGlobalUnicast():
		return h.external
	}
	// Link-local, multicast, unspecified: only with "*" or a CIDR.
	return false
}

// errRefused is a connection the host list does not allow.
var errRefused = errors.New("webhook: address not allowed by [webhook] ALLOWED_HOST_LIST")

// newClient is the delivery client: the host list checked on the address
// each connection is made to (after resolution, so DNS cannot redirect a
// delivery into the network), no proxy, no redirects followed, timeout
// per delivery.
func newClient(hosts HostList, timeout time.Duration, skipTLSVerify bool) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		byName := host != "" && net.ParseIP(host) == nil && hosts.allowsName(host)
		d := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
			if byName {
				return nil
			}
			h, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip := net.ParseIP(h)
			if ip == nil || !hosts.AllowsIP(ip) {
				return fmt.Errorf("%w: %s", errRefused, h)
			}
			return nil
		}}
		return d.DialContext(ctx, network, addr)
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: skipTLSVerify}, //nolint:gosec // [webhook] SKIP_TLS_VERIFY, as Gitea
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// eventHeader is Gitea's X-Gitea-Event for an event type.
func eventHeader(typ string) string {
	switch typ {
	case evIssues, evIssueAssign, evIssueLabel, evIssueMilestone:
		return "issues"
	case evPullRequest, evPullRequestAssign, evPullRequestLabel, evPullRequestMilestone, evPullRequestSync,
		evPullRequestReviewRequest:
		return "pull_request"
	case evIssueComment, evPullRequestComment:
		return "issue_comment"
	case "pull_request_review_approved":
		return "pull_request_approved"
	case "pull_request_review_rejected":
		return "pull_request_rejected"
	case "pull_request_review_comment":
		return "pull_request_comment"
	}
	return typ
}

// request is one delivery attempt's request.
type request struct {
	URL, Method, ContentType string
	Headers                  http.Header
	Body                     []byte
}

// buildRequest formats payload (Gitea's JSON) for the hook's type and
// content type and adds the delivery headers. secret and authz are in
// clear, never logged.
func buildRequest(hookType, hookURL string, contentType int, meta string, uuid, event, eventType string, payload []byte, secret, authz string) (*request, error) {
	body := payload
	switch hookType {
	case "gitea", "gogs":
	case "slack", "discord", "msteams":
		b, err := chatBody(hookType, meta, eventType, payload)
		if err != nil {
			return nil, err
		}
		body = b
	default:
		return nil, fmt.Errorf("webhook type %s: delivery not supported", hookType)
	}
	r := &request{URL: hookURL, Method: http.MethodPost, ContentType: "application/json", Headers: http.Header{}, Body: body}
	if contentType == contentForm && (hookType == "gitea" || hookType == "gogs") {
		r.ContentType = "application/x-www-form-urlencoded"
		r.Body = []byte("payload=" + url.QueryEscape(string(payload)))
	}
	var sig1, sig256 string
	if secret != "" {
		m1 := hmac.New(sha1.New, []byte(secret))
		m1.Write(r.Body)
		sig1 = hex.EncodeToString(m1.Sum(nil))
		m256 := hmac.New(sha256.New, []byte(secret))
		m256.Write(r.Body)
		sig256 = hex.EncodeToString(m256.Sum(nil))
	}
	h := r.Headers
	h.Set("User-Agent", "GiteaServer")
	h.Set("Content-Type", r.ContentType)
	h.Set("X-Gitea-Delivery", uuid)
	h.Set("X-Gitea-Event", event)
	h.Set("X-Gitea-Event-Type", eventType)
	h.Set("X-Gitea-Signature", sig256)
	h.Set("X-Gogs-Delivery", uuid)
	h.Set("X-Gogs-Event", event)
	h.Set("X-Gogs-Event-Type", eventType)
	h.Set("X-Gogs-Signature", sig256)
	h.Set("X-Hub-Signature", "sha1="+sig1)
	h.Set("X-Hub-Signature-256", "sha256="+sig256)
	h.Set("X-GitHub-Delivery", uuid)
	h.Set("X-GitHub-Event", event)
	h.Set("X-GitHub-Event-Type", eventType)
	if authz != "" {
		h.Set("Authorization", authz)
	}
	return r, nil
}

// maxResponseKept bounds the response body a delivery keeps.
const maxResponseKept = 16 << 10

// record is what the history keeps of an attempt: headers (the
// Authorization header masked) and, for the response, a bounded body.
type record struct {
	URL     string            `json:"url,omitempty"`
	Method  string            `json:"http_method,omitempty"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

func headerMap(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k := range h {
		v := h.Get(k)
		if strings.EqualFold(k, "Authorization") {
			v = "******"
		}
		out[k] = v
	}
	return out
}

// send makes one attempt and reports whether the receiver answered 2xx,
// with the request and response to keep.
func send(ctx context.Context, c *http.Client, r *request) (ok bool, reqInfo, respInfo string) {
	rec := record{URL: r.URL, Method: r.Method, Headers: headerMap(r.Headers)}
	b, _ := json.Marshal(rec)
	reqInfo = string(b)
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return false, reqInfo, errInfo(err)
	}
	req.Header = r.Headers.Clone()
	resp, err := c.Do(req)
	if err != nil {
		return false, reqInfo, errInfo(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseKept))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	out, _ := json.Marshal(record{Status: resp.StatusCode, Headers: headerMap(resp.Header), Body: string(body)})
	return resp.StatusCode >= 200 && resp.StatusCode < 300, reqInfo, string(out)
}

func errInfo(err error) string {
	b, _ := json.Marshal(record{Headers: map[string]string{}, Body: err.Error()})
	return string(b)
}
