// Package submission reads what a student handed in: a workspace
// directory, the lone file a student edits, or an archive holding it. It
// takes only the lab's editable files, reads without following links,
// without blocking on FIFOs or devices, with size caps on files, archives
// and what they inflate to, and writes nothing.
package submission

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/coursekit/course/grader/lab"
)

// MaxSourceSize is the largest student file the grader accepts. A session.go
// is a few hundred lines; anything near this size is not a real attempt.
const MaxSourceSize = 1 << 20

// maxArchiveSize bounds how much of an archive is read, so a crafted archive
// (a zip bomb, an endless gzip stream) cannot exhaust memory.
const maxArchiveSize = 64 << 20

// maxInflatedSize bounds what a .tar.gz is inflated to, whatever its
// members declare (a variable for the test, which lowers it).
var maxInflatedSize int64 = maxArchiveSize

// ErrBad marks every error about the submission itself: a path that
// does not exist, an archive without the file, a file that is too large.
// Such a submission cannot be graded (exit status 2), as opposed to one that
// was graded and failed.
var ErrBad = errors.New("bad submission")

// Error explains why a submission could not be read.
type Error struct {
	Path   string
	Reason string
	Kind   ErrorKind
}

// ErrorKind is what is wrong with a submission that cannot be read.
type ErrorKind int

// The kinds of Error.
const (
	// Unreadable: the path itself (missing, a link or a FIFO, not a
	// directory, a .go file or an archive; an archive that does not read
	// or inflates past the limit).
	Unreadable ErrorKind = iota
	// Missing: it holds no file of the lab.
	Missing
	// Crowded: it holds too much: two files of one name, or more entries
	// than a workspace has.
	Crowded
)

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// Is makes every Error match ErrBad.
func (e *Error) Is(target error) bool { return target == ErrBad }

// Submission is what the grader takes from a student: the editable files
// only, by name, read into memory. Nothing else of the submission is used,
// and the submission on disk is never written.
type Submission struct {
	// Name identifies the submission in reports: the base name of its path
	// without archive extensions ("alice" for alice.zip or alice/).
	Name string
	// Path is where it was read from.
	Path string
	// Files maps each editable file name (for example "session.go") to its content.
	Files map[string][]byte
	// Found says where each file was found inside the submission, for reports.
	Found map[string]string
}

// Read reads the editable files from a submission: a workspace
// directory, a lone .go file (when the lab has one editable file, whatever
// the file is called), or a .zip, .tar.gz or .tgz archive holding them. Inside a directory
// or an archive, each file is looked for at the top and, failing that, as the
// single match anywhere below (so a zip of the workspace folder works too).
// A lab of one editable file takes, from a directory or an archive without
// it, the only .go file there is (not a _test.go), whatever its name, as it
// takes a lone file: Gradescope puts an upload named alice.go in a
// directory.
func Read(p string, editable []string) (*Submission, error) {
	if len(editable) == 0 {
		return nil, errors.New("grader: the lab names no editable file")
	}
	// Lstat: a submission that is a link is refused, never followed; and
	// anything but a directory or a regular file (a FIFO, a device) is
	// refused before it is opened, since opening one can block forever.
	info, err := os.Lstat(p)
	if err != nil {
		return nil, &Error{Path: p, Reason: "cannot read: " + DescribeFSError(err)}
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return nil, &Error{Path: p, Reason: "is " + describeMode(info.Mode()) + ", not a directory or a regular file; it is never followed or opened"}
	}
	sub := &Submission{Name: Name(p), Path: p, Files: map[string][]byte{}, Found: map[string]string{}}
	var files map[string]func() ([]byte, error) // path inside the submission -> reader
	lower := strings.ToLower(p)
	switch {
	case info.IsDir():
		files, err = dirFiles(p, editable, len(editable) == 1)
	case strings.HasSuffix(lower, ".zip"):
		files, err = zipFiles(p)
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		files, err = tarFiles(p)
	case len(editable) == 1 && strings.HasSuffix(lower, ".go"):
		files = map[string]func() ([]byte, error){editable[0]: func() ([]byte, error) { return readCapped(p) }}
	default:
		return nil, &Error{Path: p, Reason: fmt.Sprintf("not a workspace directory, a %s, or a .zip/.tar.gz archive", strings.Join(editable, " or "))}
	}
	if err != nil {
		return nil, err
	}
	for _, name := range editable {
		at, err := pick(p, files, name, len(editable) == 1)
		if err != nil {
			return nil, err
		}
		data, err := files[at]()
		if err != nil {
			return nil, &Error{Path: p, Reason: fmt.Sprintf("%s: %v", at, err)}
		}
		sub.Files[name] = data
		sub.Found[name] = at
	}
	return sub, nil
}

