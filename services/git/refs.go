package git

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// RefKind says what a ref name resolved to.
type RefKind string

const (
	RefBranch RefKind = "branch"
	RefTag    RefKind = "tag"
	RefCommit RefKind = "commit"
)

// Revision is a resolved ref.
type Revision struct {
	SHA  string  // the commit
	Kind RefKind // how the name was interpreted
	Name string  // branch or tag name, or the (possibly short) sha as given
}

// RefUpdate is one ref changed by a push or a mirror fetch. OldSHA is all
// zeros for a created ref, NewSHA for a deleted one.
type RefUpdate struct {
	Name   string // full ref name, e.g. refs/heads/main
	OldSHA string
	NewSHA string
}

// IsBranch reports whether the ref is under refs/heads/.
func (u RefUpdate) IsBranch() bool { return strings.HasPrefix(u.Name, "refs/heads/") }

// IsTag reports whether the ref is under refs/tags/.
func (u RefUpdate) IsTag() bool { return strings.HasPrefix(u.Name, "refs/tags/") }

// ShortName is the branch or tag name, or the full name for other refs.
func (u RefUpdate) ShortName() string {
	if n, ok := strings.CutPrefix(u.Name, "refs/heads/"); ok {
		return n
	}
	if n, ok := strings.CutPrefix(u.Name, "refs/tags/"); ok {
		return n
	}
	return u.Name
}

// IsCreate reports whether the ref did not exist before.
func (u RefUpdate) IsCreate() bool { return IsZeroSHA(u.OldSHA) }

// IsDelete reports whether the ref was deleted.
func (u RefUpdate) IsDelete() bool { return IsZeroSHA(u.NewSHA) }

// objectInfo is one `cat-file --batch-check` answer; Type is "" if missing.
type objectInfo struct {
	SHA  string
	Type string
	Size int64
}

// batchCheck looks up object names in one exchange with a pooled
// cat-file reader. Names must not contain newlines. Answers for full
// object ids (optionally peeled, "<id>^{commit}") are cached.
func (s *Store) batchCheck(ctx context.Context, path string, names []string) ([]objectInfo, error) {
	infos := make([]objectInfo, len(names))
	var ask []string
	var at []int
	for i, n := range names {
		if immutableName(n) {
			if v, ok := s.cache.get(s.cacheKey(path, "info", n)); ok {
				infos[i] = v.(objectInfo)
				continue
			}
		}
		ask = append(ask, n)
		at = append(at, i)
	}
	if len(ask) == 0 {
		return infos, nil
	}
	var got []objectInfo
	err := s.withReader(ctx, path, func(c *catFile) (err error) {
		got, err = c.infos(ask)
		return err
	})
	if err != nil {
		return nil, err
	}
	for j, info := range got {
		infos[at[j]] = info
		// Only found objects are cached: a missing one may come with a push.
		if info.Type != "" && immutableName(ask[j]) {
			s.cache.add(s.cacheKey(path, "info", ask[j]), info, 64)
		}
	}
	return infos, nil
}

// immutableName reports whether an object name always means the same
// object: a full object id, optionally peeled to a commit.
func immutableName(n string) bool {
	n = strings.TrimSuffix(n, "^{commit}")
	return isObjectID(n) && (len(n) == 40 || len(n) == 64) && strings.ToLower(n) == n
}

// parseBatchHeader parses "<sha> <type> <size>"; anything else ("<name>
// missing", "<name> ambiguous") yields an empty objectInfo.
func parseBatchHeader(line string) objectInfo {
	f := strings.Fields(line)
	if len(f) != 3 || !isObjectID(f[0]) {
		return objectInfo{}
	}
	switch f[1] {
	case "blob", "tree", "commit", "tag":
	default:
		return objectInfo{}
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return objectInfo{}
	}
	return objectInfo{SHA: f[0], Type: f[1], Size: size}
}

