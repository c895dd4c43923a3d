package git

import (
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/go-enry/go-enry/v2"
)

// Language statistics: the bytes of each programming or markup language
// in a commit's tree, classified with go-enry as Gitea's language stats
// do. Files that are vendored, generated, documentation, configuration
// or dotfiles are left out; the root .gitattributes may say otherwise
// (linguist-vendored, linguist-generated, linguist-documentation,
// linguist-detectable, linguist-language / gitlab-language). When no
// file of a programming or markup language counts but some other
// programming or markup language was left out as not detectable, the
// first such language is reported alone, as Gitea does.
//
// Everything is read through the pooled cat-file readers (trees as
// cached objects, sizes with one info exchange, the first bytes of blobs
// in batches), and the result is cached per commit id: a tree never
// changes.

// Bounds of one computation. Files past MaxLanguageFiles (in tree order)
// are not counted; content is read only from blobs of at most
// languageBigFile bytes, at most languageHead bytes of each, and only
// while the blobs read so far total at most MaxLanguageBytes (later files
// are classified by their names alone).
const (
	MaxLanguageFiles = 100_000
	MaxLanguageBytes = 64 << 20
	languageBigFile  = 1 << 20
	languageHead     = 16 << 10
	languageBatch    = 256
	maxAttributes    = 64 << 10
)

// Languages returns the bytes per language of the tree of commit (a full
// commit id) in the repository at path. An empty map when nothing
// counts. ErrNotFound when commit names no commit.
func (s *Store) Languages(ctx context.Context, repoPath, commit string) (map[string]int64, error) {
	if err := s.checkRepo(repoPath); err != nil {
		return nil, err
	}
	commit = strings.ToLower(commit)
	if !isObjectID(commit) || (len(commit) != 40 && len(commit) != 64) {
		return nil, notFoundf("commit %q", commit)
	}
	key := s.cacheKey(repoPath, "languages", commit)
	if v, ok := s.cache.get(key); ok {
		return copyStats(v.(map[string]int64)), nil
	}
	root, err := s.rootTree(ctx, repoPath, commit)
	if err != nil {
		return nil, err
	}
	files, err := s.languageFiles(ctx, repoPath, root)
	if err != nil {
		return nil, err
	}
	if err := s.fillSizes(ctx, repoPath, files); err != nil {
		return nil, err
	}
	attrs, err := s.readAttributes(ctx, repoPath, files)
	if err != nil {
		return nil, err
	}
	stats, err := s.classify(ctx, repoPath, files, attrs)
	if err != nil {
		return nil, err
	}
	size := int64(0)
	for k := range stats {
		size += int64(len(k)) + 16
	}
	s.cache.add(key, stats, size)
	return copyStats(stats), nil
}

