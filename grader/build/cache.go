package build

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/internal/buildcache"
	"github.com/coursekit/course/grader/internal/cachedir"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/internal/helperprog"
	"github.com/coursekit/course/grader/sandbox"
)

// Cache is where grading builds find the compiled standard library
// and course modules: a directory of the grader's own (one per toolchain
// and race mode) that the set-up check fills and every grading build only
// reads, through a GOCACHEPROG helper (package buildcache). A build's own
// outputs stay in its work directory and go with it.
type Cache struct {
	Helper string // the GOCACHEPROG program
	Base   string // the directory it serves
	// Shared: every build points the go command's own GOCACHE at Local.
	// With GOCACHEPROG set, the go command keeps nothing there but a
	// README and 256 empty directories, which it makes when they are
	// missing: on a disk, 256 new directories a build cost a tenth of a
	// second. The set-up sets it once it has seen its own build leave
	// Local so (CheckLocal), and every build checks again after it ran.
	Shared bool
}

// ErrLocalWritten means the go command left something in Local: builds
// that share it could pass it on, so nothing is graded until the set-up
// is asked again.
var ErrLocalWritten = errors.New("the go command wrote into the build directory every grading build shares")

// NewCache builds the helper, if need be, and finds the base for
// goBin's toolchain.
func NewCache(goBin string, race bool) (*Cache, error) {
	helper, err := helperprog.Build(goBin, goenv.Env(false), "buildcache", buildcache.Source, courseroot.ModulePath, buildcache.Dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(goBin, "env", "GOVERSION", "GOROOT", "GOOS", "GOARCH")
	cmd.Env = goenv.Env(race)
	version, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: go env: %v", sandbox.ErrSetup, err)
	}
	h := sha256.Sum256(append(version, fmt.Sprint(race)...))
	dir, err := cachedir.Dir()
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, "gocache-"+hex.EncodeToString(h[:])[:16])
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("%w: the build cache %s: %v", sandbox.ErrSetup, base, err)
	}
	// What is in the base is linked into every test binary: it must be
	// this user's alone.
	if err := cachedir.Owned(base, true); err != nil {
		return nil, fmt.Errorf("%w: the build cache %s: %v", sandbox.ErrSetup, base, err)
	}
	return &Cache{Helper: helper, Base: base}, nil
}

// Local is the go command's own cache directory (GOCACHE) of the builds
// that share one (Shared).
func (c *Cache) Local() string { return c.Base + "-local" }

// Env is a build's environment: the read-only cache (writable for the
// set-up check), the go command's own cache (Local, or in work), and its
// temporary files in work, which is removed with the build.
func (c *Cache) Env(env []string, work string, writable bool) []string {
	prog := quoteArg(c.Helper) + " -dir " + quoteArg(c.Base)
	if writable {
		prog += " -write"
	}
	return append(env, "GOCACHEPROG="+prog, "GOCACHE="+c.goCache(work), "GOTMPDIR="+filepath.Join(work, "gotmp"))
}

func (c *Cache) goCache(work string) string {
	if c.Shared {
		return c.Local()
	}
	return filepath.Join(work, "gocache")
}

// Prepare makes the directories Env names.
func (c *Cache) Prepare(work string) error {
	for _, d := range []string{c.goCache(work), filepath.Join(work, "gotmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if c.Shared {
		// Linked into no binary, but read by every build: this user's.
		return cachedir.Owned(c.Local(), true)
	}
	return nil
}

// CheckLocal returns nil when Local holds only what the go command makes
// in a cache it does not use: a README and empty directories 00 to ff
// (none at all before the first build); else an ErrLocalWritten.
func (c *Cache) CheckLocal() error {
	dir := c.Local()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrLocalWritten, err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "README" && e.Type().IsRegular():
			continue
		case e.IsDir() && isByteHex(name):
			if empty, err := isEmptyDir(filepath.Join(dir, name)); err == nil && empty {
				continue
			}
		}
		return fmt.Errorf("%w: %s", ErrLocalWritten, filepath.Join(dir, name))
	}
	return nil
}

// isByteHex reports whether name is two lower-case hexadecimal digits.
func isByteHex(name string) bool {
	if len(name) != 2 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil && strings.ToLower(name) == name
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}

// Filled reports whether the set-up check has put anything into the base:
// a go command too old for GOCACHEPROG (before Go 1.24) ignores it, and
// would cache a student's build where the next one finds it.
func (c *Cache) Filled() bool {
	entries, err := os.ReadDir(filepath.Join(c.Base, "a"))
	return err == nil && len(entries) > 0
}

// quoteArg quotes s for GOCACHEPROG's word splitting when it has a space.
func quoteArg(s string) string {
	if !strings.ContainsAny(s, " \t'\"") {
		return s
	}
	return "'" + s + "'"
}
