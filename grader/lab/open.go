package lab

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FileTypeError is a path that is not the kind of file its reader takes:
// a link, a FIFO, a device or a socket where a regular file (or a
// directory) should be. Such a path is never followed or opened.
type FileTypeError struct {
	Path string
	Mode fs.FileMode // what it is
	Want string      // what it should be: "a regular file", "a directory"
}

func (e *FileTypeError) Error() string {
	return fmt.Sprintf("%s is %s, not %s", e.Path, DescribeMode(e.Mode), e.Want)
}

// TooLargeError is a file larger than its reader reads: it is not read
// whole, and not read at all past Limit.
type TooLargeError struct {
	Path  string
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string {
	size := fmt.Sprintf("%d KiB", e.Limit>>10)
	if e.Limit >= 1<<20 && e.Limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", e.Limit>>20)
	}
	return e.Path + " is larger than " + size
}

// OpenRegular opens p for reading if it is a regular file, without
// following a final symbolic link and without blocking on a FIFO.
func OpenRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &FileTypeError{Path: p, Mode: info.Mode(), Want: "a regular file"}
	}
	return f, nil
}

// ReadRegular reads the regular file p, of at most limit bytes, where p
// may be a student's to make: a link, a FIFO, a device or a socket is
// refused (*FileTypeError) by Lstat before anything is opened, and again
// by OpenRegular in case p was swapped since; a larger file is a
// *TooLargeError after limit+1 bytes, never read whole.
func ReadRegular(p string, limit int64) ([]byte, error) {
	if fi, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, &FileTypeError{Path: p, Mode: fi.Mode(), Want: "a regular file"}
	}
	f, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: p, Limit: limit}
	}
	return data, nil
}

// DescribeMode names a file type for a person.
func DescribeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (" + m.Type().String() + ")"
}

// maxWorkspaceInfo bounds what ReadWorkspaceInfo reads: the file is a few
// lines the course wrote.
const maxWorkspaceInfo = 64 << 10

// readWorkspaceInfoFile reads p, a workspace's info file, which in a
// submission is the student's to make: its directory (.course) must be a
// directory of the workspace, not a link out of it, and the file a small
// regular file (see ReadRegular), never followed, waited on or read whole.
func readWorkspaceInfoFile(p string) ([]byte, error) {
	dir := filepath.Dir(p)
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &FileTypeError{Path: dir, Mode: fi.Mode(), Want: "a directory"}
	}
	data, err := ReadRegular(p, maxWorkspaceInfo)
	if tl := (*TooLargeError)(nil); errors.As(err, &tl) {
		return nil, fmt.Errorf("%w: not a workspace's info file", err)
	}
	return data, err
}
