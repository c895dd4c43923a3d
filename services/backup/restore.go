package backup

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"forge/services/config"
	"forge/services/store"
	"forge/services/store/migrations"
)

// maxManifest bounds manifest.json.
const maxManifest = 64 << 20

// Reader reads a dump archive in order: the manifest, then the files.
type Reader struct {
	gz       *gzip.Reader
	tr       *tar.Reader
	Manifest Manifest
	// ConfigFile is the dumped configuration file (nil: none).
	ConfigFile []byte
}

// Open reads the archive's manifest.
func Open(r io.Reader) (*Reader, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a forge dump (gzip: %w)", err)
	}
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != "manifest.json" || hdr.Size > maxManifest {
		return nil, errors.New("not a forge dump: it does not start with manifest.json")
	}
	rd := &Reader{gz: gz, tr: tr}
	if err := json.NewDecoder(io.LimitReader(tr, maxManifest)).Decode(&rd.Manifest); err != nil {
		return nil, fmt.Errorf("not a forge dump: manifest.json: %w", err)
	}
	if rd.Manifest.Format != Format {
		return nil, fmt.Errorf("the dump's format is %d; this forge reads format %d", rd.Manifest.Format, Format)
	}
	if rd.Manifest.Config != "" {
		hdr, err := tr.Next()
		if err != nil || hdr.Name != rd.Manifest.Config || hdr.Size > maxManifest {
			return nil, errors.New("the dump's configuration file does not follow its manifest")
		}
		if rd.ConfigFile, err = io.ReadAll(tr); err != nil {
			return nil, fmt.Errorf("read the dumped configuration: %w", err)
		}
	}
	return rd, nil
}

// Loader is what restore needs of the target database (store.Store): its
// tables, migrating to the dump's step, and loading the rows.
type Loader interface {
	Tables(ctx context.Context) ([]string, error)
	MigrateTo(ctx context.Context, id string) error
	Load(ctx context.Context, tables []store.PortableTable, rows func(table string, emit func(vals []any) error) error) error
}

// Targets says where restore writes.
type Targets struct {
	Config *config.Config
	Store  Loader
	Log    io.Writer
}

// CheckEmpty refuses a database that has tables or a data directory that
// already holds repositories, attachments or another secret key.
func CheckEmpty(ctx context.Context, t Targets, m *Manifest) error {
	tables, err := t.Store.Tables(ctx)
	if err != nil {
		return err
	}
	if len(tables) > 0 {
		return fmt.Errorf("the database (%s) is not empty (%d tables, e.g. %s): restore into a new, empty database", t.Config.Database.Describe(), len(tables), tables[0])
	}
	if entries := dirEntries(t.Config.Repository.Root, "@forge"); len(entries) > 0 {
		return fmt.Errorf("the repository root %s is not empty (%s): restore into an empty data directory", t.Config.Repository.Root, entries[0])
	}
	if entries := dirEntries(t.Config.Attachment.Path, "tmp"); len(entries) > 0 {
		return fmt.Errorf("the attachment directory %s is not empty (%s): restore into an empty data directory", t.Config.Attachment.Path, entries[0])
	}
	if key := t.Config.Security.SecretKey; key != "" {
		if sum := sha256.Sum256([]byte(key)); hex.EncodeToString(sum[:]) != m.SecretKeySHA256 {
			return errors.New("[security] SECRET_KEY differs from the dumped one: the dump's secrets could not be unsealed; remove SECRET_KEY from the configuration (restore writes the dumped key to APP_DATA_PATH/secret_key) or set the dumped key")
		}
	}
	if b, err := os.ReadFile(filepath.Join(t.Config.Server.AppDataPath, "secret_key")); err == nil {
		if sum := sha256.Sum256(bytes.TrimSpace(b)); hex.EncodeToString(sum[:]) != m.SecretKeySHA256 && t.Config.Security.SecretKey == "" {
			return fmt.Errorf("%s holds another secret key: restore into an empty data directory", filepath.Join(t.Config.Server.AppDataPath, "secret_key"))
		}
	}
	for _, id := range m.Migrations {
		if !knownStep(id) {
			return fmt.Errorf("the dump's schema has migration %s, which this forge (%s) does not know: restore with the forge version that wrote the dump (%s) or a newer one", id, m.ForgeVersion, m.ForgeVersion)
		}
	}
	if len(m.Migrations) == 0 {
		return errors.New("the dump records no applied migrations")
	}
	return nil
}

