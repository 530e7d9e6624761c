package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
}

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

// Env is a build's environment: the read-only cache (writable for the
// set-up check), and the go command's own cache and temporary files in
// work, which is removed with the build.
func (c *Cache) Env(env []string, work string, writable bool) []string {
	prog := quoteArg(c.Helper) + " -dir " + quoteArg(c.Base)
	if writable {
		prog += " -write"
	}
	return append(env, "GOCACHEPROG="+prog, "GOCACHE="+filepath.Join(work, "gocache"), "GOTMPDIR="+filepath.Join(work, "gotmp"))
}

// Prepare makes the directories env names.
func (c *Cache) Prepare(work string) error {
	for _, d := range []string{"gocache", "gotmp"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o700); err != nil {
			return err
		}
	}
	return nil
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
