// Package templates holds the files a new repository can start from, as
// Gitea offers them: license texts, .gitignore templates, README
// templates and label sets. The data is vendored from maintained packages
// by tools/templates/vendor.sh (data/SOURCE names the versions) and
// embedded in the binary; nothing is read from disk or the network.
//
// Names are exact (case-sensitive) file names; a name that is not one of
// the listed templates is unknown, never a path.
package templates

import (
	"bytes"
	"embed"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed data/license data/gitignore data/label
var data embed.FS

// PreferredLicenses come first in Licenses, as Gitea's default
// [repository] PREFERRED_LICENSES.
var PreferredLicenses = []string{"Apache-2.0", "MIT"}

var (
	listsOnce  sync.Once
	licenses   []string
	gitignores []string
	labelSets  []string
)

func loadLists() {
	listsOnce.Do(func() {
		licenses = names("data/license", "")
		rest := slices.DeleteFunc(slices.Clone(licenses), func(n string) bool { return slices.Contains(PreferredLicenses, n) })
		var sorted []string
		for _, p := range PreferredLicenses {
			if slices.Contains(licenses, p) {
				sorted = append(sorted, p)
			}
		}
		licenses = append(sorted, rest...)
		gitignores = names("data/gitignore", "")
		labelSets = names("data/label", ".yaml")
	})
}

// names lists the files of dir without suffix, in case-insensitive order.
func names(dir, suffix string) []string {
	entries, err := fs.ReadDir(data, dir)
	if err != nil {
		panic("templates: " + err.Error()) // embedded at build time
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), suffix) {
			out = append(out, strings.TrimSuffix(e.Name(), suffix))
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// read returns the file dir/name+suffix when name is one of list.
func read(list []string, dir, name, suffix string) ([]byte, bool) {
	if !slices.Contains(list, name) {
		return nil, false
	}
	b, err := data.ReadFile(dir + "/" + name + suffix)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Licenses are the license template names (SPDX ids), the preferred ones
// first, then in case-insensitive order.
func Licenses() []string {
	loadLists()
	return slices.Clone(licenses)
}

// License is the text of the license name as published.
func License(name string) ([]byte, bool) {
	loadLists()
	return read(licenses, "data/license", name, "")
}

// LicenseValues fill a license's placeholders in a new repository.
type LicenseValues struct {
	Owner, Email, Repo, Year string
}

// placeholders are the spellings of the license placeholders that are
// replaced in a new repository's LICENSE, as Gitea's list: each appears in
// the texts only as a placeholder.
var placeholders = struct{ owner, email, repo, year []string }{
	owner: []string{"<name of author>", "<owner>", "[NAME]", "[name of copyright owner]", "[name of copyright holder]",
		"<COPYRIGHT HOLDERS>", "<copyright holders>", "<AUTHOR>", "<author's name or designee>",
		"[one or more legally recognised persons or entities offering the Work under the terms and conditions of this Licence]"},
	email: []string{"[EMAIL]"},
	repo:  []string{"<program>", "<one line to give the program's name and a brief idea of what it does.>"},
	year:  []string{"<year>", "[YEAR]", "{YEAR}", "[yyyy]", "[Year]", "[year]"},
}

// zeroBSDLine is the one line of 0BSD whose bare words are placeholders
// (AUTHOR appears elsewhere in it as a word).
var zeroBSDLine = regexp.MustCompile(`Copyright \(C\) YEAR by AUTHOR EMAIL`)

// LicenseFile is license name's text for a new repository's LICENSE, its
// placeholders filled with v line by line (each line ends with a newline,
// as Gitea writes it).
func LicenseFile(name string, v LicenseValues) ([]byte, bool) {
	text, ok := License(name)
	if !ok {
		return nil, false
	}
	owner, email, repo, year := placeholders.owner, placeholders.email, placeholders.repo, placeholders.year
	var only *regexp.Regexp
	if name == "0BSD" {
		owner, email, repo, year = []string{"AUTHOR"}, []string{"EMAIL"}, nil, []string{"YEAR"}
		only = zeroBSDLine
	}
	var out bytes.Buffer
	for _, line := range splitLines(string(text)) {
		if only == nil || only.MatchString(line) {
			line = replaceAll(line, owner, v.Owner)
			line = replaceAll(line, email, v.Email)
			line = replaceAll(line, repo, v.Repo)
			line = replaceAll(line, year, v.Year)
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes(), true
}

// splitLines splits text into lines the way a line scanner does: no
// empty last line for a final newline, carriage returns before a newline
// dropped.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func replaceAll(line string, olds []string, new string) string {
	for _, o := range olds {
		line = strings.ReplaceAll(line, o, new)
	}
	return line
}

// Gitignores are the .gitignore template names, in case-insensitive order.
func Gitignores() []string {
	loadLists()
	return slices.Clone(gitignores)
}

// Gitignore is the .gitignore template name.
func Gitignore(name string) ([]byte, bool) {
	loadLists()
	return read(gitignores, "data/gitignore", name, "")
}

// GitignoreFile is a new repository's .gitignore made of the templates
// named in the comma-separated list: each under a "# ---> name" line and
// followed by an empty line, as Gitea concatenates them. It returns the
// first unknown name when there is one.
func GitignoreFile(list string) ([]byte, string) {
	var out bytes.Buffer
	for _, name := range strings.Split(list, ",") {
		b, ok := Gitignore(name)
		if !ok {
			return nil, name
		}
		out.WriteString("# ---> " + name + "\n")
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes(), ""
}

// Readmes are the README template names.
func Readmes() []string { return []string{"Default"} }

// ReadmeFile is a new repository's README.md from template name: Gitea's
// Default is the repository's name as a heading and its description, with
// no final newline.
func ReadmeFile(name, repo, description string) ([]byte, bool) {
	if name != "Default" {
		return nil, false
	}
	return []byte("# " + repo + "\n\n" + description), true
}

// Label is one label of a label set.
type Label struct {
	Name        string `yaml:"name"`
	Color       string `yaml:"color"` // six hex digits, no "#"
	Description string `yaml:"description"`
	Exclusive   bool   `yaml:"exclusive"`
}

// LabelSets are the label set names.
func LabelSets() []string {
	loadLists()
	return slices.Clone(labelSets)
}

// LabelSet is the labels of the set name, in the set's order.
func LabelSet(name string) ([]Label, bool) {
	loadLists()
	b, ok := read(labelSets, "data/label", name, ".yaml")
	if !ok {
		return nil, false
	}
	var doc struct {
		Labels []Label `yaml:"labels"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		panic("templates: label set " + name + ": " + err.Error()) // embedded at build time, checked by tests
	}
	return doc.Labels, true
}
