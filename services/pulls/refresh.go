package pulls

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"forge/services/git"
	"forge/services/protection"
	"forge/services/store"
)

// Refresher keeps open pull requests in step with their branches: when
// the head branch moves (a push, a file or branch change through the API,
// in the base repository or in a fork), the pull request's head commit,
// refs/pull/<index>/head, merge base, mergeable state and diff size are
// recomputed; when the base branch moves, the merge base, mergeable state
// and diff size.
//
// It is driven by the recorded ref changes (repos.Syncer's OnChange hook,
// Changed) and works off the request path, one repository after the
// other. What it decides from is only the stored head and base commits of
// each pull request (head_sha, base_sha) against git's branches now, so
// running it again is harmless and it converges whatever was interrupted:
// a crash after a ref moved but before its pull requests were refreshed
// leaves rows whose commits differ from the branches, which the check of
// every repository with open pull requests at start-up (Run) finds; a
// failed refresh is retried with a back-off. Writes are conditional on the
// row still holding the commits the new state was computed from (store.
// RefreshPullRequest), so a slow refresher never overwrites a newer one.
type Refresher struct {
	store RefreshStore
	git   RefreshGit

	mu      sync.Mutex
	pending map[int64]bool // repositories to look at
	all     bool           // look at every repository with open pull requests
	kick    chan struct{}
	// refreshed are told the base repositories whose pull requests were
	// recomputed (a scheduled merge may run now).
	refreshed []func(ctx context.Context, repoID int64)
}

// OnRefreshed adds f to what is told, after each refresh, the base
// repository whose open pull requests were recomputed.
func (r *Refresher) OnRefreshed(f func(ctx context.Context, repoID int64)) {
	r.refreshed = append(r.refreshed, f)
}

// RefreshStore is what the refresher reads and writes.
type RefreshStore interface {
	OpenPullRequestsTouching(ctx context.Context, repoID int64) ([]store.PullRequest, error)
	ReposWithOpenPullRequests(ctx context.Context) ([]int64, error)
	RefreshPullRequest(ctx context.Context, from *store.PullRequest, st store.PullState) (bool, error)
	RepositoriesByID(ctx context.Context, ids []int64) (map[int64]*store.Repository, error)
	MarkPullRequestMerged(ctx context.Context, m store.PullMerge) error
	ClosePullRequestsOfGoneBranches(ctx context.Context, prs []store.PullRequest) (int, error)
	// BranchProtections returns a repository's protection rules (those
	// with dismiss_stale_approvals dismiss approvals a head move made
	// stale).
	BranchProtections(ctx context.Context, repoID int64) ([]store.BranchProtection, error)
	// BranchByName returns a branch's record: its commit and who moved
	// it there (store.ErrNotFound when none).
	BranchByName(ctx context.Context, repoID int64, name string) (*store.Branch, error)
}

// RefreshGit is the git the refresher uses.
type RefreshGit interface {
	RepoPath(owner, name string) (string, error)
	BranchesByName(ctx context.Context, path string, names []string) ([]git.Branch, error)
	FetchCommit(ctx context.Context, dst, src, sha string) error
	MergeBase(ctx context.Context, path, a, b string) (string, error)
	Mergeable(ctx context.Context, path, base, head string) (bool, error)
	DiffStatBetween(ctx context.Context, path, from, to string) (git.DiffStat, error)
	SetPullHeads(ctx context.Context, path string, heads map[int64]string) error
}

// NewRefresher builds a refresher; Run does its work.
func NewRefresher(s RefreshStore, g RefreshGit) *Refresher {
	return &Refresher{store: s, git: g, pending: map[int64]bool{}, all: true, kick: make(chan struct{}, 1)}
}

// Changed notes that refs of repository repoID moved (the Syncer's change
// hook): its pull requests, as base or as head, are looked at soon. It
// returns at once.
func (r *Refresher) Changed(_ context.Context, repoID int64) {
	r.mu.Lock()
	r.pending[repoID] = true
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// maxRefreshBackoff bounds the wait before retrying failed refreshes.
const maxRefreshBackoff = 5 * time.Second

// Run refreshes, until ctx is done: first every repository with open pull
// requests (what a previous run left undone), then each repository whose
// refs changed, retrying failures with a doubling wait.
func (r *Refresher) Run(ctx context.Context) {
	wait := 100 * time.Millisecond
	for {
		if err := r.refreshPending(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("refresh pull requests", "err", err, "retry_in", wait)
			wait = min(2*wait, maxRefreshBackoff)
		} else {
			wait = 100 * time.Millisecond
		}
		var timer <-chan time.Time
		if r.hasPending() {
			timer = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.kick:
		case <-timer:
		}
	}
}

func (r *Refresher) hasPending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all || len(r.pending) > 0
}

