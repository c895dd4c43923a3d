package webhooks

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestEventsExpanded(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{nil, []string{"push"}},
		{[]string{"Issues"}, []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}},
		{[]string{"issues_only", "nonsense"}, []string{"issues"}},
		{[]string{"pull_request_review", "release", "create"}, []string{"create", "pull_request_review_approved",
			"pull_request_review_rejected", "pull_request_review_comment", "release"}},
		{[]string{"pull_request"}, []string{"pull_request", "pull_request_assign", "pull_request_label",
			"pull_request_milestone", "pull_request_comment", "pull_request_review_approved", "pull_request_review_rejected",
			"pull_request_review_comment", "pull_request_sync", "pull_request_review_request"}},
	} {
		if got := eventNames(chooseEvents(c.in)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v, want %v", c.in, got, c.want)
		}
	}
	stored := chooseEvents([]string{"issues_only", "pull_request_review"})
	for typ, want := range map[string]bool{"issues": true, "issue_label": false, "pull_request_review_approved": true,
		"pull_request": false, "push": false} {
		if hears(stored, typ) != want {
			t.Errorf("hears %s: %v", typ, !want)
		}
	}
}

func TestHostList(t *testing.T) {
	for _, c := range []struct {
		list string
		ip   string
		want bool
	}{
		{"", "8.8.8.8", true},
		{"", "127.0.0.1", false},
		{"external", "10.1.2.3", false},
		{"external", "169.254.169.254", false}, // cloud metadata: link-local
		{"external", "::1", false},
		{"external", "fd00::1", false},
		{"external", "0.0.0.0", false},
		{"loopback", "127.0.0.1", true},
		{"loopback", "8.8.8.8", false},
		{"private", "192.168.1.1", true},
		{"192.168.1.0/24", "192.168.1.9", true},
		{"192.168.1.0/24", "192.168.2.9", false},
		{"*", "169.254.169.254", true},
	} {
		if got := ParseHostList(c.list).AllowsIP(net.ParseIP(c.ip)); got != c.want {
			t.Errorf("%q %s: %v", c.list, c.ip, got)
		}
	}
	if !ParseHostList("*.example.com").allowsName("hooks.example.com") || ParseHostList("*.example.com").allowsName("example.org") {
		t.Error("host name globs")
	}
}

func TestBuildRequestSigned(t *testing.T) {
	payload := []byte(`{"action":"opened"}`)
	r, err := buildRequest("gitea", "http://h/x", contentJSON, "", "uuid-1", "issues", "issues", payload, "s3cret", "Bearer x")
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write(payload)
	sig := hex.EncodeToString(m.Sum(nil))
	m1 := hmac.New(sha1.New, []byte("s3cret"))
	m1.Write(payload)
	h := r.Headers
	if string(r.Body) != string(payload) || h.Get("X-Gitea-Signature") != sig || h.Get("X-Gogs-Signature") != sig ||
		h.Get("X-Hub-Signature-256") != "sha256="+sig || h.Get("X-Hub-Signature") != "sha1="+hex.EncodeToString(m1.Sum(nil)) ||
		h.Get("X-Gitea-Delivery") != "uuid-1" || h.Get("X-GitHub-Event") != "issues" || h.Get("Authorization") != "Bearer x" {
		t.Fatalf("headers %v", h)
	}
	rec := headerMap(h)
	if rec["Authorization"] != "******" {
		t.Fatalf("the history keeps the authorization header: %v", rec)
	}

	// Form: the signature covers the body as sent.
	r, _ = buildRequest("gogs", "http://h/x", contentForm, "", "u", "push", "push", payload, "s3cret", "")
	q, err := url.ParseQuery(string(r.Body))
	if err != nil || q.Get("payload") != string(payload) || r.ContentType != "application/x-www-form-urlencoded" {
		t.Fatalf("form body %q", r.Body)
	}
	m = hmac.New(sha256.New, []byte("s3cret"))
	m.Write(r.Body)
	if r.Headers.Get("X-Gitea-Signature") != hex.EncodeToString(m.Sum(nil)) {
		t.Fatal("form signature")
	}
	if _, err := buildRequest("matrix", "http://h/x", contentJSON, "", "u", "push", "push", payload, "", ""); err == nil {
		t.Fatal("matrix delivered")
	}
}

func TestChatFormats(t *testing.T) {
	payload := []byte(`{"action":"opened","issue":{"number":3,"title":"Crash","html_url":"http://f/a/b/issues/3","body":"it broke"},
		"repository":{"full_name":"a/b","html_url":"http://f/a/b"},"sender":{"login":"alice","avatar_url":"http://f/av"}}`)
	for typ, want := range map[string]string{
		"slack":   `"channel":"#dev"`,
		"discord": `"title":"[a/b] Issue opened: #3 Crash"`,
		"msteams": `"@type":"MessageCard"`,
	} {
		r, err := buildRequest(typ, "http://h/x", contentJSON, `{"channel":"#dev"}`, "u", "issues", "issues", payload, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(r.Body) || !strings.Contains(string(r.Body), want) || r.ContentType != "application/json" {
			t.Errorf("%s: %s", typ, r.Body)
		}
	}
}

func TestBackoff(t *testing.T) {
	if backoff(1).Seconds() != 10 || backoff(2).Seconds() != 30 || backoff(20).Hours() != 1 {
		t.Fatal(backoff(1), backoff(2), backoff(20))
	}
	if u := newUUID(); len(u) != 36 || u[14] != '4' {
		t.Fatal(u)
	}
}
