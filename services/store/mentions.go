package store

import (
	"regexp"
	"strings"

	"gorm.io/gorm"

	"forge/services/errs"
)

// mentionPattern finds @name where it starts a word: at the start, or
// after white space or an opening bracket, and the name ends at a
// character names cannot hold (a trailing dot ends a sentence).
var mentionPattern = regexp.MustCompile(`(?:^|[\s(\[{])@([0-9A-Za-z_][0-9A-Za-z_.-]*[0-9A-Za-z_]|[0-9A-Za-z_])`)

// maxMentions bounds the names looked up per text.
const maxMentions = 100

// mentionedNames are the lower-cased names text mentions, once each.
func mentionedNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(text, -1) {
		name := strings.ToLower(m[1])
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
			if len(out) == maxMentions {
				break
			}
		}
	}
	return out
}

// addMentions records the existing users text mentions on the issue, in
// tx (duplicates are ignored), with one statement whatever the number of
// names: the lookup of the users and the inserts are one INSERT … SELECT.
func addMentions(tx *gorm.DB, repoID, issueID int64, text string) error {
	q, args := mentionsInsert(repoID, issueID, text)
	if q == "" {
		return nil
	}
	if err := tx.Exec(q, args...).Error; err != nil {
		return errs.Wrap(err, "record mention")
	}
	return nil
}

// mentionsInsert is addMentions' statement, one placeholder per name, and
// its arguments; "" when text mentions nobody.
func mentionsInsert(repoID, issueID int64, text string) (string, []any) {
	names := mentionedNames(text)
	if len(names) == 0 {
		return "", nil
	}
	args := make([]any, 0, 2+len(names))
	args = append(args, repoID, issueID)
	for _, n := range names {
		args = append(args, n)
	}
	return `INSERT INTO issue_mentions (repo_id, issue_id, user_id)
SELECT ?, ?, id FROM users WHERE lower_name IN (` + placeholders(len(names)) + `)
ON CONFLICT DO NOTHING`, args
}