// Resolve interprets ref the way Gitea does: a branch first, then a tag,
// then a full or abbreviated (at least 4 hex digits) commit sha. "" and
// "HEAD" mean the default branch; names starting with "refs/" are taken
// as full ref names. The result always names a commit (annotated tags are
// peeled). Returns ErrNotFound when nothing matches.
func (s *Store) Resolve(ctx context.Context, path, ref string) (Revision, error) {
	if err := s.checkRepo(path); err != nil {
		return Revision{}, err
	}
	type candidate struct {
		expr string
		kind RefKind
		name string
	}
	var cands []candidate
	switch {
	case ref == "" || ref == "HEAD":
		head, err := s.DefaultBranch(ctx, path)
		if err != nil {
			return Revision{}, err
		}
		cands = append(cands, candidate{"refs/heads/" + head, RefBranch, head})
	case strings.HasPrefix(ref, "refs/"):
		rest := strings.TrimPrefix(ref, "refs/")
		if !ValidRefName(rest) {
			return Revision{}, notFoundf("ref %q", ref)
		}
		kind, name := RefCommit, ref
		if n, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			kind, name = RefBranch, n
		} else if n, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
			kind, name = RefTag, n
		}
		cands = append(cands, candidate{ref, kind, name})
	default:
		if ValidRefName(ref) {
			cands = append(cands,
				candidate{"refs/heads/" + ref, RefBranch, ref},
				candidate{"refs/tags/" + ref, RefTag, ref})
		}
		if len(ref) >= 4 && len(ref) <= 64 && isHex(ref) {
			cands = append(cands, candidate{strings.ToLower(ref), RefCommit, ref})
		}
	}
	if len(cands) == 0 {
		return Revision{}, notFoundf("ref %q", ref)
	}
	// Refs are read from disk (refsfile.go); the pooled reader only peels
	// the objects they name and expands abbreviated shas.
	var names []string
	var kept []candidate
	for _, c := range cands {
		expr := c.expr
		if c.kind != RefCommit || strings.HasPrefix(expr, "refs/") {
			sha, err := s.readRef(path, c.expr)
			if err != nil {
				return Revision{}, err
			}
			if sha == "" {
				continue
			}
			expr = sha
		}
		names = append(names, expr+"^{commit}")
		kept = append(kept, c)
	}
	if len(names) == 0 {
		return Revision{}, notFoundf("ref %q", ref)
	}
	infos, err := s.batchCheck(ctx, path, names)
	if err != nil {
		return Revision{}, err
	}
	for i, info := range infos {
		if info.Type == "commit" {
			return Revision{SHA: info.SHA, Kind: kept[i].kind, Name: kept[i].name}, nil
		}
	}
	return Revision{}, notFoundf("ref %q", ref)
}

// ResolveRef returns the commit sha ref names (see Resolve).
func (s *Store) ResolveRef(ctx context.Context, path, ref string) (string, error) {
	rev, err := s.Resolve(ctx, path, ref)
	return rev.SHA, err
}

// refSHA returns the object the full ref name points at, or "" if it does
// not exist. It is an exact lookup whose cost does not depend on the
// number of refs.
func (s *Store) refSHA(ctx context.Context, path, fullName string) (string, error) {
	return s.readRef(path, fullName)
}

// DefaultBranch returns the branch HEAD points at (it may not exist yet in
// an empty repository).
func (s *Store) DefaultBranch(ctx context.Context, path string) (string, error) {
	if err := s.checkRepo(path); err != nil {
		return "", err
	}
	target, err := symbolicHead(path)
	if err != nil {
		return "", err
	}
	if target == "" {
		return "", notFoundf("HEAD is not a symbolic ref")
	}
	name, ok := strings.CutPrefix(target, "refs/heads/")
	if !ok {
		return "", notFoundf("HEAD does not point at a branch")
	}
	return name, nil
}

// SetDefaultBranch points HEAD at refs/heads/<name>. The branch need not
// exist (callers enforce that if they want to).
func (s *Store) SetDefaultBranch(ctx context.Context, path, name string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	if !ValidRefName(name) {
		return invalidf("branch name %q", name)
	}
	_, err := s.output(ctx, path, "symbolic-ref", "HEAD", "refs/heads/"+name)
	return err
}

// Branch is a branch and its head commit (without Files or Stats).
type Branch struct {
	Name   string
	Commit Commit
}

// branchFormat prints, per ref, fields separated and terminated by NUL.
var branchFields = []string{
	"%(refname)", "%(objecttype)", "%(objectname)", "%(tree)", "%(parent)",
	"%(author)", "%(committer)", "%(contents)",
}

// ListBranches returns every branch with its head commit, newest commit
// first, then by name (Gitea's order), using one git process.
func (s *Store) ListBranches(ctx context.Context, path string) ([]Branch, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	format := strings.Join(branchFields, "%00") + "%00"
	out, err := s.output(ctx, path, "for-each-ref", "--format="+format,
		"--sort=refname", "--sort=-committerdate", "refs/heads/")
	if err != nil {
		return nil, err
	}
	var branches []Branch
	for _, rec := range splitRecords(out, len(branchFields)) {
		if rec[1] != "commit" {
			continue // receive-pack refuses non-commits in refs/heads; skip oddities
		}
		c := Commit{SHA: rec[2], Tree: rec[3], Parents: strings.Fields(rec[4]),
			Author: parseIdent(rec[5]), Committer: parseIdent(rec[6]), Message: rec[7]}
		branches = append(branches, Branch{Name: strings.TrimPrefix(rec[0], "refs/heads/"), Commit: c})
	}
	return branches, nil
}

