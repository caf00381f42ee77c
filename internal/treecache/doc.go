// Package treecache remembers the results of commands (a test suite) by
// the state of the working tree they ran on, so a Stop hook that fires on
// every turn never runs the same tests twice on the same tree.
//
// The state must change with anything in the tree that can change a
// command's result. In a git work tree it is HEAD and the entries of
// `git status --porcelain=v2 -z --untracked-files=all --no-renames
// --ignore-submodules=none` with mode changes always reported (every
// tracked file that differs from HEAD or the index, staged or not, with
// its modes and object names, and every untracked file that is not
// ignored), one git process in all (see ReadStatus), and for each file
// listed there:
//
//   - a regular file up to 1 MiB: its mode and a SHA-256 of its content;
//   - a larger regular file: its mode, size, modification and change
//     times, inode and device — never its content (see bigFile);
//   - a symbolic link: its target;
//   - a submodule or a nested repository: its own state, recursively, up
//     to 4 levels;
//   - a FIFO, socket or device: its kind and mode (it is never opened);
//   - a deleted file: that it is gone.
//
// Ignored files do not count, nor do the untracked by-products of the
// checks themselves (caches, compiled Python, coverage data, a Cargo
// target) or the files of dependency dirs; the installed state of those
// dirs counts instead, though git ignores them (see byproducts.go).
// Outside git the state is the path, size, mode, times, inode and link
// target of every file under the directory (directories by their mode),
// by-products and dependency dirs dealt with as in git, up to 50,000
// files.
//
// Fingerprinting honours its context: it stops between files and every
// 256 KiB within one, so a caller with a deadline gets an error in time
// and can run its command uncached. A state built from a file's metadata
// is only trusted once the file has been still for racyMargin (see
// ErrUnsettled), and so is a remembered content hash (see statCache).
//
// A look at a git work tree that has not changed since the last one is
// answered without git on Linux, from a snapshot of the tree's metadata
// kept beside the results (see snapshot and Cache.ReadStatus).
//
// The package never runs the command itself and never decides anything.
package treecache
