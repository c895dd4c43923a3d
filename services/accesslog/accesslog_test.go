package accesslog

import (
	"net/url"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/user":                               "/api/v1/user",
		"/api/v1/user?token=abc":                     "/api/v1/user?token=REDACTED",
		"/api/v1/user?access_token=abc&page=2":       "/api/v1/user?access_token=REDACTED&page=2",
		"/api/v1/repos/search?q=x&Token=abc":         "/api/v1/repos/search?Token=REDACTED&q=x",
		"/o/r.git/info/refs?service=git-upload-pack": "/o/r.git/info/refs?service=git-upload-pack",
		"/api/v1/user?token=abc;x=%zz":               "/api/v1/user?(unparsable query)",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := CleanPath(u); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestRequestID(t *testing.T) {
	if RequestID("abc-123_x.y:z") != "abc-123_x.y:z" {
		t.Error("a sane id is kept")
	}
	for _, bad := range []string{"", "has space", "new\nline", strings.Repeat("a", 65), "<script>"} {
		id := RequestID(bad)
		if id == bad || len(id) != 24 || !sane(id) {
			t.Errorf("%q: %q", bad, id)
		}
	}
	if RequestID("") == RequestID("") {
		t.Error("generated ids repeat")
	}
}
