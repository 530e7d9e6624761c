// Package atomicfile writes a file whole or not at all: into a new file
// beside it, synced, then renamed over it, and the directory synced, so
// that a reader (or a crash) sees the old content or the new, never part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with permissions perm, atomically.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Some systems cannot sync a
// directory (Windows); there the rename is as durable as it gets.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}
