// Package testutil holds helpers the tests of several packages share.
// Nothing outside tests imports it.
package testutil

import "strings"

// SameFFFD writes json.Marshal's escaped U+FFFD as the character itself,
// as a hand-written record codec writes it: the two encodings of invalid
// UTF-8 compare equal after it.
func SameFFFD(s string) string { return strings.ReplaceAll(s, `\ufffd`, "\ufffd") }
