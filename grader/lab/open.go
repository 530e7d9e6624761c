package lab

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

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
		return nil, fmt.Errorf("%s is %s, not a regular file", p, DescribeMode(info.Mode()))
	}
	return f, nil
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
// submission is the student's to make: a link, a FIFO, a device or a
// file too large to be ours is refused, never followed, waited on or read
// whole.
func readWorkspaceInfoFile(p string) ([]byte, error) {
	if fi, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", p, DescribeMode(fi.Mode()))
	}
	f, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkspaceInfo+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxWorkspaceInfo {
		return nil, fmt.Errorf("%s is larger than %d KiB: not a workspace's info file", p, maxWorkspaceInfo>>10)
	}
	return data, nil
}
