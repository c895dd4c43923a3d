package store_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"forge/services/store"
	"forge/services/store/storetest"
)

// BenchmarkFanOutBatch is one notifier batch: 50 activities on 50 issues
// of a repository with 20 watchers (the shape of many concurrent issue
// creations). Its statements keep one text whatever the batch size, so
// they stay prepared.
//
//	go test -run '^$' -bench 'FanOutBatch' -benchmem ./services/store/
func BenchmarkFanOutBatch(b *testing.B) {
	const acts, watchers = 50, 20
	for _, kind := range storetest.Backends {
		b.Run(kind, func(b *testing.B) {
			s := storetest.Open(b, kind)
			repo, first, actor := benchWatchedIssue(b, s, watchers)
			// Threads are for readers of the issues unit.
			repo.HasIssues = true
			if err := s.DB().Model(repo).Select("has_issues").Updates(repo).Error; err != nil {
				b.Fatal(err)
			}
			issues := []int64{first.ID}
			for i := 2; i <= acts; i++ {
				is := &store.Issue{RepoID: repo.ID, Index: int64(i), PosterID: actor, Title: fmt.Sprint("issue ", i)}
				if err := s.DB().Create(is).Error; err != nil {
					b.Fatal(err)
				}
				issues = append(issues, is.ID)
			}
			ctx := context.Background()
			batch := make([]store.Activity, acts)
			var cpu int64 // this process's CPU time in the fan-outs
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				for j := range batch {
					batch[j] = store.Activity{Kind: store.ActivityCommented, RepoID: repo.ID, IssueID: issues[j], ActorID: actor, CreatedUnix: int64(i + 1)}
				}
				if err := s.DB().Create(&batch).Error; err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				c0 := processCPU()
				if n, err := s.FanOutActivities(ctx, acts); err != nil || n != acts {
					b.Fatal(n, err)
				}
				cpu += processCPU() - c0
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			var n int64
			s.DB().Model(&store.Notification{}).Count(&n)
			if n != acts*watchers {
				b.Fatalf("%d threads, want %d", n, acts*watchers)
			}
		})
	}
}

// processCPU is the process's user and system CPU time, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// A batch too large for one placeholder per value (SQLite takes 32,766
// parameters, PostgreSQL 65,535; 11,000 issues' rows of six were 66,000)
// fans out as a small one does: every watcher gets every issue's thread,
// the actor none, and the queue is empty after.
func TestFanOutLargeBatch(t *testing.T) {
	const issues = 11000
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := newNotifyWorld(t, s, "alice", "bob")
		list := make([]store.Issue, issues)
		for i := range list {
			list[i] = store.Issue{RepoID: w.repo.ID, Index: int64(i + 1), PosterID: w.users["owner"].ID, Title: "t", CreatedUnix: 1, UpdatedUnix: 1}
		}
		if err := s.DB().CreateInBatches(list, 1000).Error; err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"alice", "bob"} {
			if err := s.DB().Create(&store.Watch{UserID: w.users[n].ID, RepoID: w.repo.ID}).Error; err != nil {
				t.Fatal(err)
			}
		}
		acts := make([]store.Activity, issues)
		for i := range acts {
			acts[i] = store.Activity{Kind: store.ActivityCommented, RepoID: w.repo.ID, IssueID: list[i].ID, ActorID: w.users["owner"].ID, CreatedUnix: int64(i + 2)}
		}
		if err := s.DB().CreateInBatches(acts, 1000).Error; err != nil {
			t.Fatal(err)
		}
		n, err := s.FanOutActivities(ctx, issues+1)
		if err != nil || n != issues {
			t.Fatalf("claimed %d, %v; want %d", n, err, issues)
		}
		var threads []store.Notification
		if err := s.DB().Find(&threads).Error; err != nil {
			t.Fatal(err)
		}
		want := map[int64]bool{w.users["alice"].ID: true, w.users["bob"].ID: true}
		seen := map[[2]int64]bool{}
		for _, th := range threads {
			if !want[th.UserID] || th.Status != store.NotificationUnread || th.RepoID != w.repo.ID {
				t.Fatalf("thread %+v", th)
			}
			seen[[2]int64{th.UserID, th.IssueID}] = true
		}
		if len(threads) != 2*issues || len(seen) != 2*issues {
			t.Fatalf("%d threads (%d distinct), want %d", len(threads), len(seen), 2*issues)
		}
		var left int64
		if err := s.DB().Model(&store.Activity{}).Count(&left).Error; err != nil || left != 0 {
			t.Fatalf("%d activities left, %v", left, err)
		}
	})
}
