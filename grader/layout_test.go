package grader_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/courseroot"
)

// TestBuildTaggedFilesFollowTheNamingRule holds the course's one rule for
// files built on some systems only (docs/architecture.md): the name says
// where the file is built, and a //go:build line says it again, so that a
// reader never has to open a file to learn which system it serves.
//
//	x_linux.go  //go:build linux
//	x_unix.go   //go:build unix
//	x_other.go  the complement of its siblings: a constraint that is negated
//
// A file that constrains the system without such a name breaks the rule.
func TestBuildTaggedFilesFollowTheNamingRule(t *testing.T) {
	root, err := courseroot.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if problem := buildTagProblem(path, readConstraint(t, path)); problem != "" {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: %s", rel, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// buildTagProblem says what is wrong with a file's name and constraint
// under the rule, or "" when nothing is.
func buildTagProblem(path, constraint string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".go"), "_test")
	systems := []string{"linux", "unix", "windows", "darwin", "freebsd"}
	for _, sys := range []string{"linux", "unix"} {
		if strings.HasSuffix(base, "_"+sys) {
			if constraint != sys {
				return "named _" + sys + ", so its first line must be //go:build " + sys + ", not " + quoteConstraint(constraint)
			}
			return ""
		}
	}
	if strings.HasSuffix(base, "_other") {
		if !strings.Contains(constraint, "!") {
			return "named _other, so its //go:build line must negate its siblings' systems, not " + quoteConstraint(constraint)
		}
		return ""
	}
	for _, sys := range systems {
		if strings.Contains(constraint, sys) {
			return "constrained to " + quoteConstraint(constraint) + " but not named _linux, _unix or _other"
		}
	}
	return ""
}

func quoteConstraint(c string) string {
	if c == "" {
		return "no //go:build line"
	}
	return "//go:build " + c
}

// readConstraint returns the expression of a file's //go:build line, if it
// has one before its package clause.
func readConstraint(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, "//go:build "); ok {
			return strings.TrimSpace(c)
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return ""
}
