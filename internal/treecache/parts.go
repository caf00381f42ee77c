package treecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"path/filepath"
	"strings"
)

// PartStates fingerprints each of parts (directories, relative to st.Dir,
// slash-separated: a workspace's packages) and the rest of the work tree
// apart, so that a result that depends on some parts only is reused while
// those parts and the rest are as they were. A part's state is the
// content of its files: each committed file's mode and object name
// (`git ls-tree -r HEAD`, so a commit that leaves the part alone leaves
// its state alone) and each file git status lists in it as the whole
// state takes it (see State). The rest is every other file of the work
// tree, in the same way, and the installed dependencies (see installed):
// a change outside every part (a root config, the lockfile, an install)
// changes the rest, and so every result that depends on it. Outside git
// it returns an error wrapping ErrUnknown.
func (c Cache) PartStates(ctx context.Context, st *Status, parts []string) (states map[string]string, rest string, err error) {
	if st.NotRepo != nil {
		return nil, "", fmt.Errorf("%w: not in a git work tree", ErrUnknown)
	}
	top, err := workTreeTop(ctx, st.Dir)
	if err != nil {
		return nil, "", err
	}
	prefix, err := filepath.Rel(top, st.Dir)
	if err != nil {
		return nil, "", err
	}
	prefix = filepath.ToSlash(prefix)
	if prefix == "." {
		prefix = ""
	} else {
		prefix += "/"
	}
	hashes := make(map[string]hash.Hash, len(parts))
	for _, p := range parts {
		hashes[prefix+strings.Trim(p, "/")+"/"] = sha256.New()
	}
	restHash := sha256.New()
	fmt.Fprintf(restHash, "parts1\x00%s\x00", st.Dir)
	// of returns the hash the file at path (from the top level) goes to:
	// the deepest part holding it, else the rest.
	of := func(path string) hash.Hash {
		var best string
		for p := range hashes {
			if strings.HasPrefix(path, p) && len(p) > len(best) {
				best = p
			}
		}
		if best == "" {
			return restHash
		}
		return hashes[best]
	}
	if st.Head != "" {
		out, err := git(ctx, st.Dir, "ls-tree", "-r", "-z", "--full-tree", st.Head)
		if err != nil {
			return nil, "", err
		}
		for _, rec := range bytes.Split(out, []byte{0}) {
			tab := bytes.IndexByte(rec, '\t')
			if tab < 0 {
				continue
			}
			h := of(string(rec[tab+1:]))
			h.Write(rec)
			h.Write([]byte{0})
		}
	}
	f := c.fingerprinter(st.Dir)
	for _, e := range st.entries() {
		if e.untracked && skipped(top, e.path) {
			continue
		}
		rec, err := f.entry(ctx, filepath.Join(top, e.path), 0)
		if err != nil {
			return nil, "", err
		}
		h := of(e.path)
		fmt.Fprintf(h, "status\x00%d:%s\x00%d:%s", len(e.raw), e.raw, len(rec), rec)
	}
	roots := []string{st.Dir, top}
	deps, err := f.installed(ctx, roots...)
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(restHash, "deps\x00%d:%s", len(deps), deps)
	if !c.ReadOnly {
		f.stats.save(true)
	}
	states = make(map[string]string, len(parts))
	for _, p := range parts {
		states[p] = hex.EncodeToString(hashes[prefix+strings.Trim(p, "/")+"/"].Sum(nil))
	}
	return states, hex.EncodeToString(restHash.Sum(nil)), nil
}
