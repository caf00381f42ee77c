package hookio

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/regular"
)

// A fleet needs to know when a session ran without the gate: hooks a
// host skipped (Codex exec and untrusted hooks), a setup without them, a
// host run with hooks turned off. Where a host keeps a record of each
// session in the user's dirs, RecordedSessions lists them, for closer
// log --ungated to set beside the decisions donegate logged.

// RecordedSession is a session a host keeps a record of.
type RecordedSession struct {
	Host Host
	ID   string
	// Cwd is the dir the session ran in, as its record says; Last when
	// its record was last written.
	Cwd  string
	Last time.Time
	Path string
}

// sessionRecords is how a host keeps its sessions: the glob patterns of
// their files under the user's dirs, and what a file says of its session
// (from its first lines; ok false for a file that is no session of its
// own, a subagent's say).
type sessionRecords struct {
	globs func(getenv paths.Getenv) []string
	read  func(path string, head []byte) (id, cwd string, ok bool)
}

// maxSessionHead bounds what is read of a session's file.
const maxSessionHead = 256 << 10

// RecordedSessions lists the sessions h keeps a record of, last written
// after since, the most recent first, at most limit; none for a host that
// keeps none donegate reads.
func (h Host) RecordedSessions(getenv paths.Getenv, since time.Time, limit int) []RecordedSession {
	rec := h.spec().sessions
	if rec == nil {
		return nil
	}
	type file struct {
		path string
		last time.Time
	}
	var files []file
	for _, g := range rec.globs(getenv) {
		matches, _ := filepath.Glob(g)
		for _, m := range matches {
			fi, err := os.Lstat(m)
			if err == nil && fi.Mode().IsRegular() && fi.ModTime().After(since) {
				files = append(files, file{m, fi.ModTime()})
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].last.After(files[j].last) })
	var out []RecordedSession
	for _, f := range files {
		if len(out) >= limit {
			break
		}
		head, err := readHead(f.path)
		if err != nil {
			continue
		}
		if id, cwd, ok := rec.read(f.path, head); ok {
			out = append(out, RecordedSession{Host: h, ID: id, Cwd: cwd, Last: f.last, Path: f.path})
		}
	}
	return out
}

// readHead reads the first lines of the regular file at path, at most
// maxSessionHead bytes.
func readHead(path string) ([]byte, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSessionHead))
}

// firstLineWith returns the value at path of the first JSON line of head
// that has one.
func firstLineWith(head []byte, path string) string {
	sc := bufio.NewScanner(strings.NewReader(string(head)))
	sc.Buffer(make([]byte, 0, 64<<10), maxSessionHead)
	for sc.Scan() {
		if v := gjson.GetBytes(sc.Bytes(), path); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// HostsKeepingSessions are the hosts whose session records donegate reads
// (see RecordedSessions), in Hosts' order.
func HostsKeepingSessions() []Host {
	var hosts []Host
	for _, h := range Hosts {
		if h.spec().sessions != nil {
			hosts = append(hosts, h)
		}
	}
	return hosts
}
