package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// What a tool shows of what it finds, at most: the model's context is
// short, and a whole handout would not fit the default budget.
const (
	maxListed    = 100
	maxReadBytes = 600
	maxReadLines = 12
	maxNoteBytes = 64 << 10
)

// result is what a tool did: its text for the model, whether it failed,
// details for the file only (pi's tool results carry them too), and a
// line for the agent's output.
type result struct {
	text    string
	isError bool
	details map[string]any
	said    string
}

func failed(format string, args ...any) result {
	text := fmt.Sprintf(format, args...)
	return result{text: text, isError: true, said: text}
}

// workspace runs the agent's tools, on real files, inside root only.
type workspace struct {
	root    string // absolute, symbolic links resolved
	session string // the session file, which no tool may write
}

func newWorkspace(dir, session string) (workspace, error) {
	root, err := filepath.Abs(dir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return workspace{}, fmt.Errorf("the workspace %s: %w", dir, err)
	}
	s, err := filepath.Abs(session)
	if err != nil {
		return workspace{}, err
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(s)); err == nil {
		s = filepath.Join(d, filepath.Base(s))
	}
	return workspace{root: root, session: s}, nil
}

// resolve turns a path the model gave into a path inside the workspace, or
// says why it cannot: an absolute path, one that climbs out with "..", or
// one whose symbolic links lead out.
func (w workspace) resolve(rel string) (string, error) {
	if rel == "" {
		rel = "."
	}
	rel = filepath.FromSlash(rel)
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q is not a path inside the workspace", rel)
	}
	p := filepath.Join(w.root, rel)
	// The deepest part that exists must resolve inside the root.
	existing, rest := p, ""
	for {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			p = filepath.Join(real, rest)
			break
		}
		if !errors.Is(err, os.ErrNotExist) || existing == w.root {
			return "", err
		}
		if _, lerr := os.Lstat(existing); lerr == nil {
			return "", fmt.Errorf("%q goes through a symbolic link that leads nowhere", rel)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	if p != w.root && !strings.HasPrefix(p, w.root+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leads out of the workspace", rel)
	}
	return p, nil
}

// run runs the tool call.
func (w workspace) run(call block) result {
	arg := func(k string) string {
		s, _ := call.Arguments[k].(string)
		return s
	}
	switch call.Name {
	case "ls":
		return w.ls(arg("path"))
	case "read":
		return w.read(arg("path"))
	case "write":
		return w.write(arg("path"), arg("content"))
	}
	return failed("no tool is called %q (there are ls, read and write)", call.Name)
}

func (w workspace) ls(rel string) result {
	p, err := w.resolve(rel)
	if err != nil {
		return failed("ls: %v", err)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return failed("ls: %v", w.relErr(err))
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	r := result{details: map[string]any{"entries": len(names)}, said: fmt.Sprintf("%d entries", len(names))}
	if len(names) > maxListed {
		names = append(names[:maxListed], fmt.Sprintf("[… %d more]", len(names)-maxListed))
	}
	r.text = strings.Join(names, "\n") + "\n"
	return r
}

func (w workspace) read(rel string) result {
	p, err := w.resolve(rel)
	if err != nil {
		return failed("read: %v", err)
	}
	f, err := os.Open(p)
	if err != nil {
		return failed("read: %v", w.relErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return failed("read: %v", w.relErr(err))
	}
	shown := data
	if len(shown) > maxReadBytes {
		shown = shown[:maxReadBytes]
	}
	if lines := strings.SplitAfter(string(shown), "\n"); len(lines) > maxReadLines {
		shown = []byte(strings.Join(lines[:maxReadLines], ""))
	}
	text := string(shown)
	if len(shown) < len(data) {
		text += fmt.Sprintf("\n[… %d more bytes not shown]", len(data)-len(shown))
	}
	said := fmt.Sprintf("%d bytes", len(data))
	if len(shown) < len(data) {
		said += fmt.Sprintf(", the first %d shown to the model", len(shown))
	}
	return result{text: text, details: map[string]any{"bytes": len(data), "truncated": len(shown) < len(data)}, said: said}
}

func (w workspace) write(rel, content string) result {
	p, err := w.resolve(rel)
	if err != nil {
		return failed("write: %v", err)
	}
	base := strings.TrimSuffix(filepath.Base(w.session), ".jsonl")
	if filepath.Dir(p) == filepath.Dir(w.session) && strings.HasPrefix(filepath.Base(p), base) {
		return failed("write: %s is the session's own file (or its temporary or archive): only the store writes it", rel)
	}
	if len(content) > maxNoteBytes {
		return failed("write: %d bytes is more than a note (at most %d)", len(content), maxNoteBytes)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return failed("write: %v", w.relErr(err))
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return failed("write: %v", w.relErr(err))
	}
	text := fmt.Sprintf("%d bytes in %s", len(content), filepath.ToSlash(rel))
	return result{text: text, details: map[string]any{"bytes": len(content)}, said: text}
}

// relErr says err without the workspace's absolute path.
func (w workspace) relErr(err error) string {
	return strings.ReplaceAll(err.Error(), w.root+string(filepath.Separator), "")
}
