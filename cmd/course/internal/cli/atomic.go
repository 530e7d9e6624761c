package cli

import (
	"io"
	"os"
	"path/filepath"
)

// writeAtomic writes p through a temporary file beside it (whose name write
// is told, so that it can leave it out of what it writes), then renames it
// over p: a reader sees the old file or the new one, never half of one, and
// a failed write leaves p as it was.
func writeAtomic(p string, write func(w io.Writer, tmp string) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f, f.Name()); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}