// pick chooses which file of the submission is the editable file name: the
// one at the top level, or else the only one with that base name, or else,
// when it is the lab's only file (lone), the only Go file that could be it.
func pick(p string, files map[string]func() ([]byte, error), name string, lone bool) (string, error) {
	if _, ok := files[name]; ok {
		return name, nil
	}
	var matches, others []string
	for at := range files {
		switch base := path.Base(at); {
		case base == name:
			matches = append(matches, at)
		case lone && couldBeTheFile(base):
			others = append(others, at)
		}
	}
	sort.Strings(matches)
	sort.Strings(others)
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return "", &Error{Path: p, Reason: fmt.Sprintf("holds %d files named %s (%s): keep one", len(matches), name, strings.Join(matches, ", ")), Kind: Crowded}
	case len(others) == 1:
		return others[0], nil
	case len(others) > 1:
		shown := others[:min(len(others), 5)]
		if len(others) > len(shown) {
			shown = append(slices.Clone(shown), "…")
		}
		return "", &Error{Path: p, Reason: fmt.Sprintf("holds no %s, and %d other .go files that could be it (%s): name the one to grade %s, or hand it in alone",
			name, len(others), strings.Join(shown, ", "), name), Kind: Crowded}
	}
	return "", &Error{Path: p, Reason: "holds no " + name, Kind: Missing}
}

// couldBeTheFile reports whether a file of this base name could be the
// lab's only file under another name: Go source, not a test.
// A hidden file is not (macOS's "._alice.go" beside alice.go in a zip
// Finder made holds the file's attributes), nor a name that is only ".go".
func couldBeTheFile(base string) bool {
	lower := strings.ToLower(base)
	return strings.HasSuffix(lower, ".go") && !strings.HasSuffix(lower, "_test.go") && !strings.HasPrefix(base, ".")
}

// dirFiles lists the files of dir that Read may take: the editable ones
// and, for a lab of one file (lone), every one that could be it.
func dirFiles(dir string, editable []string, lone bool) (map[string]func() ([]byte, error), error) {
	files := map[string]func() ([]byte, error){}
	want := map[string]bool{}
	for _, name := range editable {
		want[name] = true
	}
	seen := 0
	err := walkCapped(dir, ".", &seen, func(rel string, d fs.DirEntry) {
		if d.Type().IsRegular() && (want[d.Name()] || lone && couldBeTheFile(d.Name())) { // symlinks and devices are never followed
			p := filepath.Join(dir, filepath.FromSlash(rel))
			files[rel] = func() ([]byte, error) { return readCapped(p) }
		}
	})
	if errors.Is(err, errTooManyEntries) {
		return nil, &Error{Path: dir, Reason: fmt.Sprintf("holds more than %d files and directories; hand in the workspace, not a disk", maxDirEntries), Kind: Crowded}
	}
	if err != nil {
		return nil, &Error{Path: dir, Reason: "cannot list: " + DescribeFSError(err)}
	}
	return files, nil
}

