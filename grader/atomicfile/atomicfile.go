// Package atomicfile writes a file whole or not at all: into a new file
// beside it, synced, then renamed over it, and the directory synced, so
// that a reader (or a crash) sees the old content or the new, never part.
// Every file the course tool writes in one piece goes through it.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to path with permissions perm, atomically.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer, _ string) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteFunc writes path with permissions perm, atomically, with what write
// writes. write is told the temporary file's path, so that it can leave it
// out of what it writes (an archive of the directory, say). If write fails,
// path is as it was.
func WriteFunc(path string, perm os.FileMode, write func(w io.Writer, tmp string) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f, tmp)
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
