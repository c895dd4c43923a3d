package git

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestLimitProcesses: while the only slot is held by a running upload-pack
// (its request body still open), any other git operation fails at once
// with ErrBusy; once the process is reaped the slot is free again.
func TestLimitProcesses(t *testing.T) {
	s := newTestStore(t)
	path := newRepo(t, s, "alice", "repo")
	s.LimitProcesses(1)

	body, feed := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.UploadPack(context.Background(), path, body, io.Discard, "") }()
	deadline := time.Now().Add(10 * time.Second)
	for s.Running() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("upload-pack never started")
		}
		time.Sleep(10 * time.Millisecond)
	}

	err := s.AdvertiseRefs(context.Background(), path, ServiceUploadPack, "", io.Discard)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("second process: got %v, want ErrBusy", err)
	}

	feed.Close()
	<-done
	if n := s.Running(); n != 0 {
		t.Fatalf("running after wait: %d", n)
	}
	if err := s.AdvertiseRefs(context.Background(), path, ServiceUploadPack, "", io.Discard); err != nil {
		t.Fatalf("after the slot is free: %v", err)
	}
}
