package store

import "context"

// Whole-database listings for forge doctor, which compares the records
// with the data directory. They read every row of their table; the
// server never calls them.

// AllRepositories returns every repository record (id, owner and name,
// default branch), by id.
func (s *Store) AllRepositories(ctx context.Context) ([]Repository, error) {
	var out []Repository
	err := s.db.WithContext(ctx).Select("id", "owner_id", "owner_name", "lower_name", "name", "default_branch", "is_empty").
		Order("id").Find(&out).Error
	return out, err
}

// AllBranchRecords returns every branch record (repository, name, commit),
// by repository and name.
func (s *Store) AllBranchRecords(ctx context.Context) ([]Branch, error) {
	var out []Branch
	err := s.db.WithContext(ctx).Select("id", "repo_id", "name", "commit_id").Order("repo_id, name").Find(&out).Error
	return out, err
}

// AllAttachmentUUIDs returns the uuid (blob key) of every attachment row.
func (s *Store) AllAttachmentUUIDs(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Model(&Attachment{}).Order("id").Pluck("uuid", &out).Error
	return out, err
}
