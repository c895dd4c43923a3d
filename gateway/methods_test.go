package gateway

import (
	"net/http"
	"testing"

	actionsv1 "forge/gen/forge/actions/v1"
	adminv1 "forge/gen/forge/admin/v1"
	branchesv1 "forge/gen/forge/branches/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	issuesv1 "forge/gen/forge/issues/v1"
	notificationsv1 "forge/gen/forge/notifications/v1"
	pullsv1 "forge/gen/forge/pulls/v1"
	reposv1 "forge/gen/forge/repos/v1"
	watchv1 "forge/gen/forge/watch/v1"
)

// TestSuccessStatusesFromProto: the success statuses come from the method
// options in the protos, for every routed method.
func TestSuccessStatusesFromProto(t *testing.T) {
	routes, err := loadRoutes()
	if err != nil {
		t.Fatal(err)
	}
	got, err := successStatuses(routes)
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]int{
		adminv1.AdminService_CreateUser_FullMethodName:                 http.StatusCreated,
		adminv1.AdminService_DeleteUser_FullMethodName:                 http.StatusNoContent,
		reposv1.RepositoryService_CreateCurrentUserRepo_FullMethodName: http.StatusCreated,
		reposv1.RepositoryService_CheckCollaborator_FullMethodName:     http.StatusNoContent,
		branchesv1.BranchService_CreateBranch_FullMethodName:           http.StatusCreated,
		contentsv1.ContentService_CreateFile_FullMethodName:            http.StatusCreated,
		watchv1.WatchService_Unwatch_FullMethodName:                    http.StatusNoContent,
		reposv1.RepositoryService_GetRepo_FullMethodName:               http.StatusOK,
		contentsv1.ContentService_GetRawFile_FullMethodName:            http.StatusOK,
		notificationsv1.NotificationService_ReadThread_FullMethodName:  http.StatusResetContent,
	} {
		if got[method] != want {
			t.Errorf("%s: %d, want %d", method, got[method], want)
		}
	}
	for _, method := range routes {
		if _, ok := got[method]; !ok {
			t.Errorf("%s is routed but has no success status", method)
		}
	}
}

// TestNoLinkHeadersFromProto: the lists that send no Link header are those
// whose proto says so.
func TestNoLinkHeadersFromProto(t *testing.T) {
	routes, err := loadRoutes()
	if err != nil {
		t.Fatal(err)
	}
	got, err := noLinkHeaders(routes)
	if err != nil {
		t.Fatal(err)
	}
	if !got[notificationsv1.NotificationService_ListNotifications_FullMethodName] || got[watchv1.WatchService_ListSubscribers_FullMethodName] {
		t.Errorf("no_link_header read wrong: %v", got)
	}
}

// TestAnswerStatusesFromProto: the answers that take another status when
// a field says how the request ended are exactly those whose proto
// declares it (status_if_set), with their status and body rule.
func TestAnswerStatusesFromProto(t *testing.T) {
	routes, err := loadRoutes()
	if err != nil {
		t.Fatal(err)
	}
	got, err := answerStatuses(routes)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct {
		field  string
		status int
		noBody bool
	}
	want := map[string]rule{
		actionsv1.ActionsService_PutRepoSecret_FullMethodName:       {"created", http.StatusCreated, true},
		actionsv1.ActionsService_PutOrgSecret_FullMethodName:        {"created", http.StatusCreated, true},
		actionsv1.ActionsService_PutUserSecret_FullMethodName:       {"created", http.StatusCreated, true},
		watchv1.WatchService_SubscribeIssue_FullMethodName:          {"created", http.StatusCreated, true},
		watchv1.WatchService_UnsubscribeIssue_FullMethodName:        {"created", http.StatusCreated, true},
		pullsv1.PullMergeService_MergePullRequest_FullMethodName:    {"created", http.StatusCreated, true},
		issuesv1.ReactionService_PostIssueReaction_FullMethodName:   {"existed", http.StatusOK, false},
		issuesv1.ReactionService_PostCommentReaction_FullMethodName: {"existed", http.StatusOK, false},
		reposv1.RepositoryService_TransferRepo_FullMethodName:       {"pending", http.StatusCreated, false},
	}
	for method, w := range want {
		a, ok := got[method]
		if !ok {
			t.Errorf("%s: no status_if_set", method)
			continue
		}
		if r := (rule{string(a.field.Name()), a.status, a.noBody}); r != w {
			t.Errorf("%s: %+v, want %+v", method, r, w)
		}
	}
	for method := range got {
		if _, ok := want[method]; !ok {
			t.Errorf("%s: an unexpected status_if_set", method)
		}
	}
}
