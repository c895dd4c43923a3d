package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"forge/cmd/forge/app"
	"forge/services/backup"
	"forge/services/config"
	"forge/services/git"
	"forge/services/repos"
	"forge/services/store"
)

// restore brings a dump back onto an empty data directory and database.
func (e *cliEnv) restore(args []string) int {
	fs := e.flags("restore")
	file := fs.String("file", "", "archive written by forge dump (- for standard input)")
	fs.StringVar(file, "f", "", "archive, short form")
	// The database to restore into, when not the configuration's (moving
	// from SQLite to PostgreSQL); the password only from the environment
	// (FORGE__DATABASE__PASSWD), never a command line.
	dbFlags := map[string]*string{}
	for _, k := range []struct{ flag, key, help string }{
		{"database-type", "DB_TYPE", "sqlite3 or postgres ([database] DB_TYPE)"},
		{"database-host", "HOST", "PostgreSQL host[:port] ([database] HOST)"},
		{"database-name", "NAME", "PostgreSQL database ([database] NAME)"},
		{"database-user", "USER", "PostgreSQL user ([database] USER)"},
		{"database-ssl-mode", "SSL_MODE", "PostgreSQL sslmode ([database] SSL_MODE)"},
		{"database-path", "PATH", "SQLite file ([database] PATH)"},
	} {
		dbFlags[k.key] = fs.String(k.flag, "", k.help)
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *file == "" {
		fmt.Fprintln(e.stderr, "forge restore: give the archive with --file (written by forge dump)")
		return 2
	}
	for key, v := range dbFlags {
		if *v != "" {
			e.overrides = append(e.overrides, config.EnvPrefix+"DATABASE__"+key+"="+*v)
		}
	}
	in := e.stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return e.fail(fmt.Errorf("restore: %w", err))
		}
		defer f.Close()
		in = f
	}
	rd, err := backup.Open(in)
	if err != nil {
		return e.fail(fmt.Errorf("restore: %w", err))
	}
	if err := e.restoreConfig(rd); err != nil {
		return e.fail(fmt.Errorf("restore: %w", err))
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
	}
	ctx := context.Background()
	st, err := store.Open(cfg.Database)
	if err != nil {
		return e.fail(err)
	}
	t := backup.Targets{Config: cfg, Store: st, Log: e.stderr}
	if err := backup.CheckEmpty(ctx, t, &rd.Manifest); err != nil {
		st.Close()
		return e.fail(fmt.Errorf("restore refused: %w", err))
	}
	err = rd.Restore(ctx, t)
	st.Close()
	if err != nil {
		return e.fail(fmt.Errorf("restore: %w (the database and data directories are partly written: empty them before trying again)", err))
	}
	if err := cfg.EnsureSecretKey(); err != nil {
		return e.fail(err)
	}
	// The steps after the dump's schema, then git's truth for branches:
	// repositories copied after the database snapshot may be ahead of
	// their records.
	st, err = app.OpenStore(ctx, cfg)
	if err != nil {
		return e.fail(fmt.Errorf("restore: migrate: %w", err))
	}
	defer st.Close()
	gitStore, err := git.New(cfg.Repository.Root)
	if err != nil {
		return e.fail(err)
	}
	if err := resyncAll(ctx, st, gitStore, nil); err != nil {
		return e.fail(fmt.Errorf("restore: record branches from git: %w", err))
	}
	m := rd.Manifest
	fmt.Fprintf(e.stdout, "restored %d tables, %d repositories and %d attachments (forge %s, %s) into %s\n",
		len(m.Tables), len(m.Repositories), m.Attachments, m.ForgeVersion, m.DatabaseType, cfg.Database.Describe())
	return 0
}

// restoreConfig writes the dumped configuration file where this run will
// read it, unless a configuration file is already there.
func (e *cliEnv) restoreConfig(rd *backup.Reader) error {
	target := e.configPath
	if target == "" {
		target = defaultConfigPath
	}
	if _, err := os.Stat(target); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil // the operator's configuration wins
	}
	if rd.ConfigFile == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(target, rd.ConfigFile, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "forge restore: wrote the dumped configuration to %s\n", target)
	return nil
}

// resyncAll rewrites the branch records of the repositories (all when ids
// is nil) from their git refs.
func resyncAll(ctx context.Context, st *store.Store, g *git.Store, ids map[int64]bool) error {
	all, err := st.AllRepositories(ctx)
	if err != nil {
		return err
	}
	records, err := st.AllBranchRecords(ctx)
	if err != nil {
		return err
	}
	recorded := map[int64][]string{}
	for _, b := range records {
		recorded[b.RepoID] = append(recorded[b.RepoID], b.Name)
	}
	syncer := &repos.Syncer{Store: st, Git: g}
	var errs []error
	for i := range all {
		r := &all[i]
		if ids != nil && !ids[r.ID] {
			continue
		}
		path, err := g.RepoPath(r.OwnerName, r.Name)
		if err != nil || !g.Exists(path) {
			continue // doctor reports it
		}
		if err := syncer.Resync(ctx, r, recorded[r.ID]); err != nil {
			errs = append(errs, fmt.Errorf("%s/%s: %w", r.OwnerName, r.Name, err))
		}
	}
	return errors.Join(errs...)
}
