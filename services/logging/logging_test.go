package logging

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forge/services/config"
)

func TestLevelAndModes(t *testing.T) {
	c := config.Default().Log
	c.Level = "Warn"
	var console bytes.Buffer
	l, err := Open(c, &console)
	if err != nil {
		t.Fatal(err)
	}
	l.Main.Info("quiet")
	l.Main.Warn("loud")
	if strings.Contains(console.String(), "quiet") || !strings.Contains(console.String(), "loud") || l.Access != nil {
		t.Fatalf("Warn level: %q, access %v", console.String(), l.Access)
	}

	c.Level, c.Modes, c.RootPath, c.EnableAccessLog = "None", []string{"console", "file"}, t.TempDir(), true
	console.Reset()
	l, err = Open(c, &console)
	if err != nil {
		t.Fatal(err)
	}
	l.Main.Error("nothing at None")
	l.Access.Info("access", "route", "/x")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	main, _ := os.ReadFile(filepath.Join(c.RootPath, MainFile))
	access, _ := os.ReadFile(filepath.Join(c.RootPath, AccessFile))
	if len(main) != 0 || !bytes.Contains(access, []byte("route=/x")) || !strings.Contains(console.String(), "route=/x") ||
		strings.Contains(console.String(), "nothing") {
		t.Fatalf("None with access log: main %q, access %q, console %q", main, access, console.String())
	}

	c.Modes = []string{"syslog"}
	if _, err := Open(c, &console); err == nil || !strings.Contains(err.Error(), "[log] MODE") {
		t.Fatalf("syslog: %v", err)
	}
}
