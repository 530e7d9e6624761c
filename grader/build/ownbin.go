package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/internal/cachedir"
)

// ownBinAge is how long a kept test binary of the course's own code stays
// unused before a grader of the course's own code removes it.
const ownBinAge = 7 * 24 * time.Hour

var trimOwnBins sync.Once

// ownBinary is where the test binary of a build of the course's own code
// (Options.OwnCode: the self-check's stub, solutions and mutants) is kept
// from one self-check to the next: in the grader's cache directory, named
// after everything the build reads (the set-up key, which covers the
// toolchain, the machine's settings and the lab, every file of the grading
// directory, and the build's flags). A candidate the next self-check finds
// there is neither compiled nor linked again; one whose files changed has
// another name. Student code never comes here: its builds keep nothing.
func (b *Builder) ownBinary(srcDir string) (string, error) {
	dir := b.cfg.OwnBinDir
	if dir == "" {
		base, err := cachedir.Dir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "ownbin")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	trimOwnBins.Do(func() { removeOlderThan(dir, time.Now().Add(-ownBinAge)) })
	h := sha256.New()
	fmt.Fprintf(h, "course-grade own binary 1\nsetup %s\nargs %q\n", b.cfg.SetupKey, Args("", b.cfg.Race))
	if err := HashFS(h, os.DirFS(srcDir)); err != nil {
		return "", err
	}
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:32]+".test"), nil
}

// copyBinary copies the test binary from to to (mode 0700); when to is
// shared, through atomicfile: a grader beside this one sees the whole
// binary or none.
func copyBinary(from, to string, shared bool) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if shared {
		return atomicfile.WriteFunc(to, 0o700, func(w io.Writer, _ string) error {
			_, err := io.Copy(w, in)
			return err
		})
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o700)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeOlderThan removes the kept binaries of dir last used before t.
func removeOlderThan(dir string, t time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".test") && fi.ModTime().Before(t) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// HashFS writes every file of fsys into h, in order.
func HashFS(h interface{ Write([]byte) (int, error) }, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err == nil {
			fmt.Fprintf(h, "file %s %d\n", p, len(data))
			_, err = h.Write(data)
		}
		return err
	})
}
