package webhooks

import "strings"

// The event flags a hook chooses, stored comma-separated (store.Webhook.
// Events). Most are Gitea's event names; "issues" and "pull_request" stand
// for Gitea's issues_only and pull_request_only (the opened, closed,
// edited... actions alone), "pull_request_review" for the three review
// events.
const (
	evCreate                   = "create"
	evDelete                   = "delete"
	evFork                     = "fork"
	evPush                     = "push"
	evIssues                   = "issues"
	evIssueAssign              = "issue_assign"
	evIssueLabel               = "issue_label"
	evIssueMilestone           = "issue_milestone"
	evIssueComment             = "issue_comment"
	evPullRequest              = "pull_request"
	evPullRequestAssign        = "pull_request_assign"
	evPullRequestLabel         = "pull_request_label"
	evPullRequestMilestone     = "pull_request_milestone"
	evPullRequestComment       = "pull_request_comment"
	evPullRequestReview        = "pull_request_review"
	evPullRequestSync          = "pull_request_sync"
	evWiki                     = "wiki"
	evRepository               = "repository"
	evRelease                  = "release"
	evPullRequestReviewRequest = "pull_request_review_request"
)

// flagOrder is the order Gitea lists a hook's events in.
var flagOrder = []string{evCreate, evDelete, evFork, evPush, evIssues, evIssueAssign, evIssueLabel,
	evIssueMilestone, evIssueComment, evPullRequest, evPullRequestAssign, evPullRequestLabel,
	evPullRequestMilestone, evPullRequestComment, evPullRequestReview, evPullRequestSync, evWiki,
	evRepository, evRelease, evPullRequestReviewRequest}

var issueFlags = []string{evIssues, evIssueAssign, evIssueLabel, evIssueMilestone, evIssueComment}

var pullFlags = []string{evPullRequest, evPullRequestAssign, evPullRequestLabel, evPullRequestMilestone,
	evPullRequestComment, evPullRequestReview, evPullRequestReviewRequest, evPullRequestSync}

// chooseEvents turns the event names of a create or edit (matched
// case-insensitively; unknown names ignored, as Gitea; none: push) into
// the stored flags.
func chooseEvents(names []string) string {
	if len(names) == 0 {
		names = []string{evPush}
	}
	set := map[string]bool{}
	for _, n := range names {
		switch n = strings.ToLower(strings.TrimSpace(n)); n {
		case "issues":
			for _, f := range issueFlags {
				set[f] = true
			}
		case "issues_only":
			set[evIssues] = true
		case "pull_request":
			for _, f := range pullFlags {
				set[f] = true
			}
		case "pull_request_only":
			set[evPullRequest] = true
		default:
			for _, f := range flagOrder {
				if f == n && f != evIssues && f != evPullRequest {
					set[f] = true
				}
			}
		}
	}
	var out []string
	for _, f := range flagOrder {
		if set[f] {
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

func flagSet(stored string) map[string]bool {
	set := map[string]bool{}
	for _, f := range strings.Split(stored, ",") {
		if f != "" {
			set[f] = true
		}
	}
	return set
}

// eventNames is a hook's events as Gitea's JSON lists them: the review
// flag as its three events.
func eventNames(stored string) []string {
	set := flagSet(stored)
	out := []string{}
	for _, f := range flagOrder {
		if !set[f] {
			continue
		}
		if f == evPullRequestReview {
			out = append(out, "pull_request_review_approved", "pull_request_review_rejected", "pull_request_review_comment")
			continue
		}
		out = append(out, f)
	}
	return out
}

// hears reports whether a hook with the stored flags is sent an event of
// Gitea's type typ (issues, issue_label, pull_request_review_approved,
// push, ...).
func hears(stored, typ string) bool {
	set := flagSet(stored)
	switch typ {
	case "pull_request_review_approved", "pull_request_review_rejected", "pull_request_review_comment":
		return set[evPullRequestReview]
	}
	return set[typ]
}
