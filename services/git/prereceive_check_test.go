package git

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestReceivePackCheckedWithoutHook: a push request that updates nothing
// never runs the hook; the call still returns (the checker waiting on its
// pipe is released) and the check is never asked.
func TestReceivePackCheckedWithoutHook(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "alice", "proj")
	done := make(chan error, 1)
	go func() {
		_, err := s.ReceivePackChecked(context.Background(), path, strings.NewReader("0000"), &bytes.Buffer{}, "",
			func(context.Context, *Quarantine) ([]string, bool) {
				t.Error("check asked without a hook run")
				return nil, true
			})
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ReceivePackChecked hangs when the hook never runs")
	}
	checkNoScratch(t, s)
}
