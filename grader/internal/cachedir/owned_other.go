//go:build !unix

package cachedir

import (
	"fmt"
	"os"
)

// Owned checks what this system lets it: that path is of the kind expected
// and not a link.
func Owned(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if dir != fi.IsDir() {
		return fmt.Errorf("%w: it is a %s", ErrNotOurs, fi.Mode().Type())
	}
	return nil
}
