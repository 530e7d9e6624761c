package lab

import "io/fs"

// TestNames returns the test functions of the *_test.go files directly in
// dir of fsys, by the go command's rules: files in name order, functions in
// source order. The grader uses it for an instructor's private test suite.
func TestNames(fsys fs.FS, dir string) ([]string, error) {
	return testNames(fsys, dir)
}
