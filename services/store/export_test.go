package store

// MentionedNamesForTest exposes mentionedNames to the external tests.
var MentionedNamesForTest = mentionedNames

// BranchPageQuery exposes the branch page statement to the plan test.
const BranchPageQuery = branchPageQuery

// LabelFieldsForTest exposes the label scan to the field test.
var LabelFieldsForTest, LabelColumnsForTest = labelFields, labelColumns
