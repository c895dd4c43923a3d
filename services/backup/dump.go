// Package backup writes and reads forge's dump archive (forge dump,
// forge restore): one gzip-compressed tar holding
//
//	manifest.json                      format, forge and schema versions, tables, repositories
//	database/<table>.jsonl             one JSON array per row, columns as the manifest lists them
//	repositories/<owner>/<name>.git/   each repository, whole
//	attachments/<a>/<b>/<uuid>         the files of the attachment rows
//	data/secret_key                    the SECRET_KEY the sealed columns were sealed with
//	data/ssh/                          the SSH host keys, when there are any
//	custom/conf/app.ini                the configuration file, when one was used
//
// The database is dumped as data, not as a database file, so a dump of
// SQLite restores into PostgreSQL and back. Every table is read in one
// read-only snapshot (store.Export). The repositories and attachments of
// that snapshot's rows are copied after it: each repository through git
// itself (git.Store.Snapshot: refs read once, every object they reach
// sent), so it is never torn by a push running meanwhile. A repository
// may therefore be newer than its records; restore runs the reconciler's
// rule on every repository (git is the truth for branches: records are
// rewritten from the refs), which is what the server's reconciler does
// after a crash between a ref move and its record.
package backup

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"forge/services/config"
	"forge/services/git"
	"forge/services/misc"
	"forge/services/store"
	"forge/services/store/migrations"
)

// Format is the archive layout's version.
const Format = 1

// Manifest is manifest.json.
type Manifest struct {
	Format        int    `json:"format"`
	ForgeVersion  string `json:"forge_version"`
	Created       string `json:"created"`
	DatabaseType  string `json:"database_type"`
	SchemaVersion string `json:"schema_version"`
	store.PortableSchema
	Repositories []string `json:"repositories"` // owner/name as on disk
	Attachments  int      `json:"attachments"`
	// SecretKeySHA256 identifies the key the sealed columns need (the key
	// itself is data/secret_key): restore refuses a configuration whose
	// SECRET_KEY differs.
	SecretKeySHA256 string   `json:"secret_key_sha256"`
	Config          string   `json:"config,omitempty"` // archive path of the configuration file
	Warnings        []string `json:"warnings,omitempty"`
}

// Exporter reads every table in one snapshot (store.Store.Export).
type Exporter interface {
	Export(ctx context.Context, table func(store.PortableTable) error, row func(vals []any) error) (store.PortableSchema, error)
}

// DumpOptions says what to dump and where.
type DumpOptions struct {
	Config     *config.Config
	ConfigFile string // the configuration file in use; "" for none
	Store      Exporter
	Git        *git.Store
	Out        io.Writer // the archive
	Log        io.Writer // progress and warnings, for the operator
}

