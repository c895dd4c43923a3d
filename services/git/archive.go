package git

import (
	"context"
	"io"
	"log/slog"
	"os"
)

// ArchiveFormat is an archive the archive API streams.
type ArchiveFormat string

const (
	ArchiveZip    ArchiveFormat = "zip"
	ArchiveTarGz  ArchiveFormat = "tar.gz"
	ArchiveBundle ArchiveFormat = "bundle"
)

// Archive writes the archive of rev (resolved as Resolve does) to w as it
// is produced, never holding it whole: `git archive` for zip and tar.gz
// (files under prefix, e.g. "name/"), `git bundle create -` for a bundle,
// which needs a branch or tag (a bundle names its refs; ErrNotFound for a
// bare commit). ErrNotFound when rev names no commit. With an archive
// cache (SetArchiveCache) a produced archive is kept and served again
// without git (archivecache.go).
func (s *Store) Archive(ctx context.Context, path string, rev Revision, format ArchiveFormat, prefix string, w io.Writer) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	var args []string
	switch format {
	case ArchiveZip:
		args = []string{"archive", "--format=zip", "--prefix=" + prefix, rev.SHA}
	case ArchiveTarGz:
		args = []string{"archive", "--format=tar.gz", "--prefix=" + prefix, rev.SHA}
	case ArchiveBundle:
		var ref string
		switch rev.Kind {
		case RefBranch:
			ref = "refs/heads/" + rev.Name
		case RefTag:
			ref = "refs/tags/" + rev.Name
		default:
			return notFoundf("bundle of a commit %q", rev.SHA)
		}
		args = []string{"bundle", "create", "--quiet", "-", ref}
	default:
		return invalidf("archive format %q", format)
	}
	if s.archives == nil {
		return s.run(ctx, invocation{gitDir: path, args: args, stdout: w})
	}
	file := s.archives.entry(path, rev, format, prefix)
	if ok, err := s.archives.serve(file, w); ok {
		return err
	}
	tmp, err := s.archives.create(file)
	if err != nil {
		// No cache today (a full disk, say): still serve the archive.
		return s.run(ctx, invocation{gitDir: path, args: args, stdout: w})
	}
	if err := s.run(ctx, invocation{gitDir: path, args: args, stdout: io.MultiWriter(w, tmp)}); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := s.archives.commit(tmp, file); err != nil {
		slog.Warn("git: archive not cached", "err", err)
	}
	return nil
}
