// Package releasetest lets the course's tests that need the reference
// solution run in the full course and skip in a student release, which has
// none (see package release). Only tests import it.
//
// The skip is deliberately narrow: a test skips only when the solution is
// missing (lab.ErrNoSolution) and the module it runs in is a release (the
// release.Marker file at its root). Anywhere else, a missing solution fails
// the test exactly as before.
package releasetest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release"
)

// Solution returns l's reference solution. In a student release it skips
// t; anywhere else, a solution that cannot be read fails t.
func Solution(t testing.TB, l *lab.Lab) []byte {
	t.Helper()
	sol, err := l.Solution()
	if err != nil {
		if ShouldSkip(err, workingDir()) {
			t.Skip("student release: no reference solution (" + release.Marker + " at the module root)")
		}
		t.Fatalf("%v", err)
	}
	return sol
}

// SkipInRelease skips t in a student release (a release.Marker file at the
// root of the module the test runs in), saying why.
func SkipInRelease(t testing.TB, why string) {
	t.Helper()
	if release.InRelease(workingDir()) {
		t.Skip("student release: " + why)
	}
}

// ShouldSkip reports whether err, from lab.Solution, is to skip a test that
// runs in dir: only when the solution is missing and dir lies in a release.
func ShouldSkip(err error, dir string) bool {
	return errors.Is(err, lab.ErrNoSolution) && release.InRelease(dir)
}

func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// CopySource copies the course source tree the test runs in (found from the
// working directory up) into a new temporary directory and returns that: a
// source that no one else edits while the test makes releases of it. It
// leaves out .git, node_modules (what npm installed, which a release leaves
// out too) and binary files (a NUL byte in the first 8 KiB).
func CopySource(t testing.TB) string {
	t.Helper()
	src, err := release.FindSource(workingDir())
	if err != nil {
		t.Fatalf("%v", err)
	}
	dst := filepath.Join(t.TempDir(), "course")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return fs.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy the course source: %v", err)
	}
	return dst
}
