package templates

import (
	"strings"
	"testing"
)

func TestLists(t *testing.T) {
	l := Licenses()
	if len(l) < 500 || l[0] != "Apache-2.0" || l[1] != "MIT" {
		t.Fatalf("licenses: %d, first %v", len(l), l[:2])
	}
	if _, ok := License("../license/MIT"); ok {
		t.Error("a path is not a license name")
	}
	if g := Gitignores(); len(g) < 100 {
		t.Fatalf("gitignores: %d", len(g))
	}
	for _, n := range []string{"Go", "macOS", "C++"} {
		if _, ok := Gitignore(n); !ok {
			t.Errorf("gitignore %s missing", n)
		}
	}
	for _, set := range LabelSets() {
		labels, ok := LabelSet(set)
		if !ok || len(labels) == 0 {
			t.Fatalf("label set %s empty", set)
		}
		for _, l := range labels {
			if len(l.Color) != 6 || l.Name == "" || l.Description == "" {
				t.Errorf("label set %s: %+v", set, l)
			}
		}
	}
	if got := strings.Join(LabelSets(), ","); got != "Advanced,Default" {
		t.Errorf("label sets %s", got)
	}
}

func TestLicenseFile(t *testing.T) {
	b, _ := LicenseFile("MIT", LicenseValues{Owner: "alice", Email: "a@x", Repo: "r", Year: "2026"})
	if !strings.Contains(string(b), "Copyright (c) 2026 alice\n") {
		t.Errorf("MIT: %.80q", b)
	}
	b, _ = LicenseFile("0BSD", LicenseValues{Owner: "alice", Email: "a@x", Repo: "r", Year: "2026"})
	if !strings.Contains(string(b), "Copyright (C) 2026 by alice a@x") || !strings.Contains(string(b), "THE AUTHOR") {
		t.Errorf("0BSD: %q", b)
	}
	g, bad := GitignoreFile("Go,Nope")
	if g != nil || bad != "Nope" {
		t.Errorf("unknown gitignore: %q", bad)
	}
}