func copyStats(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// languageFiles walks the tree and returns its regular files (no
// symlinks, no submodules), at most MaxLanguageFiles.
func (s *Store) languageFiles(ctx context.Context, repoPath, root string) ([]Entry, error) {
	var files []Entry
	var walk func(tree, dir string) error
	walk = func(tree, dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := s.readTree(ctx, repoPath, tree, dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if len(files) >= MaxLanguageFiles {
				return nil
			}
			switch e.Type {
			case EntryDir:
				if err := walk(e.SHA, e.Path); err != nil {
					return err
				}
			case EntryFile:
				files = append(files, e)
			}
		}
		return nil
	}
	return files, walk(root, "")
}

// linguistAttrs is what the .gitattributes says of one path; nil
// pointers are unspecified.
type linguistAttrs struct {
	vendored, generated, documentation, detectable *bool
	language                                       string
}

type attrRule struct {
	match func(p string) bool
	set   map[string]string // attribute → "true", "false" or a value
}

// readAttributes reads the root .gitattributes (if it is one of files
// and at most maxAttributes bytes) into rules.
func (s *Store) readAttributes(ctx context.Context, repoPath string, files []Entry) ([]attrRule, error) {
	for _, f := range files {
		if f.Path != ".gitattributes" {
			continue
		}
		if f.Size > maxAttributes {
			return nil, nil
		}
		objs, err := s.catFileBatch(ctx, repoPath, []string{f.SHA})
		if err != nil {
			return nil, err
		}
		return parseAttributes(string(objs[0].Data)), nil
	}
	return nil, nil
}

// parseAttributes reads the linguist attributes of a .gitattributes:
// lines "pattern attr...", where attr is name, -name, !name or
// name=value. Patterns without a slash match a file's base name, others
// the path from the root; *, ? and ** are understood, a pattern ending
// in / (directories only) matches nothing, as in git.
func parseAttributes(text string) []attrRule {
	var rules []attrRule
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") || strings.HasSuffix(fields[0], "/") {
			continue
		}
		set := map[string]string{}
		for _, a := range fields[1:] {
			name, val := a, "true"
			switch {
			case strings.HasPrefix(a, "-"):
				name, val = a[1:], "false"
			case strings.HasPrefix(a, "!"):
				name, val = a[1:], ""
			default:
				if n, v, ok := strings.Cut(a, "="); ok {
					name, val = n, v
				}
			}
			switch name {
			case "linguist-vendored", "linguist-generated", "linguist-documentation",
				"linguist-detectable", "linguist-language", "gitlab-language":
				set[name] = val
			}
		}
		if len(set) == 0 {
			continue
		}
		if m := attrMatcher(fields[0]); m != nil {
			rules = append(rules, attrRule{match: m, set: set})
		}
	}
	return rules
}

