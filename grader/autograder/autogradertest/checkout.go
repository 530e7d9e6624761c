// Package autogradertest helps the course's tests of autograder bundles: it
// makes a clean git checkout of the course as it is on disk, since a bundle
// is made only from a clean checkout and the course under test is what must
// be bundled.
package autogradertest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Checkout copies the course at root into a new temporary directory of t
// and commits everything there. From a git checkout it copies the files
// git tracks or would track (new files not yet added, but nothing
// .gitignore ignores) as they are on disk; from a tree that is not one (a
// student release) every file but .git.
func Checkout(t testing.TB, root string) string {
	t.Helper()
	files, err := tracked(root)
	if err != nil {
		t.Fatalf("listing the course at %s: %v", root, err)
	}
	dir := t.TempDir()
	for _, name := range files {
		src := filepath.Join(root, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted on disk, not yet in a commit
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if err := CommitAll(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// CommitAll makes dir a git checkout with everything in it committed.
func CommitAll(dir string) error {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=course tests", "-c", "user.email=tests@example.com", "commit", "-q", "--no-gpg-sign", "-m", "course"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// tracked lists the files git tracks or would track at root, or every
// file but .git when root is not a git checkout.
func tracked(root string) ([]string, error) {
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if out, err := cmd.Output(); err == nil {
		if top, err := exec.Command("git", "-C", root, "rev-parse", "--show-prefix").Output(); err == nil && strings.TrimSpace(string(top)) == "" {
			var names []string
			for _, n := range strings.Split(string(out), "\x00") {
				if n != "" {
					names = append(names, n)
				}
			}
			return names, nil
		}
	}
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	return names, err
}
