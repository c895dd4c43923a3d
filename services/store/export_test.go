package store

import "context"

// MentionedNamesForTest exposes mentionedNames to the external tests.
var MentionedNamesForTest = mentionedNames

// ReadGenerationForTest reads the generations from the database, as
// AuthGeneration did on every call before the watcher (genwatch.go).
func (s *Store) ReadGenerationForTest(ctx context.Context) (Generation, error) {
	return s.readGeneration(ctx)
}

// BranchPageQuery exposes the branch page statement to the plan test.
const BranchPageQuery = branchPageQuery

// LabelFieldsForTest exposes the label scan to the field test.
var LabelFieldsForTest, LabelColumnsForTest = labelFields, labelColumns

// GenerationRoundsForTest is how many shared generation reads ran
// (PostgreSQL, genrounds.go).
func (s *Store) GenerationRoundsForTest() int64 { return s.rounds.reads.Load() }

// CompactCommitCountForTest folds the commit_count rows of ended
// connections as compactCommitCount does, waiting for it.
func (s *Store) CompactCommitCountForTest(ctx context.Context) error {
	return s.db.WithContext(ctx).Exec(compactCommitCountQuery).Error
}
