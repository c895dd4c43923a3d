package bench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The seeded repositories: reads measure "data", whose content the bench
// owns and never changes once seeded; the write endpoint creates issues in
// "writes", so that measuring never changes what the reads return and a
// second run finds the dataset exactly as seeded.
const (
	dataRepo  = "bench"
	writeRepo = "bench-writes"
	tokenName = "forge-bench"
	// userMark is the full name of the seeded user: a user of that name
	// without it is somebody else's, and is left alone.
	userMark = "forge bench dataset"
)

// dataset is what the load needs to know about the seeded data.
type dataset struct {
	Owner      string
	Repo       string
	WriteRepo  string
	Token      string // the seeded user's token (all scopes), made by this run
	IssueIndex int64  // the first seeded issue
}

// created counts what a seeding run created.
type created struct {
	Users, Repos, Commits, Labels, Issues, Comments int
}

func (c created) String() string {
	if c == (created{}) {
		return "nothing to create, the dataset is complete"
	}
	return fmt.Sprintf("created %d users, %d repositories, %d commits, %d labels, %d issues, %d comments",
		c.Users, c.Repos, c.Commits, c.Labels, c.Issues, c.Comments)
}

// seed makes sure the dataset exists: it counts what is there and creates
// only what is missing, through the API (and git over HTTP for history).
func seed(ctx context.Context, admin *client, user string, sz sizes, log io.Writer) (dataset, error) {
	var n created
	ds := dataset{Owner: user, Repo: dataRepo, WriteRepo: writeRepo}
	fmt.Fprintf(log, "bench: seeding %s/%s (%d labels, %d issues with %d comments, %d commits)\n",
		user, dataRepo, sz.Labels, sz.Issues, sz.Comments, sz.Commits)

	// The user's password is new on every run (the previous one was never
	// kept), so an existing user gets it reset; nothing is duplicated.
	password := randomHex(24)
	var existingUser struct {
		FullName string `json:"full_name"`
	}
	status, err := admin.json(ctx, "GET", "/api/v1/users/"+url.PathEscape(user), nil, &existingUser, 200, 404)
	if err != nil {
		return ds, err
	}
	if status == 404 {
		_, err = admin.json(ctx, "POST", "/api/v1/admin/users", map[string]any{
			"username": user, "email": user + "@bench.example.com", "password": password,
			"full_name": userMark, "must_change_password": false,
		}, nil, 201)
		n.Users++
	} else if existingUser.FullName != userMark {
		// Never reset the password of somebody's real account.
		return ds, fmt.Errorf("user %q exists and was not created by forge bench (full name %q, not %q): choose another --user",
			user, existingUser.FullName, userMark)
	} else {
		_, err = admin.json(ctx, "PATCH", "/api/v1/admin/users/"+url.PathEscape(user), map[string]any{
			"login_name": user, "source_id": 0, "password": password, "must_change_password": false,
		}, nil, 200)
	}
	if err != nil {
		return ds, err
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))

	// A fresh token for this run; the previous run's token of the same
	// name goes first, so tokens do not pile up.
	self := admin.with(basic)
	tokens := "/api/v1/users/" + url.PathEscape(user) + "/tokens"
	if _, err := self.json(ctx, "DELETE", tokens+"/"+tokenName, nil, nil, 204, 404); err != nil {
		return ds, err
	}
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	if _, err := self.json(ctx, "POST", tokens, map[string]any{"name": tokenName, "scopes": []string{"all"}}, &tok, 201); err != nil {
		return ds, err
	}
	ds.Token = tok.SHA1
	api := admin.with("token " + ds.Token)

	repo := "/api/v1/repos/" + url.PathEscape(user) + "/"
	var branch string
	for _, name := range []string{dataRepo, writeRepo} {
		var r struct {
			DefaultBranch string `json:"default_branch"`
		}
		status, err := api.json(ctx, "GET", repo+name, nil, &r, 200, 404)
		if err != nil {
			return ds, err
		}
		if status == 404 {
			if _, err := api.json(ctx, "POST", "/api/v1/user/repos", map[string]any{
				"name": name, "description": "forge bench dataset", "default_branch": "main",
			}, &r, 201); err != nil {
				return ds, err
			}
			n.Repos++
		}
		if name == dataRepo {
			branch = r.DefaultBranch
		}
	}
	if branch == "" {
		branch = "main"
	}

	// History: commits are counted on the default branch and the missing
	// ones pushed with git.
	have := 0
	r, err := api.call(ctx, "GET", repo+dataRepo+"/commits?limit=1&stat=false&sha="+url.QueryEscape(branch), nil)
	if err != nil {
		return ds, err
	}
	switch r.status {
	case 200:
		if have, err = strconv.Atoi(r.header.Get("X-Total-Count")); err != nil {
			return ds, fmt.Errorf("commits: no X-Total-Count header")
		}
	case 404, 409: // empty repository (Gitea answers 409, some versions 404)
	default:
		return ds, fmt.Errorf("GET commits: status %d: %s", r.status, clip(r.body))
	}
	if have < sz.Commits {
		if err := push(ctx, admin.base+"/"+url.PathEscape(user)+"/"+dataRepo+".git", basic, branch, have, sz.Commits); err != nil {
			return ds, err
		}
		n.Commits += sz.Commits - have
	}

	// Labels, by name.
	labelIDs := make([]int64, sz.Labels)
	existing := map[string]int64{}
	var labels []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	if err := listAll(ctx, api, repo+dataRepo+"/labels?", &labels); err != nil {
		return ds, err
	}
	for _, l := range labels {
		existing[l.Name] = l.ID
	}
	for i := range sz.Labels {
		name := fmt.Sprintf("label-%03d", i+1)
		id, ok := existing[name]
		if !ok {
			var l struct {
				ID int64 `json:"id"`
			}
			if _, err := api.json(ctx, "POST", repo+dataRepo+"/labels", map[string]any{
				"name": name, "color": fmt.Sprintf("#%06x", (i*0x2f1d3b)&0xffffff), "description": "forge bench label",
			}, &l, 201); err != nil {
				return ds, err
			}
			id = l.ID
			n.Labels++
		}
		labelIDs[i] = id
	}

	// Issues, by title, each with two labels and its comments.
	var issues []struct {
		Number   int64  `json:"number"`
		Title    string `json:"title"`
		Comments int    `json:"comments"`
	}
	if err := listAll(ctx, api, repo+dataRepo+"/issues?state=all&type=issues&", &issues); err != nil {
		return ds, err
	}
	type issue struct {
		number   int64
		comments int
	}
	byTitle := map[string]issue{}
	for _, is := range issues {
		byTitle[is.Title] = issue{is.Number, is.Comments}
	}
	for i := range sz.Issues {
		title := fmt.Sprintf("bench issue %03d", i+1)
		is, ok := byTitle[title]
		if !ok {
			var ls []int64
			for k := range min(2, sz.Labels) {
				ls = append(ls, labelIDs[(i+k)%sz.Labels])
			}
			var created struct {
				Number int64 `json:"number"`
			}
			if _, err := api.json(ctx, "POST", repo+dataRepo+"/issues", map[string]any{
				"title": title, "body": "Seeded by forge bench.\n\nIssue " + strconv.Itoa(i+1) + ".", "labels": ls,
			}, &created, 201); err != nil {
				return ds, err
			}
			is = issue{number: created.Number}
			n.Issues++
			if n.Issues%50 == 0 {
				fmt.Fprintf(log, "bench: seed: %d issues created\n", n.Issues)
			}
		}
		for c := is.comments; c < sz.Comments; c++ {
			if _, err := api.json(ctx, "POST", fmt.Sprintf("%s%s/issues/%d/comments", repo, dataRepo, is.number),
				map[string]any{"body": fmt.Sprintf("Comment %d on %s.", c+1, title)}, nil, 201); err != nil {
				return ds, err
			}
			n.Comments++
		}
		if i == 0 {
			ds.IssueIndex = is.number
		}
	}
	fmt.Fprintf(log, "bench: seed: %s\n", n)
	return ds, nil
}

