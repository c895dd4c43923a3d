package store

// MentionedNamesForTest exposes mentionedNames to the external tests.
var MentionedNamesForTest = mentionedNames
