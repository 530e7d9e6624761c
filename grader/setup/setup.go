// Package setup checks, once per toolchain, course, lab and machine, that
// this machine can grade the lab (its modules, a C compiler for the race
// detector, the standard library compiled into the grader's build cache),
// and finds what grading needs from the go command: its test2json, the
// build cache's helper and directory, the export data and the helper the
// static check reads. The answer is kept in the grader's cache directory
// under a key made of everything it depends on, and asked again when one
// changes or a file it names is gone.
package setup

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

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/build"
	"github.com/coursekit/course/grader/check"
	"github.com/coursekit/course/grader/internal/buildcache"
	"github.com/coursekit/course/grader/internal/cachedir"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/internal/staticcheck"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/sandbox"
)

// Config is what a set-up is for.
type Config struct {
	Lab     *lab.Lab
	GoBin   string            // the go command (build.FindGo)
	Race    bool              // grading builds use the race detector
	Hidden  bool              // the hidden tests are graded
	Extra   map[string][]byte // private test files, by name
	Given   map[string][]byte // the lab's given files, which the checker reads
	Sandbox *sandbox.Sandbox  // bounds the set-up's own build
	TempDir string
}

// Toolchain is the set-up's answer.
type Toolchain struct {
	Key         string            // what the answer depends on, hashed (build.Config.SetupKey)
	Test2JSON   string            // the toolchain's test2json
	Cache       *build.Cache      // the grader's build cache, filled
	Exports     map[string]string // import path -> export data file, for the checker
	CheckHelper string            // the checker's helper program
}

// Run gives the set-up's answer for c: from the record of an earlier
// grader with the same key when every file it names is still there, else
// by asking the go command (which costs a good part of a second, and
// compiles the standard library the first time), then keeping the answer
// for the next.
func Run(c Config) (*Toolchain, error) {
	s := &state{cfg: c}
	rec, err := s.setUp(c.Given)
	if err != nil {
		return nil, err
	}
	return &Toolchain{Key: s.key, Test2JSON: rec.Test2JSON, Cache: s.cache, Exports: rec.Exports, CheckHelper: rec.CheckHelper}, nil
}

// state is one set-up under way.
type state struct {
	cfg   Config
	key   string
	cache *build.Cache
}

// setupRecord is the set-up's answer as it is kept.
type setupRecord struct {
	Test2JSON   string            `json:"test2json"`
	CheckHelper string            `json:"check_helper"`
	CacheHelper string            `json:"cache_helper"`
	CacheBase   string            `json:"cache_base"`
	CacheShared bool              `json:"cache_shared"` // build.Cache.Shared
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
func (s *state) setupKey() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "course-grade setup 2\nrace %v\nhidden %v\n", s.cfg.Race, s.cfg.Hidden)
	bin, err := filepath.EvalSymlinks(s.cfg.GoBin)
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
	fp, err := s.cfg.Lab.Fingerprint(s.cfg.Hidden)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "lab %s %s\n", s.cfg.Lab.Slug, fp)
	names := make([]string, 0, len(s.cfg.Extra))
	for name := range s.cfg.Extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(h, "extra %s %d\n", name, len(s.cfg.Extra[name]))
		h.Write(s.cfg.Extra[name])
	}
	for _, src := range []fs.FS{staticcheck.Source, buildcache.Source} {
		if err := build.HashFS(h, src); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// setUp finds the answer: kept, or asked and then kept.
func (s *state) setUp(given map[string][]byte) (*setupRecord, error) {
	key, err := s.setupKey()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", sandbox.ErrSetup, err)
	}
	s.key = key
	dir, err := cachedir.Dir()
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "setup-"+key+".json")
	if rec, ok := s.loadSetup(p); ok {
		return rec, nil
	}
	rec, err := s.askSetup(given)
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
func (s *state) askSetup(given map[string][]byte) (*setupRecord, error) {
	rec := &setupRecord{}
	var err error
	if rec.Test2JSON, err = build.FindTest2JSON(s.cfg.GoBin); err != nil {
		return nil, err
	}
	if s.cfg.Race {
		if err := checkRaceToolchain(s.cfg.GoBin); err != nil {
			return nil, err
		}
	}
	if s.cache, err = build.NewCache(s.cfg.GoBin, s.cfg.Race); err != nil {
		return nil, err
	}
	// The set-up's build shares the go command's own cache directory as
	// grading builds would; they share it only if it is left as it was.
	s.cache.Shared = true
	if err := s.checkSetup(); err != nil {
		return nil, err
	}
	s.cache.Shared = s.cache.CheckLocal() == nil
	rec.CacheHelper, rec.CacheBase, rec.CacheShared = s.cache.Helper, s.cache.Base, s.cache.Shared
	want, err := check.Imports(given)
	if err != nil {
		return nil, err
	}
	if rec.Exports, err = check.ExportData(s.cfg.GoBin, goenv.Env(false), want); err != nil {
		return nil, err
	}
	if rec.CheckHelper, err = check.BuildHelper(s.cfg.GoBin, goenv.Env(false)); err != nil {
		return nil, err
	}
	return rec, nil
}

// loadSetup reads the record at p and takes it only if every file it
// names is still there (the helpers this user's own), the build cache is
// filled, and the lab's modules are still in the module cache.
func (s *state) loadSetup(p string) (*setupRecord, bool) {
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
	cache := &build.Cache{Helper: rec.CacheHelper, Base: rec.CacheBase, Shared: rec.CacheShared}
	if !cache.Filled() || !s.labModulesPresent() {
		return nil, false
	}
	s.cache = cache
	return &rec, true
}

// labModulesPresent reports whether every module a lab workspace requires
// is still extracted in the module cache, where an offline build finds it.
func (s *state) labModulesPresent() bool {
	reqs, err := s.cfg.Lab.Requirements()
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
