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