// splitRecords splits for-each-ref output whose format is n fields each
// followed by NUL (for-each-ref adds a newline after every record).
func splitRecords(out []byte, n int) [][]string {
	toks := strings.Split(string(out), "\x00")
	var recs [][]string
	for i := 0; i+n <= len(toks); i += n {
		rec := toks[i : i+n]
		rec[0] = strings.TrimPrefix(rec[0], "\n")
		if i+n == len(toks) && rec[0] == "" {
			break
		}
		recs = append(recs, rec)
	}
	return recs
}

// BranchNames returns all branch names in ref-name order (cheap: no commit
// data), for callers that page over names and then call BranchesByName.
func (s *Store) BranchNames(ctx context.Context, path string) ([]string, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	out, err := s.output(ctx, path, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			names = append(names, l)
		}
	}
	return names, nil
}

// BranchesByName returns the named branches, in the order given, skipping
// names that do not exist or are invalid. It uses one `git cat-file --batch`
// whose cost is proportional to len(names), not to the number of refs.
func (s *Store) BranchesByName(ctx context.Context, path string, names []string) ([]Branch, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	var valid []string
	for _, n := range names {
		if ValidRefName(n) {
			valid = append(valid, n)
		}
	}
	if len(valid) == 0 {
		return nil, nil
	}
	// Heads are read from disk, their commits through the pooled reader
	// (by id, so the object cache can answer).
	var found []string
	var shas []string
	for _, n := range valid {
		sha, err := s.readRef(path, "refs/heads/"+n)
		if err != nil {
			return nil, err
		}
		if sha != "" {
			found = append(found, n)
			shas = append(shas, sha)
		}
	}
	if len(shas) == 0 {
		return nil, nil
	}
	objs, err := s.catFileBatch(ctx, path, shas)
	if err != nil {
		return nil, err
	}
	var branches []Branch
	for i, o := range objs {
		if o.Type != "commit" {
			continue
		}
		branches = append(branches, Branch{Name: found[i], Commit: parseRawCommit(o.SHA, o.Data)})
	}
	return branches, nil
}

// GetBranch returns one branch, or ErrNotFound.
func (s *Store) GetBranch(ctx context.Context, path, name string) (Branch, error) {
	bs, err := s.BranchesByName(ctx, path, []string{name})
	if err != nil {
		return Branch{}, err
	}
	if len(bs) == 0 {
		return Branch{}, notFoundf("branch %q", name)
	}
	return bs[0], nil
}

// CreateBranch creates refs/heads/<name> at the commit fromRef resolves to
// (see Resolve). Errors: ErrInvalid for a bad name, ErrNotFound if fromRef
// does not resolve, ErrAlreadyExists if the branch or a tag of that name
// exists, ErrConflict if the name collides with an existing branch path
// (e.g. "a/b" when "a" exists).
func (s *Store) CreateBranch(ctx context.Context, path, name, fromRef string) (Branch, error) {
	if err := s.checkRepo(path); err != nil {
		return Branch{}, err
	}
	if !ValidRefName(name) {
		return Branch{}, invalidf("branch name %q", name)
	}
	sha, err := s.ResolveRef(ctx, path, fromRef)
	if err != nil {
		return Branch{}, err
	}
	if tag, err := s.refSHA(ctx, path, "refs/tags/"+name); err != nil {
		return Branch{}, err
	} else if tag != "" {
		return Branch{}, existsf("a tag named %q", name)
	}
	if err := s.casRef(ctx, path, "refs/heads/"+name, sha, ""); err != nil {
		return Branch{}, err
	}
	return s.GetBranch(ctx, path, name)
}

// DeleteBranch deletes refs/heads/<name>; ErrNotFound if it does not
// exist. Whether the default branch may be deleted is the caller's rule.
func (s *Store) DeleteBranch(ctx context.Context, path, name string) error {
	return s.deleteRef(ctx, path, "branch", "refs/heads/", name)
}

