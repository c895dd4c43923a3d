package attachments

import (
	"errors"
	"testing"

	"forge/services/config"
)

func TestCheckType(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, c := range []struct {
		allowed, name string
		head          []byte
		ok            bool
	}{
		{"", "x.exe", []byte("MZ"), true},
		{"*/*", "x.exe", []byte("MZ"), true},
		{config.DefaultAllowedTypes, "notes.txt", []byte("hi"), true},
		{config.DefaultAllowedTypes, "NOTES.TXT", []byte("hi"), true},
		{config.DefaultAllowedTypes, "x.exe", []byte("MZ\x90\x00"), false},
		{config.DefaultAllowedTypes, "x.exe", nil, false},
		{"image/*", "pic", png, true},
		{"image/png", "pic", png, true},
		{"image/png", "pic", []byte("text"), false},
		{".zip|.gz", "a.gz", nil, true},
		{" .ZIP , .gz ", "a.zip", nil, true},
	} {
		err := checkType(c.allowed, c.name, c.head)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrTypeNotAllowed)) {
			t.Errorf("checkType(%q, %q): %v, want ok=%v", c.allowed, c.name, err, c.ok)
		}
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{"a.txt": "a.txt", "../../etc/passwd": "passwd", `C:\dir\x.zip`: "x.zip", " b.txt ": "b.txt", "dir/": "",
		"a\x1b[31m.txt": "a[31m.txt", "x\r\nSet-Cookie: y": "xSet-Cookie: y", "a/\tb\u0085.txt": "b.txt"} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%q) = %q, want %q", in, got, want)
		}
	}
}
