//go:build unix

package grader

import (
	"fmt"
	"os"
	"syscall"
)

// ownedByUs checks that path (a directory when dir) is this user's and
// that no one else may write to it; it does not follow a link.
func ownedByUs(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("its owner cannot be read")
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("it belongs to uid %d, not %d", st.Uid, os.Geteuid())
	case dir != fi.IsDir():
		return fmt.Errorf("it is a %s", fi.Mode().Type())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("others may write to it (mode %s)", fi.Mode().Perm())
	}
	return nil
}