func (s *Store) deleteRef(ctx context.Context, path, what, prefix, name string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	if !ValidRefName(name) {
		return notFoundf("%s %q", what, name)
	}
	old, err := s.refSHA(ctx, path, prefix+name)
	if err != nil {
		return err
	}
	if old == "" {
		return notFoundf("%s %q", what, name)
	}
	err = s.run(ctx, invocation{gitDir: path, args: []string{"update-ref", "-d", prefix + name, old}})
	if stderrContains(err, "cannot lock ref") {
		return conflictf("%s %q changed concurrently", what, name)
	}
	return err
}

// casRef moves ref to newSHA only if it is at oldSHA. With oldSHA ""
// the ref must not exist (ErrAlreadyExists); otherwise a ref that moved
// gives ErrConflict.
func (s *Store) casRef(ctx context.Context, path, ref, newSHA, oldSHA string) error {
	err := s.run(ctx, invocation{gitDir: path, args: []string{"update-ref", ref, newSHA, oldSHA}})
	switch {
	case err == nil:
		return nil
	case oldSHA == "" && stderrContains(err, "reference already exists"):
		return existsf("ref %q", ref)
	case stderrContains(err, "cannot lock ref"):
		return &refMovedError{ref: ref}
	}
	return err
}

// batchObject is one `cat-file --batch` answer; Type is "" if missing.
type batchObject struct {
	SHA  string
	Type string
	Data []byte
	Name string // what the caller knows the object as (ListTags); not set by reads
}

// catFileBatch reads small objects (commits, tags, trees) in one exchange
// with a pooled cat-file reader. Names must not contain newlines. Objects
// named by full id are cached.
func (s *Store) catFileBatch(ctx context.Context, path string, names []string) ([]batchObject, error) {
	objs := make([]batchObject, len(names))
	var ask []string
	var at []int
	for i, n := range names {
		if immutableName(n) {
			if v, ok := s.cache.get(s.cacheKey(path, "obj", n)); ok {
				objs[i] = v.(batchObject)
				continue
			}
		}
		ask = append(ask, n)
		at = append(at, i)
	}
	if len(ask) == 0 {
		return objs, nil
	}
	var got []batchObject
	err := s.withReader(ctx, path, func(c *catFile) (err error) {
		got, err = c.readObjects(ask)
		return err
	})
	if err != nil {
		return nil, err
	}
	for j, o := range got {
		objs[at[j]] = o
		if o.Type != "" && immutableName(ask[j]) {
			s.cache.add(s.cacheKey(path, "obj", ask[j]), o, int64(len(o.Data)))
		}
	}
	return objs, nil
}

// RenameBranch renames refs/heads/<from> (at sha) to refs/heads/<to> in
// two journaled ref transactions with retarget in between: to is created
// at sha, retarget runs (the records that name the branch follow it),
// then from is deleted if still at sha. So the branch never looks gone to
// whoever watches refs and records at any moment in between (the pull
// request refresher closes the pull requests of a gone branch); a crash
// in between leaves both names, never neither. When retarget fails, to is
// deleted again and its error returned. HEAD is left alone (the caller
// moves it with SetDefaultBranch, inside retarget, when from was the
// default). Errors: ErrInvalid for a bad name or sha, ErrAlreadyExists
// when to exists, ErrConflict when from is no longer at sha (to and the
// records then stay renamed beside it) or to collides with another
// branch's path ("a/b" beside "a").
func (s *Store) RenameBranch(ctx context.Context, path, from, to, sha string, retarget func() error) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	if !ValidRefName(from) || !ValidRefName(to) || !validSHA(sha) {
		return invalidf("rename branch %q to %q", from, to)
	}
	update := func(script string) error {
		return s.run(ctx, invocation{gitDir: path, args: []string{"update-ref", "--stdin"}, stdin: strings.NewReader(script)})
	}
	switch err := update("verify refs/heads/" + from + " " + sha + "\ncreate refs/heads/" + to + " " + sha + "\n"); {
	case err == nil:
	case stderrContains(err, "reference already exists"):
		return existsf("branch %q", to)
	case stderrContains(err, "cannot lock ref"), stderrContains(err, "exists; cannot create"):
		return conflictf("branch %q cannot be renamed to %q", from, to)
	default:
		return err
	}
	if err := retarget(); err != nil {
		if derr := update("delete refs/heads/" + to + " " + sha + "\n"); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	if err := update("delete refs/heads/" + from + " " + sha + "\n"); err != nil {
		if stderrContains(err, "cannot lock ref") {
			return conflictf("branch %q moved while it was renamed to %q", from, to)
		}
		return err
	}
	return nil
}