func attrMatcher(pattern string) func(string) bool {
	if !strings.Contains(pattern, "/") {
		return func(p string) bool {
			ok, _ := path.Match(pattern, path.Base(p))
			return ok
		}
	}
	pattern = strings.TrimPrefix(pattern, "/")
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**/"):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "/**") && i+3 == len(pattern):
			re.WriteString("/.*")
			i += 2
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil
	}
	return rx.MatchString
}

// attributesOf applies the rules to p, the last match of each attribute
// winning.
func attributesOf(rules []attrRule, p string) linguistAttrs {
	var a linguistAttrs
	flag := func(v string) *bool {
		switch v {
		case "true", "1":
			t := true
			return &t
		case "false", "0":
			f := false
			return &f
		}
		return nil
	}
	for _, r := range rules {
		if !r.match(p) {
			continue
		}
		for name, v := range r.set {
			switch name {
			case "linguist-vendored":
				a.vendored = flag(v)
			case "linguist-generated":
				a.generated = flag(v)
			case "linguist-documentation":
				a.documentation = flag(v)
			case "linguist-detectable":
				a.detectable = flag(v)
			case "linguist-language", "gitlab-language":
				a.language = v
			}
		}
	}
	return a
}

func isTrue(b *bool) bool { return b != nil && *b }

// classify adds up the files' sizes per language.
func (s *Store) classify(ctx context.Context, repoPath string, files []Entry, rules []attrRule) (map[string]int64, error) {
	stats := map[string]int64{}
	var firstExcluded string
	var firstExcludedSize int64
	included := map[string]bool{}

	type pending struct {
		f     Entry
		attrs linguistAttrs
	}
	var batch []pending
	budget := int64(MaxLanguageBytes)

	count := func(p pending, content []byte) {
		f, a := p.f, p.attrs
		if a.generated == nil && enry.IsGenerated(f.Path, content) {
			return
		}
		lang := codeLanguage(f.Path, content)
		if lang == "" {
			return
		}
		if g := enry.GetLanguageGroup(lang); g != "" {
			lang = g
		}
		typ := enry.GetLanguageType(lang)
		inc, seen := included[lang]
		if !seen {
			inc = typ == enry.Programming || typ == enry.Markup
			included[lang] = inc
		}
		switch {
		case inc || isTrue(a.detectable):
			stats[lang] += f.Size
		case len(stats) == 0 && (firstExcluded == "" || firstExcluded == lang):
			if typ == enry.Programming || typ == enry.Markup {
				firstExcluded = lang
				firstExcludedSize += f.Size
			}
		}
	}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		for i, p := range batch {
			ids[i] = p.f.SHA
		}
		heads, err := s.blobHeads(ctx, repoPath, ids, languageHead)
		if err != nil {
			return err
		}
		for i, p := range batch {
			count(p, heads[i])
		}
		batch = batch[:0]
		return nil
	}

	for _, f := range files {
		if f.Size == 0 {
			continue
		}
		a := attributesOf(rules, f.Path)
		if isTrue(a.vendored) || isTrue(a.generated) || isTrue(a.documentation) ||
			(a.detectable != nil && !*a.detectable) {
			continue
		}
		if a.language != "" {
			lang := a.language
			if l, ok := enry.GetLanguageByAlias(lang); ok {
				lang = l
			}
			if g := enry.GetLanguageGroup(lang); g != "" {
				lang = g
			}
			stats[lang] += f.Size
			continue
		}
		if (a.vendored == nil && enry.IsVendor(f.Path)) || enry.IsDotFile(f.Path) ||
			(a.documentation == nil && enry.IsDocumentation(f.Path)) || enry.IsConfiguration(f.Path) {
			continue
		}
		p := pending{f: f, attrs: a}
		if f.Size > languageBigFile || f.Size > budget {
			// Too big to read, or past the bound: named alone. Keep the
			// order of the batched files (the fallback language is the
			// first one met).
			if err := flush(); err != nil {
				return nil, err
			}
			count(p, nil)
			continue
		}
		budget -= f.Size
		batch = append(batch, p)
		if len(batch) == languageBatch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(stats) == 0 && firstExcluded != "" {
		stats[firstExcluded] = firstExcludedSize
	}
	return mergeCase(stats), nil
}

// codeLanguage is the language of a file: by extension, then by file
// name, then (with content) by go-enry's full detection.
func codeLanguage(name string, content []byte) string {
	if l, ok := enry.GetLanguageByExtension(name); ok {
		return l
	}
	if l, ok := enry.GetLanguageByFilename(name); ok {
		return l
	}
	if len(content) == 0 {
		return enry.OtherLanguage
	}
	return enry.GetLanguage(path.Base(name), content)
}

// mergeCase merges languages whose names differ only in case (a
// .gitattributes may name one in another case), keeping the name with
// the most bytes.
func mergeCase(stats map[string]int64) map[string]int64 {
	byLower := map[string]string{}
	out := map[string]int64{}
	for name, n := range stats {
		low := strings.ToLower(name)
		prev, ok := byLower[low]
		if !ok {
			byLower[low] = name
			out[name] = n
			continue
		}
		total := out[prev] + n
		if n > out[prev] || (n == out[prev] && name < prev) {
			delete(out, prev)
			byLower[low] = name
			out[name] = total
		} else {
			out[prev] = total
		}
	}
	return out
}

// blobHeads reads the first n bytes of each blob in one exchange with a
// pooled reader (the rest is skipped). A missing blob gives nil.
func (s *Store) blobHeads(ctx context.Context, repoPath string, ids []string, n int) ([][]byte, error) {
	out := make([][]byte, len(ids))
	err := s.withReader(ctx, repoPath, func(c *catFile) error {
		cmds := make([]string, len(ids))
		for i, id := range ids {
			cmds[i] = "contents " + id
		}
		if err := c.send(cmds...); err != nil {
			return c.failed(err)
		}
		for i := range ids {
			info, err := c.header()
			if err != nil {
				return err
			}
			if info.Type == "" {
				out[i] = nil
				continue
			}
			take := min(int64(n), info.Size)
			buf := make([]byte, take)
			if _, err := io.ReadFull(c.out, buf); err != nil {
				return c.failed(fmt.Errorf("short object: %w", err))
			}
			if _, err := c.out.Discard(int(info.Size-take) + 1); err != nil {
				return c.failed(err)
			}
			out[i] = buf
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
