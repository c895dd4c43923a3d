package timetrack

import "testing"

// TestDuration: Gitea's wording of a stopwatch's seconds, two units at
// most.
func TestDuration(t *testing.T) {
	for secs, want := range map[int64]string{
		0: "", 1: "1 second", 66: "1 minute 6 seconds", 3600: "1 hour", 52410: "14 hours 33 minutes",
		563418: "6 days 12 hours", 1563418: "2 weeks 4 days", 3937125: "1 month 2 weeks", 45677465: "1 year 5 months",
	} {
		if got := Duration(secs); got != want {
			t.Errorf("Duration(%d) = %q, want %q", secs, got, want)
		}
	}
}
