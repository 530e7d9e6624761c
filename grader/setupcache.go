package grader

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	gobuild "go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/module"

	"github.com/coursekit/course/grader/check"
	"github.com/coursekit/course/grader/internal/atomicfile"
	"github.com/coursekit/course/grader/internal/buildcache"
	"github.com/coursekit/course/grader/internal/cachedir"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/internal/staticcheck"
	"github.com/coursekit/course/grader/sandbox"
)

// setupRecord is what New learns by asking the go command, which costs a
// good part of a second: the test2json converter, the helpers, the build
// cache (filled by the set-up check), and the export data the checker
// reads. Its answer cannot change while the toolchain, the course, the lab
// and the machine's settings do not, so it is kept in the grader's cache
// directory under a key made of all of them, and asked again when one
// changes or a file it names is gone.
type setupRecord struct {
	Test2JSON   string            `json:"test2json"`
	CheckHelper string            `json:"check_helper"`
	CacheHelper string            `json:"cache_helper"`
	CacheBase   string            `json:"cache_base"`
	Exports     map[string]string `json:"exports"`
}

// setupEnv are the variables of the grader's environment that can change
// what a build does or finds; the rest (a terminal's, a shell's) cannot.
var setupEnv = []string{
	"CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOROOT", "GOPATH",
	"GOMODCACHE", "GOCACHE", "GOEXPERIMENT", "GOAMD64", "GOARM64", "PATH", "HOME", "XDG_CACHE_HOME",
}

// setupKey hashes what the set-up's answer depends on: the go command's
// file, the settings above, the race mode, the lab's grading files (hidden
// ones too when graded), the private tests and the helpers' sources.
func (g *Grader) setupKey() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "course-grade setup 1\nrace %v\nhidden %v\n", g.race, g.opts.Hidden)
	bin, err := filepath.EvalSymlinks(g.goBin)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "go %s %d %d\n", bin, fi.Size(), fi.ModTime().UnixNano())
	for _, k := range setupEnv {
		fmt.Fprintf(h, "env %s=%q\n", k, os.Getenv(k))
	}
	fp, err := g.opts.Lab.Fingerprint(g.opts.Hidden)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "lab %s %s\n", g.opts.Lab.Slug, fp)
	names := make([]string, 0, len(g.extra))
	for name := range g.extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(h, "extra %s %d\n", name, len(g.extra[name]))
		h.Write(g.extra[name])
	}
	for _, src := range []fs.FS{staticcheck.Source, buildcache.Source} {
		if err := hashFS(h, src); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// hashFS writes every file of fsys into h, in order.
func hashFS(h interface{ Write([]byte) (int, error) }, fsys fs.FS) error {
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

// setUp gives g what the set-up asks the go command for: from the record
// of an earlier grader with the same key when every file it names is still
// there, else by asking (and checking that the lab builds), then keeping
// the answer for the next.
func (g *Grader) setUp(given map[string][]byte) (*setupRecord, error) {
	key, err := g.setupKey()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", sandbox.ErrSetup, err)
	}
	g.setupID = key
	dir, err := cachedir.Dir()
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "setup-"+key+".json")
	if rec, ok := g.loadSetup(p); ok {
		return rec, nil
	}
	rec, err := g.askSetup(given)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = atomicfile.Write(p, data, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: keeping the set-up's answer: %v", sandbox.ErrSetup, err)
	}
	return rec, nil
}

// askSetup runs every check of the set-up and finds what the record holds.
func (g *Grader) askSetup(given map[string][]byte) (*setupRecord, error) {
	rec := &setupRecord{}
	var err error
	if rec.Test2JSON, err = findTest2JSON(g.goBin); err != nil {
		return nil, err
	}
	if g.race {
		if err := checkRaceToolchain(g.goBin); err != nil {
			return nil, err
		}
	}
	if g.cache, err = newBuildCache(g.goBin, g.race); err != nil {
		return nil, err
	}
	if err := g.checkSetup(); err != nil {
		return nil, err
	}
	rec.CacheHelper, rec.CacheBase = g.cache.helper, g.cache.base
	want, err := check.Imports(given)
	if err != nil {
		return nil, err
	}
	if rec.Exports, err = check.ExportData(g.goBin, goenv.Env(false), want); err != nil {
		return nil, err
	}
	if rec.CheckHelper, err = check.BuildHelper(g.goBin, goenv.Env(false)); err != nil {
		return nil, err
	}
	return rec, nil
}

// loadSetup reads the record at p and takes it only if every file it
// names is still there (the helpers this user's own), the build cache is
// filled, and the lab's modules are still in the module cache.
func (g *Grader) loadSetup(p string) (*setupRecord, bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	var rec setupRecord
	if json.Unmarshal(data, &rec) != nil || rec.Exports == nil {
		return nil, false
	}
	for _, helper := range []string{rec.CheckHelper, rec.CacheHelper} {
		if fi, err := os.Lstat(helper); err != nil || !fi.Mode().IsRegular() || cachedir.Owned(helper, false) != nil {
			return nil, false
		}
	}
	files := []string{rec.Test2JSON}
	for _, f := range rec.Exports {
		files = append(files, f)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return nil, false
		}
	}
	cache := &buildCache{helper: rec.CacheHelper, base: rec.CacheBase}
	if !cache.filled() || !g.labModulesPresent() {
		return nil, false
	}
	g.cache = cache
	return &rec, true
}

// labModulesPresent reports whether every module a lab workspace requires
// is still extracted in the module cache, where an offline build finds it.
func (g *Grader) labModulesPresent() bool {
	reqs, err := g.opts.Lab.Requirements()
	if err != nil {
		return false
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		cache = filepath.Join(filepath.SplitList(gobuild.Default.GOPATH)[0], "pkg", "mod")
	}
	for _, m := range reqs {
		escaped, err := module.EscapePath(m.Path)
		if err != nil {
			return false
		}
		if fi, err := os.Stat(filepath.Join(cache, escaped+"@"+m.Version)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