// walkCapped calls visit for every entry below root/rel (rel slash-separated)
// but the hidden directories and vendor, which it does not enter; it never
// follows a link. Unlike filepath.WalkDir it reads a directory a batch at a
// time and stops with errTooManyEntries once *seen passes maxDirEntries, so
// a directory of millions of entries is never listed whole.
func walkCapped(root, rel string, seen *int, visit func(rel string, d fs.DirEntry)) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	var subdirs []string
	for {
		batch, err := f.ReadDir(dirBatch)
		for _, d := range batch {
			if *seen++; *seen > maxDirEntries {
				f.Close()
				return errTooManyEntries
			}
			p := path.Join(rel, d.Name())
			if d.IsDir() {
				if !strings.HasPrefix(d.Name(), ".") && d.Name() != "vendor" {
					subdirs = append(subdirs, p)
				}
				continue
			}
			visit(p, d)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	// Closed before going down: a deep tree holds one directory open, not one per level.
	if err := f.Close(); err != nil {
		return err
	}
	for _, sub := range subdirs {
		if err := walkCapped(root, sub, seen, visit); err != nil {
			return err
		}
	}
	return nil
}

// dirBatch is how many entries of a directory are read at a time.
const dirBatch = 64

// maxDirEntries bounds how much of a submission directory is looked at: a
// workspace has a few dozen entries, and a tree of millions would keep the
// grader listing it for minutes.
var maxDirEntries = 100_000 // a variable for the test, which lowers it

var errTooManyEntries = errors.New("too many entries")

func zipFiles(p string) (map[string]func() ([]byte, error), error) {
	data, err := readLimited(p, maxArchiveSize)
	if err != nil {
		return nil, &Error{Path: p, Reason: err.Error()}
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &Error{Path: p, Reason: "not a readable zip archive: " + err.Error()}
	}
	files := map[string]func() ([]byte, error){}
	for _, f := range zr.File {
		if !f.Mode().IsRegular() {
			continue
		}
		f := f
		name := cleanArchivePath(f.Name)
		if _, dup := files[name]; dup {
			return nil, &Error{Path: p, Reason: fmt.Sprintf("holds two entries named %s (%q among them): keep one", name, f.Name), Kind: Crowded}
		}
		files[name] = func() ([]byte, error) {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return readAllCapped(rc)
		}
	}
	return files, nil
}

func tarFiles(p string) (map[string]func() ([]byte, error), error) {
	data, err := readLimited(p, maxArchiveSize)
	if err != nil {
		return nil, &Error{Path: p, Reason: err.Error()}
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{Path: p, Reason: "not a readable gzip archive: " + err.Error()}
	}
	tr := tar.NewReader(&inflateLimit{r: gz, left: maxInflatedSize})
	tooLarge := &Error{Path: p, Reason: fmt.Sprintf("unpacks to more than %s, far more than a workspace holds", humanize.IBytes(uint64(maxInflatedSize)))}
	files := map[string]func() ([]byte, error){}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errInflatedTooLarge) {
			return nil, tooLarge
		}
		if err != nil {
			return nil, &Error{Path: p, Reason: "not a readable tar archive: " + err.Error()}
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		content, err := readAllCapped(tr)
		if errors.Is(err, errInflatedTooLarge) {
			return nil, tooLarge
		}
		name := cleanArchivePath(h.Name)
		if _, dup := files[name]; dup {
			return nil, &Error{Path: p, Reason: fmt.Sprintf("holds two entries named %s (%q among them): keep one", name, h.Name), Kind: Crowded}
		}
		files[name] = func() ([]byte, error) { return content, err }
	}
	return files, nil
}

// errInflatedTooLarge is what an inflateLimit reads past its limit.
var errInflatedTooLarge = errors.New("inflated past the limit")

// inflateLimit reads r up to left bytes, then fails with
// errInflatedTooLarge if r has more: unlike io.LimitReader, whose silent
// EOF would make a cut-short archive look whole.
type inflateLimit struct {
	r    io.Reader
	left int64
}

func (l *inflateLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		for {
			n, err := l.r.Read(one[:])
			if n > 0 {
				return 0, errInflatedTooLarge
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// cleanArchivePath gives an archive member a clean slash path. Nothing is
// ever extracted to disk, so this is only about naming, not about safety.
func cleanArchivePath(name string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(name, `\`, "/")), "/")
}

// readCapped reads the regular file p, at most MaxSourceSize+1 bytes. It
// opens without following a link and without blocking, and checks what it
// opened: p could have been swapped for something else since it was listed.
func readCapped(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllCapped(f)
}

func readAllCapped(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSourceSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSourceSize {
		return nil, fmt.Errorf("larger than %d KiB", MaxSourceSize>>10)
	}
	return data, nil
}

func readLimited(p string, limit int64) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, errors.New("cannot read: " + DescribeFSError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("archive larger than %d MiB", limit>>20)
	}
	return data, nil
}

// Name is the name a submission at path p gets in reports: its
// base name without archive or .go extensions ("alice" for alice.zip or alice/).
func Name(p string) string {
	base := filepath.Base(filepath.Clean(p))
	for _, ext := range []string{".tar.gz", ".tgz", ".zip", ".go"} {
		if strings.HasSuffix(strings.ToLower(base), ext) {
			return base[:len(base)-len(ext)]
		}
	}
	return base
}

func DescribeFSError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// openRegular opens p for reading if it is a regular file, without
// following a final symbolic link and without blocking on a FIFO.
func openRegular(p string) (*os.File, error) { return lab.OpenRegular(p) }

// describeMode names a file type for a person.
func describeMode(m fs.FileMode) string { return lab.DescribeMode(m) }
