// Package cachedir is the grader's own directory in the user's cache
// directory: its helper programs, its read-only build cache, the set-up's
// answers and the course's own test binaries. Only this user may write it,
// and nothing found there is used unless it is this user's.
package cachedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrNotOurs marks a directory or file in the grader's cache that someone
// else could have put there.
var ErrNotOurs = errors.New("not this user's alone")

// Dir is the grader's directory in the user's cache directory (or, without
// one, a temporary directory of this user's), made if need be and refused
// unless only this user may write it.
func Dir() (string, error) {
	base, err := os.UserCacheDir()
	if err == nil {
		base = filepath.Join(base, "course-kit")
		err = os.MkdirAll(base, 0o700)
	}
	if err != nil {
		base = filepath.Join(os.TempDir(), "course-kit-"+strconv.Itoa(os.Getuid()))
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", fmt.Errorf("no directory for the grader's helpers: %w", err)
		}
	}
	if err := Owned(base, true); err != nil {
		return "", fmt.Errorf("the grader's directory %s: %w", base, err)
	}
	return base, nil
}
