package cron

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute: "@every 10m", time.Hour: "@every 1h", 2 * time.Second: "@every 2s",
		90 * time.Minute: "@every 1h30m", time.Minute + 5*time.Second: "@every 1m5s",
	} {
		if got := Schedule(d); got != want {
			t.Errorf("Schedule(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := New()
	var slow, fast, woken atomic.Int64
	wake := make(chan struct{}, 1)
	must(t, r.Add(Task{Name: "slow", Every: time.Hour, Do: func(context.Context) error { slow.Add(1); return nil }}))
	must(t, r.Add(Task{Name: "fast", Every: 10 * time.Millisecond, AtStart: true,
		Do: func(context.Context) error { fast.Add(1); return errors.New("fails") }, MaxBackoff: 40 * time.Millisecond}))
	var notWoken, manual atomic.Int64
	must(t, r.Add(Task{Name: "woken", Every: time.Hour, Wake: wake, Do: func(ctx context.Context) error {
		if !Woken(ctx) {
			notWoken.Add(1)
		}
		if Manual(ctx) {
			manual.Add(1)
		}
		woken.Add(1)
		return nil
	}}))
	if err := r.Add(Task{Name: "slow", Every: time.Hour, Do: func(context.Context) error { return nil }}); err == nil {
		t.Fatal("a name added twice was accepted")
	}
	if r.Start("nope") {
		t.Fatal("Start of an unknown task reported true")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()

	waitFor(t, func() bool { return fast.Load() >= 3 })
	if !r.Start("slow") {
		t.Fatal("Start(slow) = false")
	}
	waitFor(t, func() bool { return slow.Load() == 1 })
	wake <- struct{}{}
	waitFor(t, func() bool { return woken.Load() == 1 })
	if notWoken.Load() != 0 || manual.Load() != 0 {
		t.Fatal("a woken round did not know it, or thought it manual")
	}
	r.Start("woken")
	waitFor(t, func() bool { return woken.Load() == 2 })
	if notWoken.Load() != 1 || manual.Load() != 1 {
		t.Fatal("a manual round thought it was woken, or did not know it was manual")
	}

	list := r.List()
	if len(list) != 3 || list[0].Name != "fast" || list[1].Name != "slow" || list[2].Name != "woken" {
		t.Fatalf("List = %+v", list)
	}
	s := list[1]
	if s.Schedule != "@every 1h" || s.ExecTimes != 1 || s.Prev.IsZero() || time.Until(s.Next) < 50*time.Minute {
		t.Fatalf("slow = %+v", s)
	}
	cancel()
	<-done
	if r.Start("slow") != true {
		t.Fatal("Start after Run stopped should still know the task")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
