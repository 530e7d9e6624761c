package autograder

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// SourceFile is one file of a source tree: its slash-separated path
// relative to the root, and its mode bits.
type SourceFile struct {
	Name string
	Mode fs.FileMode
}

// ErrDirtyTree means the course's checkout has changes git has not
// committed: a bundle made from it would not be the course on record.
var ErrDirtyTree = errors.New("the checkout has uncommitted changes")

// ListSourceTree returns the files git tracks in the checkout at root,
// sorted by name, except the paths in exclude (absolute, such as the file
// being written): exactly `git ls-files`, never a guess at .gitignore, so
// that nothing untracked (a grades.csv, students' submissions) can slip in.
// Unless allowDirty, a checkout whose tracked files differ from its last
// commit is refused (ErrDirtyTree, naming them). A tracked symbolic link or
// submodule is refused: a bundle holds regular files only.
func ListSourceTree(root string, allowDirty bool, exclude ...string) ([]SourceFile, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the bundle takes exactly the files git tracks, and git was not found: %w", err)
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(git, append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	top, err := run("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not a git checkout (the bundle takes exactly the files git tracks): %w", root, err)
	}
	if t, err := filepath.EvalSymlinks(strings.TrimSpace(string(top))); err != nil || !sameDir(t, root) {
		return nil, fmt.Errorf("%s is not the top of its git checkout (%s is)", root, strings.TrimSpace(string(top)))
	}
	if !allowDirty {
		status, err := run("status", "--porcelain=v1", "-z", "--untracked-files=no")
		if err != nil {
			return nil, err
		}
		var changed []string
		for _, entry := range strings.Split(string(status), "\x00") {
			if len(entry) > 3 {
				changed = append(changed, entry[3:])
			}
		}
		if len(changed) > 0 {
			if len(changed) > 5 {
				changed = append(changed[:5], fmt.Sprintf("and %d more", len(changed)-5))
			}
			return nil, fmt.Errorf("%w: %s (commit them, or pass --allow-dirty to bundle the files as they are on disk)", ErrDirtyTree, strings.Join(changed, ", "))
		}
	}
	listing, err := run("ls-files", "-z", "--stage")
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, e := range exclude {
		if abs, err := filepath.Abs(e); err == nil {
			skip[abs] = true
		}
	}
	seen := map[string]bool{}
	var out []SourceFile
	for _, entry := range strings.Split(string(listing), "\x00") {
		// "<mode> <object> <stage>\t<path>"
		meta, name, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		fields := strings.Fields(meta)
		if len(fields) != 3 || seen[name] {
			continue
		}
		seen[name] = true
		if skip[filepath.Join(root, filepath.FromSlash(name))] {
			continue
		}
		switch fields[0] {
		case "100644", "100755":
		default:
			return nil, fmt.Errorf("%s: git tracks it as mode %s; a bundle holds regular files only", name, fields[0])
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, fs.ErrNotExist) && allowDirty:
			continue // deleted on disk, and the caller asked for the disk's state
		case err != nil:
			return nil, err
		case !info.Mode().IsRegular():
			return nil, fmt.Errorf("%s: tracked as a file but is %v on disk", name, info.Mode().Type())
		}
		mode := fs.FileMode(0o644)
		if fields[0] == "100755" {
			mode = 0o755
		}
		out = append(out, SourceFile{Name: name, Mode: mode})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
