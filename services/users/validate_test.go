package users

import "testing"

func TestCheckReserved(t *testing.T) {
	for name, want := range map[string]string{
		"admin":           "name is reserved [name: admin]",
		"Issues":          "name is reserved [name: issues]",
		"pulls":           "name is reserved [name: pulls]",
		"milestones":      "name is reserved [name: milestones]",
		"debug":           "name is reserved [name: debug]",
		"metrics":         "name is reserved [name: metrics]",
		"swagger.v1.json": "name is reserved [name: swagger.v1.json]",
		"healthz":         "name is reserved [name: healthz]",
		"alice.keys":      "name pattern is not allowed [pattern: *.keys]",
		"alice.GPG":       "name pattern is not allowed [pattern: *.gpg]",
		"news.rss":        "name pattern is not allowed [pattern: *.rss]",
		"news.atom":       "name pattern is not allowed [pattern: *.atom]",
		"alice":           "",
		"keys":            "",
		"issues-team":     "",
	} {
		err := CheckReserved(name)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckReserved(%q) = %q, want %q", name, got, want)
		}
	}
}
