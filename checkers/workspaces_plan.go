package checkers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/treecache"
)

// A session's first stop ran every package of a workspace: "changed"
// meant changed since a result was recorded, and a new session has none.
// A package the agent did not touch is not its work (the rule a session
// that changed nothing is under, see gate's unchanged.go, now per
// package): where the hooks saw the session begin (Context.Since), the
// stop runs the packages holding a file that changed since — committed,
// written, deleted, or written through the agent's edit tools though git
// ignores it — and the packages that depend on them (declared, or found
// in their files: see workspaces_reach.go); the others are left out and
// said so. A change outside every package (a root config, the lockfile)
// runs all. Results recorded later narrow it further, as always.

// wsPlan is how a workspace's packages are run at this stop.
type wsPlan struct {
	// pkgs are the packages, each with every package it reaches (declared
	// or found) among its Deps.
	pkgs []wsPackage
	// skip names the packages left out: the agent changed neither them
	// nor a package they depend on since the session began.
	skip map[string]bool
	// found says, for a package that reaches others its manifest does
	// not name, which and how it was told, for explain.
	found map[string]string
	// notes say why every package runs, for explain.
	notes []string
}

// touchedMemory is what a session touched of a workspace, remembered
// from stop to stop: the packages' dirs, and why all count ("" until
// then).
type touchedMemory struct {
	Dirs []string `json:"dirs"`
	All  string   `json:"all"`
}

// errUncached says the workspace reaches outside the work tree: its
// command runs whole, and no result of it is reused.
type errUncached struct{ why string }

func (e errUncached) Error() string { return e.why }

// planWorkspace reads what pkgs reach and what the agent changed since
// the session began. errNoWorkspace: the tree cannot be read, the
// command runs whole; errUncached: whole and never reused.
func (k commandCheck) planWorkspace(ctx context.Context, c *Context, pkgs []wsPackage, states map[string]string, rest string) (wsPlan, error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return wsPlan{}, errNoWorkspace
	}
	top, err := treecache.WorkTreeTop(ctx, st)
	if err != nil {
		return wsPlan{}, errNoWorkspace
	}
	prefix, err := filepath.Rel(top, c.ProjectDir)
	if err != nil || strings.HasPrefix(prefix, "..") {
		// The project dir through a link: its files are not found by
		// its path under top.
		if real, err2 := filepath.EvalSymlinks(c.ProjectDir); err2 == nil {
			prefix, err = filepath.Rel(top, real)
		}
	}
	if err != nil || prefix == ".." || strings.HasPrefix(prefix, ".."+string(filepath.Separator)) {
		return wsPlan{}, errNoWorkspace
	}
	prefix = filepath.ToSlash(prefix)
	if prefix == "." {
		prefix = ""
	} else {
		prefix += "/"
	}
	inRepo := func(rel string) bool {
		p := path.Join(prefix, rel)
		return p != ".." && !strings.HasPrefix(p, "../")
	}
	// What the files reach is worked out again only when a package or
	// the rest of the tree changed.
	parts := []string{"workspace-reach", c.ProjectDir, rest, k.from}
	for _, p := range pkgs {
		parts = append(parts, p.Name, p.Dir, states[p.Dir])
	}
	key := treecache.Key(parts...)
	var re wsReach
	if data, ok := c.cache().GetNote(key); !ok || json.Unmarshal(data, &re) != nil {
		_, files, err := treecache.Files(ctx, st)
		if err != nil {
			return wsPlan{}, errNoWorkspace
		}
		if re, err = reachOf(ctx, top, prefix, files, pkgs, inRepo, k.from); err != nil {
			return wsPlan{}, errNoWorkspace // out of time: the command whole
		}
		if data, err := json.Marshal(re); err == nil && !c.ReadOnly {
			_ = c.cache().PutNote(key, data)
		}
	}
	if re.Outside != "" {
		return wsPlan{}, errUncached{why: re.Outside}
	}
	plan := wsPlan{skip: map[string]bool{}, found: map[string]string{}}
	for _, p := range pkgs {
		if why, ok := re.Wide[p.Name]; ok {
			plan.found[p.Name] = "it is taken to depend on every package: " + why
		} else if extra := slices.DeleteFunc(slices.Clone(re.Deps[p.Name]), func(d string) bool { return slices.Contains(p.Deps, d) }); len(extra) > 0 {
			plan.found[p.Name] = fmt.Sprintf("its files reach %s, which its manifest does not name", strings.Join(extra, ", "))
		}
		for _, d := range re.Deps[p.Name] {
			if !slices.Contains(p.Deps, d) {
				p.Deps = append(p.Deps, d)
			}
		}
		plan.pkgs = append(plan.pkgs, p)
	}
	if c.Since == nil || c.Since.EditedMany {
		return plan, nil
	}
	changed, err := treecache.ChangedPaths(ctx, st, c.Since.At, c.Since.Head)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return wsPlan{}, errNoWorkspace
		}
		plan.notes = append(plan.notes, fmt.Sprintf("every package runs: what changed since the session began cannot be told (%v)", err))
		return plan, nil
	}
	for _, e := range c.Since.Edited {
		if rel, err := filepath.Rel(top, e); err == nil && !strings.HasPrefix(rel, "..") {
			changed = append(changed, filepath.ToSlash(rel))
		} else if real, err := filepath.EvalSymlinks(filepath.Dir(e)); err == nil {
			if rel, err := filepath.Rel(top, filepath.Join(real, filepath.Base(e))); err == nil && !strings.HasPrefix(rel, "..") {
				changed = append(changed, filepath.ToSlash(rel))
			}
		}
	}
	// What the session touched stays touched: a file the agent wrote
	// and removed again leaves no trace in the tree, but the package was
	// its work (as a session that changed the tree is held to its end).
	memoryKey := treecache.Key("workspace-touched", c.Event.SessionID, c.Since.At.UTC().Format(time.RFC3339Nano), c.ProjectDir)
	var memory touchedMemory
	if data, ok := c.cache().GetNote(memoryKey); !ok || json.Unmarshal(data, &memory) != nil {
		memory = touchedMemory{}
	}
	before := len(memory.Dirs)
	for _, f := range changed {
		rel, ok := strings.CutPrefix(f, prefix)
		owner := ""
		for _, p := range plan.pkgs {
			if ok && (rel == p.Dir || strings.HasPrefix(rel, p.Dir+"/")) && len(p.Dir) > len(owner) {
				owner = p.Dir
			}
		}
		if owner == "" && memory.All == "" {
			memory.All = fmt.Sprintf("%s, outside every package, changed since the session began", f)
		}
		if owner != "" && !slices.Contains(memory.Dirs, owner) {
			memory.Dirs = append(memory.Dirs, owner)
		}
	}
	if (len(memory.Dirs) > before || memory.All != "") && !c.ReadOnly && c.Event.SessionID != "" {
		if data, err := json.Marshal(memory); err == nil {
			_ = c.cache().PutNote(memoryKey, data)
		}
	}
	if memory.All != "" {
		plan.notes = append(plan.notes, "every package runs: "+memory.All)
		return plan, nil
	}
	touched := map[string]bool{}
	for _, p := range plan.pkgs {
		touched[p.Name] = slices.Contains(memory.Dirs, p.Dir)
	}
	byName := map[string]wsPackage{}
	for _, p := range plan.pkgs {
		byName[p.Name] = p
	}
	for _, p := range plan.pkgs {
		mine := false
		for _, d := range dependsOn(p, byName) {
			for name, t := range touched {
				mine = mine || t && byName[name].Dir == d
			}
		}
		if !mine {
			plan.skip[p.Name] = true
		}
	}
	return plan, nil
}

