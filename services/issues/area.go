// Package issues serves forge.issues.v1.IssueService, the issue tracker:
// issues (which share their table and per-repository index with pull
// requests) and their comments. Who may call what is declared in the
// proto (option forge.options.v1.policy); rules on a second object (a
// poster, an assignee) are functions of services/access.
package issues

import (
	"google.golang.org/grpc"

	issuesv1 "forge/gen/forge/issues/v1"
	"forge/services/area"
)

// Area declares the issues area to the server (see package area).
var Area = area.Area{
	Name:     "issues",
	Services: []*grpc.ServiceDesc{&issuesv1.IssueService_ServiceDesc, &issuesv1.IssueTimelineService_ServiceDesc},
	Gateways: []area.Gateway{
		area.Handlers(issuesv1.RegisterIssueServiceHandlerClient, issuesv1.NewIssueServiceClient),
		area.Handlers(issuesv1.RegisterIssueTimelineServiceHandlerClient, issuesv1.NewIssueTimelineServiceClient),
	},
	RepoTables: []string{"issues", "issue_index", "comments", "issue_assignees", "issue_mentions", "activities"},
	// A deleted account is no longer mentioned nor assigned; the issues
	// and comments it posted stay, shown as the ghost user (as Gitea).
	UserTables: []area.Column{{Table: "issue_mentions", Column: "user_id"}, {Table: "issue_assignees", Column: "assignee_id"}},
}
