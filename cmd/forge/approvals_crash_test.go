package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"forge/services/repos"
)

// TestStaleApprovalCrashAfterHeadMoved: forge is killed after a change
// of a pull request's head branch moved the ref and before it was
// recorded; once forge is back, the approval given on the old head is
// dismissed (dismiss_stale_approvals), as it is without the crash.
func TestStaleApprovalCrashAfterHeadMoved(t *testing.T) {
	eachCrashBackend(t, func(t *testing.T, f *crashForge) {
		f.start("")
		f.createRepo("proj", true)
		content := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
		f.mustAPI("POST", "/api/v1/repos/root/proj/contents/f.txt",
			fmt.Sprintf(`{"content":%q,"branch":"main","new_branch":"feature","message":"add f"}`, content("one\n")), 201)
		f.mustAPI("POST", "/api/v1/repos/root/proj/pulls", `{"head":"feature","base":"main","title":"Feature"}`, 201)
		f.mustAPI("POST", "/api/v1/repos/root/proj/branch_protections",
			`{"rule_name":"main","required_approvals":1,"dismiss_stale_approvals":true}`, 201)
		f.mustAPI("POST", "/api/v1/admin/users",
			`{"username":"bob","email":"bob@example.org","password":"bob-password-1","must_change_password":false}`, 201)
		f.mustAPI("PUT", "/api/v1/repos/root/proj/collaborators/bob", `{"permission":"write"}`, 204)
		req, _ := http.NewRequest("POST", f.base+"/api/v1/repos/root/proj/pulls/1/reviews", strings.NewReader(`{"event":"APPROVED","body":"ok"}`))
		req.SetBasicAuth("bob", "bob-password-1")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var review struct {
			ID        int64 `json:"id"`
			Dismissed bool  `json:"dismissed"`
			Official  bool  `json:"official"`
		}
		if err := json.Unmarshal(b, &review); err != nil || resp.StatusCode != 200 || !review.Official {
			t.Fatalf("approve: %d %s", resp.StatusCode, b)
		}
		var file struct {
			Content struct {
				SHA string `json:"sha"`
			} `json:"content"`
		}
		json.Unmarshal(f.mustAPI("GET", "/api/v1/repos/root/proj/contents/f.txt?ref=feature", "", 200), &file.Content)
		f.stop()

		f.start(repos.FailpointAfterRefUpdate)
		f.api("PUT", "/api/v1/repos/root/proj/contents/f.txt",
			fmt.Sprintf(`{"content":%q,"branch":"feature","sha":%q,"message":"change f"}`, content("two\n"), file.Content.SHA)) // fails: the server died
		f.waitKilled()
		f.start("")
		deadline := time.Now().Add(5 * time.Second)
		for {
			json.Unmarshal(f.mustAPI("GET", fmt.Sprintf("/api/v1/repos/root/proj/pulls/1/reviews/%d", review.ID), "", 200), &review)
			if review.Dismissed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the stale approval is not dismissed within 5s of the restart; log:\n%s", f.log)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if code, _, b := f.api("POST", "/api/v1/repos/root/proj/pulls/1/merge", `{"Do":"merge"}`); code != 405 ||
			!strings.Contains(string(b), "Does not have enough approvals") {
			t.Fatalf("merge after the dismissal: %d %s", code, b)
		}
	})
}
