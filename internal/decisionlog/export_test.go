package decisionlog

// The log line's descriptions, for the tests.
var EntryFields, CheckFields = entryFields, checkFields
