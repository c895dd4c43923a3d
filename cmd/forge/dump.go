package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"forge/services/backup"
	"forge/services/git"
	"forge/services/store"
)

// dump writes the backup archive (services/backup): forge dump [--file F|-].
func (e *cliEnv) dump(args []string) int {
	fs := e.flags("dump")
	file := fs.String("file", "", "archive to write (default forge-dump-<time>.tar.gz; - for standard output)")
	fs.StringVar(file, "f", "", "archive to write, short form")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "forge dump: unexpected argument %q (the archive is --file)\n", fs.Arg(0))
		return 2
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
	}
	if err := cfg.EnsureSecretKey(); err != nil {
		return e.fail(err)
	}
	ctx := context.Background()
	// No migration: a dump reads the database as it is (the running
	// server's schema) and records which steps it has.
	st, err := store.Open(cfg.Database)
	if err != nil {
		return e.fail(err)
	}
	defer st.Close()
	gitStore, err := git.New(cfg.Repository.Root)
	if err != nil {
		return e.fail(err)
	}
	name := *file
	if name == "" {
		name = "forge-dump-" + time.Now().UTC().Format("20060102T150405Z") + ".tar.gz"
	}
	configFile := e.usedConfig
	if configFile != "" {
		if abs, err := filepath.Abs(configFile); err == nil {
			configFile = abs
		}
	}
	opts := backup.DumpOptions{Config: cfg, ConfigFile: configFile, Store: st, Git: gitStore, Log: e.stderr}
	if name == "-" {
		opts.Out = e.stdout
		if _, err := backup.Dump(ctx, opts); err != nil {
			return e.fail(fmt.Errorf("dump: %w", err))
		}
		return 0
	}
	// Written beside its name and renamed when complete, so a file of that
	// name is always a whole archive; 0600: it holds the secret key.
	tmp := name + ".partial"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return e.fail(fmt.Errorf("dump: %w (choose another --file)", err))
	}
	opts.Out = f
	m, err := backup.Dump(ctx, opts)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if _, serr := os.Stat(name); serr == nil {
			err = fmt.Errorf("%s exists (choose another --file)", name)
		} else {
			err = os.Rename(tmp, name)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return e.fail(fmt.Errorf("dump: %w", err))
	}
	fmt.Fprintf(e.stdout, "dumped %d tables, %d repositories and %d attachments to %s\n",
		len(m.Tables), len(m.Repositories), m.Attachments, name)
	return 0
}
