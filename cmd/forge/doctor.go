package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forge/services/attachments"
	"forge/services/config"
	"forge/services/git"
	"forge/services/store"
)

// doctor checks what can drift between the database, the data directory
// and the configuration, says how to fix each problem, and with --fix
// repairs what is safe. Exit 1 when problems remain.
func (e *cliEnv) doctor(args []string) int {
	fs := e.flags("doctor")
	fix := fs.Bool("fix", false, "repair what is safe: branch records from git refs, forge's git hooks, attachment files without rows")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
	}
	d := &doctor{env: e, cfg: cfg, fix: *fix}
	ctx := context.Background()
	d.checkConfig()
	st, err := store.Open(cfg.Database)
	if err != nil {
		d.problem("database", fmt.Sprintf("cannot open %s: %v", cfg.Database.Describe(), err), "check [database] in the configuration")
		return d.finish()
	}
	defer st.Close()
	if tables, err := st.Tables(ctx); err != nil || len(tables) == 0 {
		d.problem("database", fmt.Sprintf("%s has no forge schema (%v)", cfg.Database.Describe(), err), "run forge migrate, or forge restore a dump")
		return d.finish()
	}
	gitStore, err := d.checkHooks()
	if err != nil {
		d.problem("repositories", err.Error(), "make [repository] ROOT a writable directory")
		return d.finish()
	}
	d.checkRepositories(ctx, st, gitStore)
	d.checkAttachments(ctx, st)
	return d.finish()
}

type doctor struct {
	env      *cliEnv
	cfg      *config.Config
	fix      bool
	problems int
	fixed    int
}

// problem reports one problem and how to fix it.
func (d *doctor) problem(area, what, how string) {
	d.problems++
	fmt.Fprintf(d.env.stdout, "[%s] %s; fix: %s\n", area, what, how)
}

// repaired reports one problem --fix repaired.
func (d *doctor) repaired(area, what string) {
	d.fixed++
	fmt.Fprintf(d.env.stdout, "[%s] fixed: %s\n", area, what)
}

func (d *doctor) finish() int {
	if d.problems > 0 {
		fmt.Fprintf(d.env.stdout, "%d problem(s) remain", d.problems)
		if !d.fix {
			fmt.Fprint(d.env.stdout, " (forge doctor --fix repairs those marked safe)")
		}
		fmt.Fprintln(d.env.stdout)
		return 1
	}
	if d.fixed > 0 {
		fmt.Fprintf(d.env.stdout, "fixed %d problem(s); no problem remains\n", d.fixed)
	} else {
		fmt.Fprintln(d.env.stdout, "no problem found")
	}
	return 0
}

func (d *doctor) checkConfig() {
	if len(d.cfg.Unread) > 0 {
		d.problem("config", "keys forge does not read: "+strings.Join(d.cfg.Unread, ", "),
			"correct the spelling or remove them (see docs for the keys forge reads)")
	}
	dirs := []struct{ key, dir string }{
		{"[server] APP_DATA_PATH", d.cfg.Server.AppDataPath},
		{"[repository] ROOT", d.cfg.Repository.Root},
		{"[attachment] PATH", d.cfg.Attachment.Path},
	}
	if d.cfg.Database.Type == "sqlite3" {
		dirs = append(dirs, struct{ key, dir string }{"[database] PATH", filepath.Dir(d.cfg.Database.Path)})
	}
	for _, x := range dirs {
		if err := writable(x.dir); err != nil {
			d.problem("config", fmt.Sprintf("%s %s is not a writable directory (%v)", x.key, x.dir, err),
				"create it and give forge's user write access, or point "+x.key+" elsewhere")
		}
	}
}

