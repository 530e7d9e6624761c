package grader

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/submission"
)

// An instructor's private suite (Options.TestsDir): *_test.go files kept
// outside the course, added to the grading directory like hidden tests.

// readPrivateSuite reads the private suite in dir: its files (named as
// they go into the grading directory) and the test names in them, which
// must each belong to an exercise of l, in l's external test package.
func readPrivateSuite(dir string, l *lab.Lab) (map[string][]byte, []string, error) {
	files, names, err := readPrivateTests(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPrivatePrefixes(dir, names, l); err != nil {
		return nil, nil, err
	}
	if err := checkPrivatePackages(dir, files, l.Package+"_test"); err != nil {
		return nil, nil, err
	}
	return files, names, nil
}

// readPrivateTests reads the *_test.go files of dir and the test names in them.
func readPrivateTests(dir string) (map[string][]byte, []string, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("--tests %s: %s", dir, submission.DescribeFSError(err))
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("--tests %s: not a directory", dir)
	}
	names, err := lab.TestNames(os.DirFS(dir), ".")
	if err != nil {
		return nil, nil, fmt.Errorf("--tests %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("--tests %s: no test functions found in *_test.go files", dir)
	}
	files := map[string][]byte{}
	matches, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, nil, err
	}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--tests: %w", err)
		}
		files["private_"+filepath.Base(m)] = data
	}
	return files, names, nil
}

// checkPrivatePrefixes refuses a --tests suite with a test that belongs to
// no exercise: it would never run, and its author would think it had.
func checkPrivatePrefixes(dir string, names []string, l *lab.Lab) error {
	var prefixes []string
	for _, ex := range l.Exercises {
		prefixes = append(prefixes, ex.TestPrefix)
	}
	for _, name := range names {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			return fmt.Errorf("--tests %s: %s belongs to no exercise, so it would never run: a test's name must start with an exercise's prefix (%s)", dir, name, strings.Join(prefixes, ", "))
		}
	}
	return nil
}

// checkPrivatePackages refuses a --tests file that is not in the external
// test package: the grader's harness, there too, could not run its tests,
// and the build would fail for every student.
func checkPrivatePackages(dir string, files map[string][]byte, want string) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		pkg, err := lab.PackageName(files[name])
		if err != nil {
			return fmt.Errorf("--tests %s: %s: %w", dir, strings.TrimPrefix(name, "private_"), err)
		}
		if pkg != want {
			return fmt.Errorf("--tests %s: %s is package %s; a private test must be in package %s, as the lab's tests are", dir, strings.TrimPrefix(name, "private_"), pkg, want)
		}
	}
	return nil
}
