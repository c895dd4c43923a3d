package git

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// mirrorConfig applies to every command that talks to a remote: never run
// the ext:: transport (arbitrary commands), never prompt, and never follow
// HTTP redirects (a public host could otherwise send git to an address the
// caller's host check refused).
var mirrorConfig = []string{"protocol.ext.allow=never", "credential.helper=", "http.followRedirects=false"}

// userInfoRE matches "scheme://user[:password]@" anywhere in a text.
var userInfoRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#\s@]*@`)

// RedactURL returns rawURL without its user-info (user name, password or
// token), e.g. "https://u:p@host/x.git" -> "https://host/x.git". Text that
// does not parse as a URL is scrubbed of anything that looks like
// "scheme://...@".
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return userInfoRE.ReplaceAllString(rawURL, "$1")
	}
	if u.User == nil {
		return rawURL
	}
	u.User = nil
	return u.String()
}

// redactText removes the given URLs' credentials and any URL user-info
// from text (git's diagnostics).
func redactText(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		text = strings.ReplaceAll(text, s, RedactURL(s))
		u, err := url.Parse(s)
		if err != nil || u.User == nil {
			continue
		}
		// Git may print a credential on its own or percent-decoded.
		if pw, has := u.User.Password(); has {
			if len(pw) >= 4 {
				text = strings.ReplaceAll(text, pw, "<redacted>")
			}
		} else if tok := u.User.Username(); len(tok) >= 8 {
			text = strings.ReplaceAll(text, tok, "<redacted>") // token as user name
		}
	}
	return userInfoRE.ReplaceAllString(text, "$1")
}

// checkRemote rejects remote URLs git could read as options and makes an
// existing local path absolute (git would resolve it against its own
// working directory).
func checkRemote(remoteURL string) (string, error) {
	if remoteURL == "" || strings.HasPrefix(remoteURL, "-") || strings.ContainsAny(remoteURL, "\n\x00") {
		return "", invalidf("remote URL")
	}
	if !strings.Contains(remoteURL, "://") {
		if _, err := os.Stat(remoteURL); err == nil {
			return absPath(remoteURL), nil
		}
	}
	return remoteURL, nil
}

// CloneMirror creates path as a bare mirror of remote (`git clone
// --mirror`). Credentials in the remote's URL go to git through the
// environment, never its command line, and never into the repository's
// config or returned errors. Whether a remote (local path, private
// address) is allowed is the caller's decision. Returns ErrAlreadyExists
// if path exists.
func (s *Store) CloneMirror(ctx context.Context, remote Remote, path string) error {
	if err := s.inRoot(path); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return existsf("repository %s", filepath.Base(path))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	return s.cloneMirror(ctx, remote, path)
}

// StagedPlaceholder stands for the scratch directory in the diagnostics
// of a failed CloneStaged.
const StagedPlaceholder = "<new repository>"

// CloneStaged is CloneMirror into forge's scratch space, where nothing
// serves the clone (see InitStaged): the caller Places or Discards the
// returned path. On failure nothing is left, and git's diagnostics name
// the scratch directory StagedPlaceholder.
func (s *Store) CloneStaged(ctx context.Context, remote Remote) (string, error) {
	dir, err := s.mkStaged()
	if err != nil {
		return "", err
	}
	if err := s.cloneMirror(ctx, remote, dir); err != nil {
		os.RemoveAll(dir)
		var ge *Error
		if errors.As(err, &ge) {
			ge.Stderr = strings.ReplaceAll(ge.Stderr, dir, StagedPlaceholder)
		}
		return "", err
	}
	return dir, nil
}

// cloneMirror clones remote into path, which does not exist or is an
// empty directory (git clone accepts both); on failure path is removed.
func (s *Store) cloneMirror(ctx context.Context, remote Remote, path string) error {
	rc, err := remote.call()
	if err != nil {
		os.RemoveAll(path)
		return err
	}
	err = s.run(ctx, invocation{
		config:  mirrorConfig,
		args:    []string{"clone", "--mirror", "--quiet", "--template=", "--", rc.url, absPath(path)},
		env:     rc.env,
		secrets: rc.secrets,
	})
	if err == nil && strings.Contains(remote.URL, "://") {
		// Record the remote as given (a pinned git:// URL was cloned from
		// an address), without credentials: FetchMirror is given the
		// remote each time.
		err = s.run(ctx, invocation{gitDir: path, args: []string{"config", "remote.origin.url", RedactURL(remote.URL)}})
	}
	if err != nil {
		os.RemoveAll(path)
		return err
	}
	return nil
}

// FetchMirror updates a mirror from remote (the one it was cloned from;
// passed on each call so credentials never rest in the repository's
// config), pruning refs the remote deleted, and returns the refs that
// changed (sorted by name). It compares full ref listings before and
// after, which costs O(refs) — fine for a periodic background job.
func (s *Store) FetchMirror(ctx context.Context, path string, remote Remote) ([]RefUpdate, error) {
	rc, err := remote.call()
	if err != nil {
		return nil, err
	}
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	before, err := s.refSnapshot(ctx, path)
	if err != nil {
		return nil, err
	}
	err = s.run(ctx, invocation{
		gitDir:  path,
		config:  mirrorConfig,
		args:    []string{"fetch", "--prune", "--quiet", "--no-write-fetch-head", "--", rc.url, "+refs/*:refs/*"},
		env:     rc.env,
		secrets: rc.secrets,
	})
	// Even a failed fetch may have updated some refs; report them.
	after, serr := s.refSnapshot(ctx, path)
	if serr != nil {
		return nil, errors.Join(err, serr)
	}
	return diffSnapshots(before, after), err
}

// PushMirror pushes every ref of path to remote, deleting remote refs
// that no longer exist locally (`git push --mirror`).
func (s *Store) PushMirror(ctx context.Context, path string, remote Remote) error {
	rc, err := remote.call()
	if err != nil {
		return err
	}
	if err := s.checkRepo(path); err != nil {
		return err
	}
	return s.run(ctx, invocation{
		gitDir:  path,
		config:  mirrorConfig,
		args:    []string{"push", "--mirror", "--quiet", "--", rc.url},
		env:     rc.env,
		secrets: rc.secrets,
	})
}

// refSnapshot maps every ref to the object it points at.
func (s *Store) refSnapshot(ctx context.Context, path string) (map[string]string, error) {
	out, err := s.output(ctx, path, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	refs := make(map[string]string)
	for _, line := range strings.Split(string(out), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok {
			refs[name] = sha
		}
	}
	return refs, nil
}

func diffSnapshots(before, after map[string]string) []RefUpdate {
	var ups []RefUpdate
	zero := ZeroSHA
	for name, old := range before {
		if len(old) != len(zero) {
			zero = strings.Repeat("0", len(old))
		}
		if nw, ok := after[name]; !ok {
			ups = append(ups, RefUpdate{Name: name, OldSHA: old, NewSHA: zero})
		} else if nw != old {
			ups = append(ups, RefUpdate{Name: name, OldSHA: old, NewSHA: nw})
		}
	}
	for name, nw := range after {
		if _, ok := before[name]; !ok {
			ups = append(ups, RefUpdate{Name: name, OldSHA: strings.Repeat("0", len(nw)), NewSHA: nw})
		}
	}
	sort.Slice(ups, func(i, j int) bool { return ups[i].Name < ups[j].Name })
	return ups
}
