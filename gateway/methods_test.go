package gateway

import (
	"net/http"
	"testing"

	adminv1 "forge/gen/forge/admin/v1"
	branchesv1 "forge/gen/forge/branches/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	notificationsv1 "forge/gen/forge/notifications/v1"
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
