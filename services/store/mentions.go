package store

import (
	"regexp"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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
// tx (duplicates are ignored).
func addMentions(tx *gorm.DB, repoID, issueID int64, text string) error {
	names := mentionedNames(text)
	if len(names) == 0 {
		return nil
	}
	var ids []int64
	if err := tx.Model(&User{}).Where("lower_name IN ?", names).Pluck("id", &ids).Error; err != nil {
		return errs.Wrap(err, "find mentioned users")
	}
	for _, id := range ids {
		m := IssueMention{RepoID: repoID, IssueID: issueID, UserID: id}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error; err != nil {
			return errs.Wrap(err, "record mention")
		}
	}
	return nil
}
