package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Snapshot copies the repository at path into dest (a new directory
// outside Root) as a whole repository that is never torn by writers
// running meanwhile: git itself reads the refs once and sends every object
// they reach (a fetch over the file:// transport, not a copy of files that
// a push or a repack may be changing), then HEAD and the repository's
// config are copied. Objects no ref reaches are left behind. (forge dump)
func (s *Store) Snapshot(ctx context.Context, path, dest string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	noHooks := "core.hooksPath=" + s.noHooksDir
	src, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dst, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	if err := s.run(ctx, invocation{args: []string{"init", "--bare", "--quiet", "--template=", "--", dst}}); err != nil {
		return err
	}
	err = s.run(ctx, invocation{gitDir: dst, config: []string{noHooks, "protocol.file.allow=always"},
		args: []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "file://" + src, "+refs/*:refs/*"}})
	if err != nil {
		return fmt.Errorf("copy %s: %w", filepath.Base(path), err)
	}
	head, err := s.output(ctx, path, "symbolic-ref", "--quiet", "HEAD")
	if err == nil && len(bytes.TrimSpace(head)) > 0 {
		if err := s.run(ctx, invocation{gitDir: dst, config: []string{noHooks}, args: []string{"symbolic-ref", "HEAD", string(bytes.TrimSpace(head))}}); err != nil {
			return err
		}
	}
	for _, f := range []string{"config", "description"} {
		b, err := os.ReadFile(filepath.Join(path, f))
		if err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o640); err != nil {
			return err
		}
	}
	return nil
}

// Fsck checks the repository at path is whole (every object its refs reach
// is present and sound).
func (s *Store) Fsck(ctx context.Context, path string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	return s.run(ctx, invocation{gitDir: path, config: []string{"core.hooksPath=" + s.noHooksDir},
		args: []string{"fsck", "--no-dangling", "--no-progress"}})
}

// AllRefs lists every ref of the repository at path with its object id
// ("<sha> <ref>" lines, sorted by ref), for comparing repositories.
func (s *Store) AllRefs(ctx context.Context, path string) ([]string, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	out, err := s.output(ctx, path, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	var refs []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			refs = append(refs, l)
		}
	}
	return refs, nil
}

// Hooks are the hook scripts forge runs git with (core.hooksPath under
// Root/@forge/hooks); every Store writes them when it starts.
func hookFiles() map[string]string {
	return map[string]string{
		"reference-transaction": referenceTransactionHook,
		"pre-receive":           preReceiveHook,
		"post-receive":          postReceiveHook,
	}
}

// MissingHooks lists the hooks under root that are missing, changed or
// not executable, without writing anything (forge doctor). New writes
// them again.
func MissingHooks(root string) []string {
	var bad []string
	for name, body := range hookFiles() {
		p := filepath.Join(root, internalDir, "hooks", name)
		b, err := os.ReadFile(p)
		st, serr := os.Stat(p)
		if err != nil || serr != nil || !bytes.Equal(b, []byte(body)) || st.Mode()&0o100 == 0 {
			bad = append(bad, name)
		}
	}
	return bad
}

// Repositories lists the owner/name of every repository directory under
// Root (forge doctor compares them with the records).
func (s *Store) Repositories() ([]string, error) {
	if err := s.setup(); err != nil {
		return nil, err
	}
	owners, err := os.ReadDir(s.root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range owners {
		if !o.IsDir() || o.Name() == internalDir {
			continue
		}
		repos, err := os.ReadDir(filepath.Join(s.root, o.Name()))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		for _, r := range repos {
			if n, ok := strings.CutSuffix(r.Name(), ".git"); ok && r.IsDir() {
				out = append(out, o.Name()+"/"+n)
			}
		}
	}
	return out, nil
}