func knownStep(id string) bool {
	steps, err := migrations.Steps()
	if err != nil {
		return false
	}
	for _, s := range steps {
		if s.ID == id {
			return true
		}
	}
	return false
}

// dirEntries lists dir's entries but ignored ones (none when it does not exist).
func dirEntries(dir string, ignore ...string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		skip := false
		for _, i := range ignore {
			skip = skip || e.Name() == i
		}
		if !skip {
			out = append(out, e.Name())
		}
	}
	return out
}

// Restore writes the archive's files into the data directories of
// t.Config, then migrates the database to the dump's schema and loads its
// rows. The caller checked CheckEmpty, and migrates the rest of the way
// and resyncs the repositories afterwards.
func (rd *Reader) Restore(ctx context.Context, t Targets) error {
	stage, err := os.MkdirTemp("", "forge-restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	cfg := t.Config
	for {
		hdr, err := rd.tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read the dump: %w", err)
		}
		name := path.Clean(hdr.Name)
		if strings.HasPrefix(name, "../") || name == ".." || path.IsAbs(name) {
			return fmt.Errorf("the dump holds a path outside its directories: %q", hdr.Name)
		}
		var dest string
		mode := os.FileMode(0o600)
		top, rest, _ := strings.Cut(name, "/")
		switch top {
		case "database":
			dest = filepath.Join(stage, "database", rest)
		case "repositories":
			dest, mode = filepath.Join(cfg.Repository.Root, rest), os.FileMode(hdr.Mode).Perm()&0o750
		case "attachments":
			dest = filepath.Join(cfg.Attachment.Path, rest)
		case "data":
			if rest == "secret_key" {
				if cfg.Security.SecretKey != "" {
					continue // the configuration holds it (checked equal)
				}
				dest = filepath.Join(cfg.Server.AppDataPath, "secret_key")
				if _, err := os.Stat(dest); err == nil {
					continue // the same key (checked)
				}
			} else {
				dest = filepath.Join(cfg.Server.AppDataPath, rest)
				if _, err := os.Stat(dest); err == nil && hdr.Typeflag == tar.TypeReg {
					fmt.Fprintf(t.Log, "forge restore: keeping the existing %s\n", dest)
					continue // an SSH host key this data directory already has
				}
			}
		default:
			continue // custom/conf/app.ini: the caller placed it
		}
		if rest == "" {
			if err := os.MkdirAll(dest, 0o700); err != nil {
				return err
			}
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dest, 0o750); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dest), 0o750); err != nil {
				return err
			}
			f, err := os.OpenFile(dest, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, rd.tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	m := &rd.Manifest
	if err := t.Store.MigrateTo(ctx, m.Migrations[len(m.Migrations)-1]); err != nil {
		return fmt.Errorf("migrate to the dump's schema: %w", err)
	}
	return t.Store.Load(ctx, m.Tables, func(table string, emit func([]any) error) error {
		f, err := os.Open(filepath.Join(stage, "database", table+".jsonl"))
		if err != nil {
			return fmt.Errorf("the dump has no rows file for table %s: %w", table, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 256<<20)
		var n int64
		for sc.Scan() {
			vals, err := decodeRow(sc.Bytes())
			if err != nil {
				return fmt.Errorf("row %d: %w", n+1, err)
			}
			if err := emit(vals); err != nil {
				return fmt.Errorf("row %d: %w", n+1, err)
			}
			n++
		}
		if err := sc.Err(); err != nil {
			return err
		}
		for _, tt := range m.Tables {
			if tt.Name == table && tt.Rows != n {
				return fmt.Errorf("the dump lists %d rows but holds %d", tt.Rows, n)
			}
		}
		return nil
	})
}

// decodeRow reverses encodeRow: numbers become int64 (float64 when not
// integral), {"base64": ...} bytes.
func decodeRow(line []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	for i, v := range raw {
		switch x := v.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				raw[i] = n
			} else if f, err := x.Float64(); err == nil {
				raw[i] = f
			} else {
				return nil, err
			}
		case map[string]any:
			s, ok := x["base64"].(string)
			if !ok {
				return nil, errors.New("an object that is not {\"base64\": ...}")
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, err
			}
			raw[i] = b
		}
	}
	return raw, nil
}