// listAll reads every page of a list (path ends in "?" or "&") into out.
func listAll[T any](ctx context.Context, api *client, path string, out *[]T) error {
	for page := 1; ; page++ {
		var items []T
		if _, err := api.json(ctx, "GET", path+"limit=50&page="+strconv.Itoa(page), nil, &items, 200); err != nil {
			return err
		}
		if len(items) == 0 {
			return nil
		}
		*out = append(*out, items...)
	}
}

// push clones remote, adds commits have+1..want (each rewrites README.md
// and adds a file) and pushes them to branch. The credentials travel in
// the environment as an http.extraHeader, never on a command line or in
// the remote URL.
func push(ctx context.Context, remote, basic, branch string, have, want int) error {
	dir, err := os.MkdirTemp("", "forge-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: "+basic,
		"GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=forge bench",
		"GIT_CONFIG_KEY_2=user.email", "GIT_CONFIG_VALUE_2=bench@bench.example.com")
	work := filepath.Join(dir, "work")
	git := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Env = env
		cmd.Dir = dir
		if len(args) > 0 && args[0] != "clone" {
			cmd.Dir = work
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, clip(out))
		}
		return nil
	}
	if err := git("clone", "--quiet", remote, work); err != nil {
		return err
	}
	if have == 0 {
		if err := git("symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
			return err
		}
	}
	for i := have + 1; i <= want; i++ {
		readme := fmt.Sprintf("# bench\n\nThe forge bench dataset, at commit %d of %d.\n", i, want)
		if err := os.WriteFile(filepath.Join(work, "README.md"), []byte(readme), 0o644); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(work, "data"), 0o755); err != nil {
			return err
		}
		file := filepath.Join(work, "data", fmt.Sprintf("file-%03d.txt", i))
		if err := os.WriteFile(file, []byte(strings.Repeat(fmt.Sprintf("line of commit %d\n", i), 20)), 0o644); err != nil {
			return err
		}
		if err := git("add", "-A"); err != nil {
			return err
		}
		if err := git("commit", "--quiet", "-m", fmt.Sprintf("bench commit %d", i)); err != nil {
			return err
		}
	}
	return git("push", "--quiet", "origin", "HEAD:refs/heads/"+branch)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}