// Dump writes the archive to o.Out.
func Dump(ctx context.Context, o DumpOptions) (*Manifest, error) {
	stage, err := os.MkdirTemp("", "forge-dump-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	if err := os.Chmod(stage, 0o700); err != nil {
		return nil, err
	}
	m := &Manifest{Format: Format, ForgeVersion: misc.Version, Created: time.Now().UTC().Format(time.RFC3339),
		DatabaseType: o.Config.Database.Type, SchemaVersion: migrations.Version()}
	warn := func(format string, args ...any) {
		w := fmt.Sprintf(format, args...)
		m.Warnings = append(m.Warnings, w)
		fmt.Fprintln(o.Log, "forge dump: warning:", w)
	}

	// 1. The database, in one snapshot.
	type repoRow struct{ owner, name string }
	var (
		repos   []repoRow
		uuids   []string
		f       *os.File
		enc     *json.Encoder
		current store.PortableTable
		cols    map[string]int
	)
	dbDir := filepath.Join(stage, "database")
	if err := os.Mkdir(dbDir, 0o700); err != nil {
		return nil, err
	}
	closeTable := func() error {
		if f == nil {
			return nil
		}
		err := f.Close()
		f = nil
		return err
	}
	table := func(t store.PortableTable) error {
		if err := closeTable(); err != nil {
			return err
		}
		current = t
		cols = map[string]int{}
		for i, c := range t.Columns {
			cols[c] = i
		}
		var err error
		f, err = os.OpenFile(filepath.Join(dbDir, t.Name+".jsonl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		enc = json.NewEncoder(f)
		return err
	}
	row := func(vals []any) error {
		switch current.Name {
		case "repositories":
			repos = append(repos, repoRow{fmt.Sprint(vals[cols["owner_name"]]), fmt.Sprint(vals[cols["name"]])})
		case "attachments":
			uuids = append(uuids, fmt.Sprint(vals[cols["uuid"]]))
		}
		return enc.Encode(encodeRow(vals))
	}
	schema, err := o.Store.Export(ctx, table, row)
	if cerr := closeTable(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	m.PortableSchema = schema
	fmt.Fprintf(o.Log, "forge dump: database: %d tables\n", len(schema.Tables))

	// 2. The repositories of the snapshot's records.
	for _, r := range repos {
		path, err := o.Git.RepoPath(r.owner, r.name)
		if err != nil {
			warn("repository %s/%s: %v", r.owner, r.name, err)
			continue
		}
		rel := strings.ToLower(r.owner) + "/" + strings.ToLower(r.name)
		if !o.Git.Exists(path) {
			warn("repository %s has a record but no directory (deleted while dumping?); forge doctor reports it after restore", rel)
			continue
		}
		if err := o.Git.Snapshot(ctx, path, filepath.Join(stage, "repositories", rel+".git")); err != nil {
			return nil, fmt.Errorf("repository %s: %w", rel, err)
		}
		m.Repositories = append(m.Repositories, rel)
	}
	fmt.Fprintf(o.Log, "forge dump: %d repositories\n", len(m.Repositories))

	// 3. The attachments' files.
	for _, u := range uuids {
		if len(u) < 2 {
			warn("attachment %q: not a blob key", u)
			continue
		}
		rel := filepath.Join(u[0:1], u[1:2], u)
		err := copyFile(filepath.Join(o.Config.Attachment.Path, rel), filepath.Join(stage, "attachments", rel))
		if errors.Is(err, fs.ErrNotExist) {
			warn("attachment %s has a row but no file (deleted while dumping?)", u)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", u, err)
		}
		m.Attachments++
	}

	// 4. What unseals the secrets, the host keys, the configuration.
	key := o.Config.Security.SecretKey
	if key == "" {
		return nil, errors.New("no SECRET_KEY: set [security] SECRET_KEY or keep APP_DATA_PATH/secret_key")
	}
	sum := sha256.Sum256([]byte(key))
	m.SecretKeySHA256 = hex.EncodeToString(sum[:])
	if err := writeFile(filepath.Join(stage, "data", "secret_key"), []byte(key+"\n")); err != nil {
		return nil, err
	}
	sshDir := filepath.Join(o.Config.Server.AppDataPath, "ssh")
	if _, err := os.Stat(sshDir); err == nil {
		if err := copyTree(sshDir, filepath.Join(stage, "data", "ssh")); err != nil {
			return nil, fmt.Errorf("ssh host keys: %w", err)
		}
	}
	if o.ConfigFile != "" {
		m.Config = "custom/conf/app.ini"
		if err := copyFile(o.ConfigFile, filepath.Join(stage, m.Config)); err != nil {
			return nil, fmt.Errorf("configuration file: %w", err)
		}
	}

	// 5. The archive: manifest first, so restore checks it before
	// writing anything.
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeArchive(o.Out, manifest, m.Config, stage); err != nil {
		return nil, err
	}
	return m, nil
}

// encodeRow maps a row to JSON: bytes (and text that is not UTF-8) become
// {"base64": "..."}, so they are told from text and kept byte for byte.
func encodeRow(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		if b, ok := v.([]byte); ok {
			out[i] = map[string]string{"base64": base64.StdEncoding.EncodeToString(b)}
			continue
		}
		if s, ok := v.(string); ok && !utf8.ValidString(s) {
			// JSON would replace the invalid bytes; restore turns bytes
			// back into text for a text column.
			out[i] = map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))}
			continue
		}
		out[i] = v
	}
	return out
}

// writeArchive writes the manifest, then the configuration file (restore
// places it before it reads anything else), then the staged files.
func writeArchive(w io.Writer, manifest []byte, configFile, stage string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	now := time.Now()
	if err := tw.WriteHeader(&tar.Header{Name: "manifest.json", Mode: 0o600, Size: int64(len(manifest)), ModTime: now, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	if configFile != "" {
		b, err := os.ReadFile(filepath.Join(stage, configFile))
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: configFile, Mode: 0o600, Size: int64(len(b)), ModTime: now, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	err := filepath.WalkDir(stage, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case path == stage:
			return nil
		case path == filepath.Join(stage, "custom"):
			return fs.SkipDir // written first
		}
		rel, err := filepath.Rel(stage, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if d.IsDir() {
			hdr.Name += "/"
		} else if !info.Mode().IsRegular() {
			return nil // git writes no links or devices in a repository
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
}