// refreshPending takes the pending repositories and refreshes each; those
// that fail stay pending.
func (r *Refresher) refreshPending(ctx context.Context) error {
	r.mu.Lock()
	all := r.all
	r.mu.Unlock()
	if all {
		ids, err := r.store.ReposWithOpenPullRequests(ctx)
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.all = false
		for _, id := range ids {
			r.pending[id] = true
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	ids := make([]int64, 0, len(r.pending))
	for id := range r.pending {
		ids = append(ids, id)
	}
	clear(r.pending)
	r.mu.Unlock()
	var failed []error
	for _, id := range ids {
		if err := r.RefreshRepo(ctx, id); err != nil {
			failed = append(failed, err)
			r.mu.Lock()
			r.pending[id] = true
			r.mu.Unlock()
		}
	}
	return errors.Join(failed...)
}

// RefreshRepo brings every open pull request whose base or head branch
// lives in repository repoID in step with the branches: git's branch
// commits are read once per repository (ref files, no process per pull
// request), and only pull requests whose stored commits differ are
// recomputed. A pull request whose head or base branch is gone (its
// repository still there) is closed, as Gitea closes the pull requests of
// a deleted branch; it keeps its last state (its commit stays under
// refs/pull/<index>/head). Children of a merged pull request whose head
// branch the merge deletes were retargeted before the deletion (see
// Merger.retargetChildren), so none of them is closed here.
func (r *Refresher) RefreshRepo(ctx context.Context, repoID int64) error {
	prs, err := r.store.OpenPullRequestsTouching(ctx, repoID)
	if err != nil || len(prs) == 0 {
		return err
	}
	repos, err := r.store.RepositoriesByID(ctx, repoIDs(prs))
	if err != nil {
		return err
	}
	tips, paths, err := r.branchTips(ctx, prs, repos)
	if err != nil {
		return err
	}
	// Pull requests by base repository: their head refs are written in
	// one transaction per repository.
	byBase := map[int64][]*stale{}
	var order []int64
	var gone []store.PullRequest
	for i := range prs {
		pr := &prs[i]
		if paths[pr.RepoID] == "" || paths[pr.HeadRepoID] == "" {
			continue
		}
		headTip, baseTip := tips[pr.HeadRepoID][pr.HeadBranch], tips[pr.RepoID][pr.BaseBranch]
		if headTip == "" || baseTip == "" {
			gone = append(gone, *pr)
			continue
		}
		if headTip == pr.HeadSHA && baseTip == pr.BaseSHA {
			continue
		}
		if byBase[pr.RepoID] == nil {
			order = append(order, pr.RepoID)
		}
		byBase[pr.RepoID] = append(byBase[pr.RepoID], &stale{pr: pr, head: headTip, base: baseTip})
	}
	var errs []error
	if len(gone) > 0 {
		// However the branch went (the branch API, a push deleting it, a
		// merge deleting its head, a mirror), this is where it is seen:
		// every recorded ref change and the start-up check come here.
		if _, err := r.store.ClosePullRequestsOfGoneBranches(ctx, gone); err != nil {
			errs = append(errs, err)
		}
	}
	for _, baseID := range order {
		if err := r.refreshBase(ctx, paths, byBase[baseID]); err != nil {
			errs = append(errs, err)
		}
		for _, f := range r.refreshed {
			f(ctx, baseID)
		}
	}
	return errors.Join(errs...)
}

// stale is a pull request and the branch commits it must follow.
type stale struct {
	pr         *store.PullRequest
	head, base string
}

// refreshBase recomputes stale pull requests of one base repository:
// fork heads are copied in, the head refs written in one transaction,
// then each pull request's state is computed and stored.
func (r *Refresher) refreshBase(ctx context.Context, paths map[int64]string, list []*stale) error {
	basePath := paths[list[0].pr.RepoID]
	heads := map[int64]string{}
	for _, s := range list {
		if s.head == s.pr.HeadSHA {
			continue
		}
		if s.pr.HeadRepoID != s.pr.RepoID {
			if err := r.git.FetchCommit(ctx, basePath, paths[s.pr.HeadRepoID], s.head); err != nil {
				return err
			}
		}
		heads[s.pr.Index] = s.head
	}
	if err := r.git.SetPullHeads(ctx, basePath, heads); err != nil {
		return err
	}
	var rules []store.BranchProtection
	if len(heads) > 0 {
		var err error
		if rules, err = protection.LoadRules(ctx, r.store, list[0].pr.RepoID); err != nil {
			return err
		}
	}
	var errs []error
	for _, s := range list {
		st, err := computeState(ctx, r.git, basePath, s.base, s.head)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s.base != s.pr.BaseSHA && st.MergeBase == s.head {
			// The base moved to contain the whole head: its commits
			// reached the base by a plain push, so the pull request is
			// merged, as Gitea marks it, by whoever pushed.
			err := r.store.MarkPullRequestMerged(ctx, store.PullMerge{PullID: s.pr.ID, IssueID: s.pr.IssueID,
				RepoID: s.pr.RepoID, MergerID: r.pusher(ctx, s.pr, s.base), MergedSHA: s.base, HeadSHA: s.head})
			if err != nil && !errors.Is(err, store.ErrPullRequestMerged) {
				errs = append(errs, err)
			}
			continue
		}
		// A head move makes the earlier reviews stale; the base branch's
		// rule may want the stale approvals dismissed, stored with the new
		// head (so a crash in between cannot lose the dismissal: the
		// start-up check sees the old head and comes here again).
		if rule := protection.Match(rules, s.pr.BaseBranch); rule != nil && rule.DismissStaleApprovals && s.head != s.pr.HeadSHA {
			st.DismissStale = true
		}
		if _, err := r.store.RefreshPullRequest(ctx, s.pr, st); err != nil {
			errs = append(errs, err)
		}
		// A write refused because the row changed meanwhile (an edit, a
		// refresher elsewhere) needs nothing: whoever changed it computed
		// from commits at least as new, and the next change is noted again.
	}
	return errors.Join(errs...)
}

// pusher is who moved pr's base branch to base: the pusher its branch
// record names when the record holds that commit (the push recorded it
// before the refresher was told), else 0, unknown (a move the reconciler
// found in the journal after a crash, a record not written yet).
func (r *Refresher) pusher(ctx context.Context, pr *store.PullRequest, base string) int64 {
	b, err := r.store.BranchByName(ctx, pr.RepoID, pr.BaseBranch)
	if err != nil || b.CommitID != base {
		return 0
	}
	return b.PusherID
}

// branchTips reads, once per repository, the commits of the branches the
// pull requests name, and the repositories' paths (empty for a
// repository gone).
func (r *Refresher) branchTips(ctx context.Context, prs []store.PullRequest, repos map[int64]*store.Repository) (map[int64]map[string]string, map[int64]string, error) {
	names := map[int64][]string{}
	for _, pr := range prs {
		names[pr.RepoID] = append(names[pr.RepoID], pr.BaseBranch)
		names[pr.HeadRepoID] = append(names[pr.HeadRepoID], pr.HeadBranch)
	}
	tips := map[int64]map[string]string{}
	paths := map[int64]string{}
	for id, list := range names {
		repo := repos[id]
		if repo == nil {
			continue
		}
		path, err := r.git.RepoPath(repo.OwnerName, repo.Name)
		if err != nil {
			continue
		}
		branches, err := r.git.BranchesByName(ctx, path, list)
		if errors.Is(err, git.ErrNotFound) {
			continue // the directory is gone with the repository
		}
		if err != nil {
			return nil, nil, err
		}
		paths[id] = path
		tips[id] = map[string]string{}
		for _, b := range branches {
			tips[id][b.Name] = b.Commit.SHA
		}
	}
	return tips, paths, nil
}

func repoIDs(prs []store.PullRequest) []int64 {
	ids := make([]int64, 0, 2*len(prs))
	for _, pr := range prs {
		ids = append(ids, pr.RepoID, pr.HeadRepoID)
	}
	return ids
}

// stateGit computes a pull request's state.
type stateGit interface {
	MergeBase(ctx context.Context, path, a, b string) (string, error)
	Mergeable(ctx context.Context, path, base, head string) (bool, error)
	DiffStatBetween(ctx context.Context, path, from, to string) (git.DiffStat, error)
}

// computeState computes, in the base repository (which holds the head
// commit), the state of a pull request from head into base. Histories
// without a common commit cannot merge: the base stands in for the merge
// base.
func computeState(ctx context.Context, g stateGit, basePath, base, head string) (store.PullState, error) {
	st := store.PullState{HeadSHA: head, BaseSHA: base}
	mergeBase, err := g.MergeBase(ctx, basePath, base, head)
	unrelated := errors.Is(err, git.ErrInvalid)
	if err != nil && !unrelated {
		return st, err
	}
	if unrelated {
		mergeBase = base
	}
	st.MergeBase = mergeBase
	if !unrelated {
		if st.Mergeable, err = g.Mergeable(ctx, basePath, base, head); err != nil {
			return st, err
		}
	}
	stat, err := g.DiffStatBetween(ctx, basePath, mergeBase, head)
	if err != nil {
		return st, err
	}
	st.Additions, st.Deletions, st.ChangedFiles = stat.Additions, stat.Deletions, stat.ChangedFiles
	return st, nil
}
