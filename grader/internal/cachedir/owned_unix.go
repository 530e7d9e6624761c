//go:build unix

package cachedir

import (
	"fmt"
	"os"
	"syscall"
)

// Owned checks that path (a directory when dir) is this user's and that no
// one else may write to it; it does not follow a link.
func Owned(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("%w: its owner cannot be read", ErrNotOurs)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: it belongs to uid %d, not %d", ErrNotOurs, st.Uid, os.Geteuid())
	case dir != fi.IsDir():
		return fmt.Errorf("%w: it is a %s", ErrNotOurs, fi.Mode().Type())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%w: others may write to it (mode %s)", ErrNotOurs, fi.Mode().Perm())
	}
	return nil
}
