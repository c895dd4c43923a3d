// Package issues is the issue tracker: issues (which share their table and
// per-repository index with pull requests) and their comments.
package issues

import "forge/services/area"

// Area declares the issues area to the server (see package area). Its
// service is being built; the tables exist already, so a repository delete
// clears them.
var Area = area.Area{
	Name:       "issues",
	RepoTables: []string{"issues", "issue_index", "comments", "issue_assignees", "activities"},
}
