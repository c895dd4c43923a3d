// Package blob stores opaque files (attachments) by key. The interface is
// small so that object storage can replace the local directory later;
// callers stream through it and never hold a file whole in memory.
package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound: no file under that key.
var ErrNotFound = errors.New("blob: not found")

// ErrTooLarge: Put read more than its limit; nothing was stored.
var ErrTooLarge = errors.New("blob: file too large")

// Store keeps files by key. Keys are what the caller chose (UUIDs); they
// must be plain names (letters, digits, '-').
type Store interface {
	// Put stores what r yields under key, at most max bytes (ErrTooLarge
	// beyond, and nothing is stored). The file is visible under key only
	// once complete and durable; a crash leaves no partial file there.
	Put(ctx context.Context, key string, r io.Reader, max int64) (int64, error)
	// Open opens the file of key; ErrNotFound if there is none.
	Open(key string) (File, error)
	// Delete removes the file of key; a missing file is not an error.
	Delete(key string) error
	// Walk calls fn for every stored file, and for unfinished uploads
	// (temp is true, key is their internal name), with its modification
	// time. fn may delete the file it is given (Delete, or RemoveTemp).
	Walk(ctx context.Context, fn func(key string, modified time.Time, temp bool) error) error
	// RemoveTemp removes an unfinished upload Walk reported.
	RemoveTemp(name string) error
}

// File is an open stored file.
type File interface {
	io.ReadSeekCloser
	Size() int64
}

// Local stores files under a directory: key "abcdef..." at
// <root>/a/b/abcdef..., uploads in progress under <root>/tmp.
type Local struct {
	root string
}

var _ Store = (*Local)(nil)

// NewLocal returns a store rooted at dir, creating it.
func NewLocal(dir string) (*Local, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	return &Local{root: dir}, nil
}

// ValidKey reports whether key can name a file: 3 to 64 letters, digits
// and dashes (no path separators, no dots).
func ValidKey(key string) bool {
	if len(key) < 3 || len(key) > 64 {
		return false
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func (l *Local) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("blob: invalid key %q", key)
	}
	return filepath.Join(l.root, key[0:1], key[1:2], key), nil
}

// limitedReader fails once more than max bytes were read.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (lr *limitedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > lr.left+1 {
		p = p[:lr.left+1]
	}
	n, err := lr.r.Read(p)
	if int64(n) > lr.left {
		return 0, ErrTooLarge
	}
	lr.left -= int64(n)
	return n, err
}

// Put writes to a temporary file, syncs it, then renames it into place
// (and syncs the directory), so the key names a complete file or none.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, max int64) (int64, error) {
	dst, err := l.path(key)
	if err != nil {
		return 0, err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(l.root, "tmp", key+"."+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	n, err := io.Copy(f, &limitedReader{r: ctxReader{ctx, r}, left: max})
	if err != nil {
		return n, err
	}
	if err := f.Sync(); err != nil {
		return n, err
	}
	if err := f.Close(); err != nil {
		done = true
		os.Remove(tmp)
		return n, err
	}
	done = true
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		os.Remove(tmp)
		return n, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return n, err
	}
	syncDir(dir)
	return n, nil
}

// ctxReader stops reading once ctx is done (a client that went away).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

func (l *Local) Open(key string) (File, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{File: f, size: st.Size()}, nil
}

func (l *Local) Delete(key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (l *Local) RemoveTemp(name string) error {
	if strings.ContainsAny(name, `/\`) || name == "" || name == "." || name == ".." {
		return fmt.Errorf("blob: invalid temp name %q", name)
	}
	err := os.Remove(filepath.Join(l.root, "tmp", name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (l *Local) Walk(ctx context.Context, fn func(key string, modified time.Time, temp bool) error) error {
	return filepath.WalkDir(l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(l.root, p)
		temp := filepath.Dir(rel) == "tmp"
		if !temp && !ValidKey(d.Name()) {
			return nil // not ours
		}
		return fn(d.Name(), info.ModTime(), temp)
	})
}
