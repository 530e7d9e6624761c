// Package courseroot finds the course's own source tree: the directory
// whose go.mod declares the course's module, at or above where a command
// runs. Release, the autograder bundles and the tests that need the
// course's source all find it here.
package courseroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// ModulePath is the course's root module.
const ModulePath = "github.com/coursekit/course"

// ErrNotFound means no directory at or above the starting one holds the
// course's go.mod.
var ErrNotFound = errors.New("not inside the course's source tree (no go.mod of module " + ModulePath + " here or above)")

// Find returns the course's source root: start, or the nearest directory
// above it, whose go.mod declares ModulePath.
func Find(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if Check(dir) == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotFound
		}
		dir = parent
	}
}

// Check returns nil if dir holds the course's go.mod, or an error that
// says what it holds instead.
func Check(dir string) error {
	p := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s holds no go.mod: not the course's source tree", dir)
	}
	if err != nil {
		return err
	}
	if mod := modfile.ModulePath(data); mod != ModulePath {
		return fmt.Errorf("%s is module %q, not the course (%s)", p, mod, ModulePath)
	}
	return nil
}