// readsOutside says why the detected test command k runs reads files
// outside the work tree holding dir (outside dir, where it is in none),
// which no state of the tree covers: a workspace member pattern that
// leaves it (package.json's "workspaces", pnpm-workspace.yaml's
// "packages", a Cargo workspace's members or a path dependency of its
// root manifest, a uv workspace's members or a path source of its root
// pyproject.toml). "" when none does, or none is read: only the manifest
// the command was detected from is.
func (k commandCheck) readsOutside(dir string) string {
	if k.kind != "test" {
		return ""
	}
	top, err := treecache.Top(dir)
	if err != nil {
		top = dir
	}
	leaves := func(p string) bool {
		p, _, _ = strings.Cut(filepath.FromSlash(p), "*")
		// Rooted (on Windows, "/opt/x" is the current drive's) or with a
		// drive: not under dir.
		if filepath.IsAbs(p) || strings.HasPrefix(p, string(filepath.Separator)) || filepath.VolumeName(p) != "" {
			return true
		}
		rel, err := filepath.Rel(top, filepath.Join(dir, p))
		return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	var patterns []string
	switch k.from {
	case "package.json":
		if data, err := readManifest(dir, "package.json"); err == nil && data != nil && gjson.ValidBytes(data) {
			ps, _ := manifestWorkspaces(data)
			patterns = append(patterns, ps...)
		}
		if ps, ok := pnpmPatterns(dir); ok {
			patterns = append(patterns, ps...)
		}
	case "Cargo.toml":
		m, ok := readCargo(dir)
		if !ok {
			break
		}
		if m.Workspace != nil {
			patterns = append(patterns, m.Workspace.Members...)
			for key := range m.Workspace.Dependencies {
				patterns = append(patterns, m.Workspace.Dependencies.dependency(key).Path)
			}
		}
		for _, deps := range []cargoDependencies{m.Dependencies, m.DevDependencies, m.BuildDependencies} {
			for key := range deps {
				patterns = append(patterns, deps.dependency(key).Path)
			}
		}
	case "pyproject.toml":
		m, ok := readPyproject(dir)
		if !ok {
			break
		}
		if m.Tool.UV.Workspace != nil {
			patterns = append(patterns, m.Tool.UV.Workspace.Members...)
		}
		for _, source := range m.Tool.UV.Sources {
			if table, ok := source.(map[string]any); ok {
				p, _ := table["path"].(string)
				patterns = append(patterns, p)
			}
		}
	default:
		return "" // a command the config names, or no workspace kind
	}
	for _, p := range patterns {
		if p != "" && !strings.HasPrefix(p, "!") && leaves(p) {
			return fmt.Sprintf("it reads %s, outside the work tree", p)
		}
	}
	return ""
}

// editedState describes the files the agent wrote through its edit tools
// this session (Context.Since) that lie in dir (absolute) or below it:
// each one's path and stamp (treecache.Stamp: one stat, whatever its
// size), so that a result keyed on it is not reused once the agent
// changed such a file again — one git ignores is in no state of the
// tree. "" when there are none.
func (c *Context) editedState(dir string) string {
	return c.editedWhere(func(e string) bool { return under(dir, e) })
}

// under reports whether path is dir or below it.
func under(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// editedWhere is editedState of the edited files in says holds.
func (c *Context) editedWhere(in func(path string) bool) string {
	if c.Since == nil {
		return ""
	}
	var b strings.Builder
	for _, e := range c.Since.Edited {
		if !in(e) {
			continue
		}
		fmt.Fprintf(&b, "%s\x00%s\x00", e, treecache.Stamp(e))
	}
	return b.String()
}