// writable checks forge can write in dir; a directory that does not exist
// yet is fine when forge can create it (its nearest existing parent is
// writable).
func writable(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(filepath.Clean(dir))
		if parent == filepath.Clean(dir) {
			return err
		}
		return writable(parent)
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("not a directory")
	}
	f, err := os.CreateTemp(dir, ".forge-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkHooks reports forge's git hooks that are missing or changed, then
// opens the git store, which writes them again (every forge process does
// when it starts, so doctor with or without --fix repairs them).
func (d *doctor) checkHooks() (*git.Store, error) {
	missing := git.MissingHooks(d.cfg.Repository.Root)
	g, err := git.New(d.cfg.Repository.Root)
	if len(missing) == 0 {
		return g, err
	}
	sort.Strings(missing)
	what := "forge's git hooks missing or changed under " + filepath.Join(d.cfg.Repository.Root, "@forge", "hooks") + ": " + strings.Join(missing, ", ")
	if err == nil && len(git.MissingHooks(d.cfg.Repository.Root)) == 0 {
		d.repaired("hooks", what+" (written again, as every forge process does when it starts)")
		return g, nil
	}
	d.problem("hooks", what, "make "+filepath.Join(d.cfg.Repository.Root, "@forge", "hooks")+" writable; forge writes them when it starts")
	return g, err
}

func (d *doctor) checkRepositories(ctx context.Context, st *store.Store, g *git.Store) {
	records, err := st.AllRepositories(ctx)
	if err != nil {
		d.problem("repositories", "cannot read the repository records: "+err.Error(), "check the database")
		return
	}
	onDisk, err := g.Repositories()
	if err != nil {
		d.problem("repositories", "cannot list "+d.cfg.Repository.Root+": "+err.Error(), "make [repository] ROOT readable")
		return
	}
	disk := map[string]bool{}
	for _, r := range onDisk {
		disk[r] = true
	}
	branches, err := st.AllBranchRecords(ctx)
	if err != nil {
		d.problem("branches", "cannot read the branch records: "+err.Error(), "check the database")
		return
	}
	recorded := map[int64]map[string]string{}
	for _, b := range branches {
		if recorded[b.RepoID] == nil {
			recorded[b.RepoID] = map[string]string{}
		}
		recorded[b.RepoID][b.Name] = b.CommitID
	}
	drifted := map[int64]bool{}
	for _, r := range records {
		key := strings.ToLower(r.OwnerName) + "/" + strings.ToLower(r.Name)
		delete(disk, key)
		path, err := g.RepoPath(r.OwnerName, r.Name)
		if err != nil || !g.Exists(path) {
			d.problem("repositories", fmt.Sprintf("repository %s has a record but no git directory", key),
				"restore the directory from a backup, or delete the repository (DELETE /api/v1/repos/"+key+")")
			continue
		}
		heads, err := g.ListBranches(ctx, path)
		if err != nil {
			d.problem("repositories", fmt.Sprintf("repository %s: cannot read its branches: %v", key, err), "check the repository with git fsck")
			continue
		}
		var diffs []string
		have := recorded[r.ID]
		seen := map[string]bool{}
		for _, b := range heads {
			seen[b.Name] = true
			switch rec, ok := have[b.Name]; {
			case !ok:
				diffs = append(diffs, b.Name+" has no record")
			case rec != b.Commit.SHA:
				diffs = append(diffs, fmt.Sprintf("%s recorded at %.7s, git at %.7s", b.Name, rec, b.Commit.SHA))
			}
		}
		for name := range have {
			if !seen[name] {
				diffs = append(diffs, name+" recorded but not in git")
			}
		}
		if len(diffs) > 0 {
			sort.Strings(diffs)
			drifted[r.ID] = true
			what := fmt.Sprintf("repository %s: branch records differ from git (%s)", key, strings.Join(diffs, "; "))
			if d.fix {
				if err := resyncAll(ctx, st, g, map[int64]bool{r.ID: true}); err == nil {
					d.repaired("branches", what)
					continue
				}
			}
			d.problem("branches", what, "forge doctor --fix records them from git, as the reconciler does (safe)")
		}
	}
	extra := make([]string, 0, len(disk))
	for k := range disk {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	for _, k := range extra {
		d.problem("repositories", fmt.Sprintf("directory %s.git under %s has no repository record", k, d.cfg.Repository.Root),
			"move it away (or delete it) if it is debris; to keep its content, create the repository and push it there")
	}
}

func (d *doctor) checkAttachments(ctx context.Context, st *store.Store) {
	uuids, err := st.AllAttachmentUUIDs(ctx)
	if err != nil {
		d.problem("attachments", "cannot read the attachment rows: "+err.Error(), "check the database")
		return
	}
	rows := map[string]bool{}
	for _, u := range uuids {
		rows[u] = true
	}
	root := d.cfg.Attachment.Path
	files := map[string]bool{}
	var orphans []string
	filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing directory has no files
		}
		if de.IsDir() {
			if de.Name() == "tmp" && filepath.Dir(p) == filepath.Clean(root) {
				return filepath.SkipDir // uploads in flight
			}
			return nil
		}
		key := de.Name()
		files[key] = true
		if rows[key] {
			return nil
		}
		// A file younger than the sweep's age may be an upload whose row
		// is being written.
		if info, err := de.Info(); err == nil && time.Since(info.ModTime()) > attachments.SweepAge {
			orphans = append(orphans, p)
		}
		return nil
	})
	for _, p := range orphans {
		what := "attachment file " + p + " has no row"
		if d.fix {
			if err := os.Remove(p); err == nil {
				d.repaired("attachments", what)
				continue
			}
		}
		d.problem("attachments", what, "forge doctor --fix removes it (safe: nothing refers to it)")
	}
	for _, u := range uuids {
		if !files[u] {
			d.problem("attachments", "attachment "+u+" has a row but no file under "+root,
				"restore the file from a backup, or delete the attachment through the API")
		}
	}
}
