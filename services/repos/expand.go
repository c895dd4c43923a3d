package repos

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"

	"github.com/gobwas/glob"
	"github.com/huandu/xstrings"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"forge/services/git"
)

// TemplateFile is the file of a template repository that names, one glob
// a line, the files whose variables a generated repository has expanded
// (Gitea's .gitea/template); it is not copied.
const TemplateFile = ".gitea/template"

// RepoLinks are the addresses of a repository that template variables
// name: Gitea's Link() (the path under the root URL) and clone URLs.
type RepoLinks struct {
	Link, HTTPS, SSH string
}

// Links returns the addresses of owner/name as the API renders them.
func (v Renderer) Links(owner, name string) RepoLinks {
	sub := "/"
	if i := strings.Index(v.RootURL, "://"); i >= 0 {
		if j := strings.IndexByte(v.RootURL[i+3:], '/'); j >= 0 {
			sub = v.RootURL[i+3+j:]
		}
	}
	return RepoLinks{
		Link:  sub + owner + "/" + name,
		HTTPS: v.RootURL + owner + "/" + name + ".git",
		SSH:   v.SSH.CloneURL(owner, name),
	}
}

// templateVars are the values of one generation: Gitea 1.22's variables
// and, for names, owners and repositories, their transformed forms
// (REPO_NAME_SNAKE etc.).
type templateVars map[string]string

// transformers are Gitea 1.22's: feeding "go-sdk" gives go_sdk, go-sdk,
// goSdk, GoSdk, go-sdk, GO-SDK and Go-Sdk.
var transformers = []struct {
	name string
	fn   func(string) string
}{
	{"SNAKE", xstrings.ToSnakeCase},
	{"KEBAB", xstrings.ToKebabCase},
	{"CAMEL", func(s string) string { return xstrings.FirstRuneToLower(xstrings.ToCamelCase(s)) }},
	{"PASCAL", xstrings.ToCamelCase},
	{"LOWER", strings.ToLower},
	{"UPPER", strings.ToUpper},
	{"TITLE", func(s string) string { return cases.Title(language.English).String(s) }},
}

func newTemplateVars(tmplOwner, tmplName, tmplDesc string, tmplLinks RepoLinks, owner, name, desc string, links RepoLinks) templateVars {
	v := templateVars{}
	set := func(k, val string, transform bool) {
		v[k] = val
		if transform {
			for _, t := range transformers {
				v[k+"_"+t.name] = t.fn(val)
			}
		}
	}
	set("REPO_NAME", name, true)
	set("TEMPLATE_NAME", tmplName, true)
	set("REPO_DESCRIPTION", desc, false)
	set("TEMPLATE_DESCRIPTION", tmplDesc, false)
	set("REPO_OWNER", owner, true)
	set("TEMPLATE_OWNER", tmplOwner, true)
	set("REPO_LINK", links.Link, false)
	set("TEMPLATE_LINK", tmplLinks.Link, false)
	set("REPO_HTTPS_URL", links.HTTPS, false)
	set("TEMPLATE_HTTPS_URL", tmplLinks.HTTPS, false)
	set("REPO_SSH_URL", links.SSH, false)
	set("TEMPLATE_SSH_URL", tmplLinks.SSH, false)
	return v
}

// expand replaces $VAR and ${VAR} in s as Gitea does (os.Expand): a
// variable it does not know is replaced by its bare name, "$$" by "$".
// In paths (sanitize) each value has the characters file names may not
// hold replaced by "_".
func (v templateVars) expand(s string, sanitize bool) string {
	return os.Expand(s, func(k string) string {
		val, ok := v[k]
		if !ok {
			return k
		}
		if sanitize {
			return sanitizeFileName(val)
		}
		return val
	})
}

// reservedInFileName: "..", characters Windows refuses in names, control
// characters and Windows' reserved device names (Gitea's rule).
var reservedInFileName = regexp.MustCompile(`(?i)\.\.|[<>:"/\\|?*\x00-\x1f]|^(con|prn|aux|nul|com\d|lpt\d)$`)

func sanitizeFileName(s string) string {
	return strings.TrimSpace(reservedInFileName.ReplaceAllString(s, "_"))
}

// templateMatcher parses a .gitea/template file: each line that is not
// blank or a comment (#) is a glob (gobwas/glob, '/' separating path
// components: "*" stays within a component, "**" crosses them); an
// invalid glob is skipped. nil when there is none.
func templateMatcher(content []byte) func(string) bool {
	var globs []glob.Glob
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 0, 64<<10), git.MaxTemplateFileBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		g, err := glob.Compile(line, '/')
		if err != nil {
			continue
		}
		globs = append(globs, g)
	}
	if len(globs) == 0 {
		return nil
	}
	return func(p string) bool {
		for _, g := range globs {
			if g.Match(p) {
				return true
			}
		}
		return false
	}
}

// templateRules are the git layer's rules for one generation.
func templateRules(v templateVars) *git.TemplateRules {
	return &git.TemplateRules{
		File:    TemplateFile,
		Parse:   templateMatcher,
		Content: func(b []byte) []byte { return []byte(v.expand(string(b), false)) },
		Path:    func(p string) string { return v.expand(p, true) },
	}
}
