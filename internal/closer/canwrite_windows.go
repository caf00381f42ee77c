package closer

// canWrite reports whether the user may create files in the existing
// directory dir: Windows has no access(2) that answers for its ACLs, so a
// file is created there and removed.
func canWrite(dir string) error { return createIn(dir) }
