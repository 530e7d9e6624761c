// Package lab describes the course's labs as data: each lab's manifest, its
// exercises and the tests that grade them, read from the embedded lab
// templates (labs.FS) and reference solutions (solutions.FS). It also writes
// the two directories made from a lab: a student's workspace and a grading
// directory.
//
// Nothing here is kept by hand: test names come from parsing the test
// sources, and a workspace's go.mod and go.sum come from the labs module's
// own, so that a workspace needs exactly the modules the course downloaded.
package lab

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/coursekit/course/labs"
	"github.com/coursekit/course/solutions"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/sync/errgroup"
)

// Paths inside the labs file system.
const (
	// ManifestPath is where a lab directory keeps its manifest.
	ManifestPath = ".meta/lab.json"
	// MetaDir holds files for the tool only; it is never copied.
	MetaDir = ".meta"
	// HiddenDir holds the hidden tests; only grading directories get them.
	HiddenDir = ".hidden"
)

// Manifest is a lab's .meta/lab.json.
type Manifest struct {
	Chapter  string   `json:"chapter"`
	Slug     string   `json:"slug"`
	Title    string   `json:"title"`
	Package  string   `json:"package"`
	Module   string   `json:"module"`
	Editable []string `json:"editable"`
	// Sequential says the editable file needs no goroutines: concurrency
	// is not this lab's lesson, so the grader's checker refuses go
	// statements, the sync and sync/atomic imports and the callbacks the
	// standard library runs on goroutines of their own (time.AfterFunc,
	// context.AfterFunc). Student code then never races with itself.
	Sequential bool       `json:"sequential,omitempty"`
	Exercises  []Exercise `json:"exercises"`
}

// Exercise is one graded exercise of a lab. Its tests are the test
// functions whose names start with TestPrefix.
type Exercise struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	TestPrefix string `json:"test_prefix"`
	Points     int    `json:"points"`
	// Bonus marks an optional exercise: graded only when asked for
	// (grader.Options.Bonus, `course grade --bonus`), and its points count
	// in the maximum score only then.
	Bonus bool `json:"bonus,omitempty"`
	// Scoring is how the exercise's points are earned: ScoreAll (the
	// default, also "") all or nothing, or ScorePerTest, shared among its
	// tests by weight.
	Scoring string `json:"scoring,omitempty"`
	// Weights gives some tests of a per-test exercise more weight than the
	// default 1, by test name.
	Weights map[string]int `json:"weights,omitempty"`
}

// Scoring rules of an exercise.
const (
	ScoreAll     = "all"
	ScorePerTest = "per-test"
)

// PerTest reports whether e's points are shared among its tests.
func (e Exercise) PerTest() bool { return e.Scoring == ScorePerTest }

// Weight is test's weight in e: 1 unless the manifest says otherwise.
func (e Exercise) Weight(test string) int {
	if w, ok := e.Weights[test]; ok {
		return w
	}
	return 1
}

// Lab is one lab of the catalog: its manifest, the test functions found in
// its sources, and the files it is made of.
type Lab struct {
	Manifest

	labsFS      fs.FS // the labs module root: go.mod, go.sum, <slug>/...
	solutionsFS fs.FS // the solutions module root: <slug>/...

	public, hidden []string // test function names, file order then source order
	goMod, goSum   []byte   // what a workspace gets
}

// Catalog is the set of labs the course carries.
type Catalog struct {
	labs []*Lab // sorted by chapter
}

// Load reads the labs embedded in the course tool.
func Load() (*Catalog, error) {
	return LoadFS(labs.FS, solutions.FS)
}

// LoadFS reads the labs from labsFS, laid out like the labs module (go.mod,
// go.sum, and one directory per lab holding .meta/lab.json), with their
// reference solutions in solutionsFS (one directory per lab).
func LoadFS(labsFS, solutionsFS fs.FS) (*Catalog, error) {
	goMod, err := fs.ReadFile(labsFS, "go.mod")
	if err != nil {
		return nil, fmt.Errorf("labs module: %w", err)
	}
	goSum, err := fs.ReadFile(labsFS, "go.sum")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("labs module: %w", err)
	}
	dirs, err := fs.ReadDir(labsFS, ".")
	if err != nil {
		return nil, fmt.Errorf("labs module: %w", err)
	}
	var labDirs []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if _, err := fs.Stat(labsFS, path.Join(d.Name(), ManifestPath)); err != nil {
			continue // not a lab directory
		}
		labDirs = append(labDirs, d.Name())
	}
	// Each lab's tests are parsed to find their names: side by side, since
	// every command that starts loads the labs.
	loaded := make([]*Lab, len(labDirs))
	var g errgroup.Group
	for i, dir := range labDirs {
		g.Go(func() (err error) {
			loaded[i], err = loadLab(labsFS, solutionsFS, dir, goMod, goSum)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	c := &Catalog{}
	seen := map[string]string{} // chapter -> slug
	for _, l := range loaded {
		if other, ok := seen[l.Chapter]; ok {
			return nil, &ManifestError{Path: path.Join(l.Slug, ManifestPath),
				Err: fmt.Errorf("chapter %q is also lab %s", l.Chapter, other)}
		}
		seen[l.Chapter] = l.Slug
		c.labs = append(c.labs, l)
	}
	sort.Slice(c.labs, func(i, j int) bool { return chapterLess(c.labs[i].Chapter, c.labs[j].Chapter) })
	return c, nil
}

// chapterLess orders chapters numerically when both are numbers ("9" < "10").
func chapterLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// Labs returns every lab, by chapter.
func (c *Catalog) Labs() []*Lab {
	return slices.Clone(c.labs)
}

// Chapters returns the chapter of every lab, in order.
func (c *Catalog) Chapters() []string {
	out := make([]string, len(c.labs))
	for i, l := range c.labs {
		out[i] = l.Chapter
	}
	return out
}

// EditableNames returns every file name that some lab's student edits, in
// catalog order, each once.
func (c *Catalog) EditableNames() []string {
	var out []string
	for _, l := range c.labs {
		for _, e := range l.Editable {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// ByPackage returns the labs whose students edit exactly the files
// editable, in package pkg: how a submission's lab is told from its
// package clause when nothing else says it.
func (c *Catalog) ByPackage(editable []string, pkg string) []*Lab {
	var out []*Lab
	for _, l := range c.labs {
		if l.Package == pkg && slices.Equal(l.Editable, editable) {
			out = append(out, l)
		}
	}
	return out
}

// PackageName returns the name in the package clause of Go source src.
func PackageName(src []byte) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

// Lookup returns the lab of chapter, or an *UnknownChapterError.
func (c *Catalog) Lookup(chapter string) (*Lab, error) {
	for _, l := range c.labs {
		if l.Chapter == chapter {
			return l, nil
		}
	}
	return nil, &UnknownChapterError{Chapter: chapter, Known: c.Chapters()}
}

func loadLab(labsFS, solutionsFS fs.FS, dir string, goMod, goSum []byte) (*Lab, error) {
	manifestPath := path.Join(dir, ManifestPath)
	data, err := fs.ReadFile(labsFS, manifestPath)
	if err != nil {
		return nil, &ManifestError{Path: manifestPath, Err: err}
	}
	l := &Lab{labsFS: labsFS, solutionsFS: solutionsFS, goSum: goSum}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a misspelt key would otherwise vanish silently
	if err := dec.Decode(&l.Manifest); err != nil {
		return nil, &ManifestError{Path: manifestPath, Err: err}
	}
	if err := l.Manifest.validate(dir); err != nil {
		return nil, &ManifestError{Path: manifestPath, Err: err}
	}
	if l.goMod, err = workspaceGoMod(goMod, l.Module); err != nil {
		return nil, err
	}
	if l.public, err = testNames(labsFS, dir); err != nil {
		return nil, err
	}
	if l.hidden, err = testNames(labsFS, path.Join(dir, HiddenDir)); err != nil {
		return nil, err
	}
	// A weight must name a test there is: a misspelt one would weigh nothing.
	for _, e := range l.Exercises {
		for name := range e.Weights {
			if !slices.Contains(l.public, name) && !slices.Contains(l.hidden, name) {
				return nil, &ManifestError{Path: manifestPath, Err: fmt.Errorf("exercise %s: weight for %s, a test the lab does not have", e.ID, name)}
			}
		}
	}
	// Hidden test files sit next to the public ones in a grading directory.
	for _, h := range l.hiddenFiles() {
		if _, err := fs.Stat(labsFS, path.Join(dir, path.Base(h))); err == nil {
			return nil, &ManifestError{Path: path.Join(dir, HiddenDir, path.Base(h)),
				Err: fmt.Errorf("hidden test file has the name of a public one")}
		}
	}
	return l, nil
}

// validate checks what the rest of the package relies on.
func (m *Manifest) validate(dir string) error {
	switch {
	case m.Slug != dir:
		return fmt.Errorf("slug %q differs from its directory %q", m.Slug, dir)
	case m.Chapter == "":
		return errors.New("no chapter")
	case m.Package == "":
		return errors.New("no package")
	case module.CheckImportPath(m.Module) != nil:
		return fmt.Errorf("module %q: %w", m.Module, module.CheckImportPath(m.Module))
	case len(m.Editable) == 0:
		return errors.New("no editable file")
	case len(m.Exercises) == 0:
		return errors.New("no exercises")
	}
	for _, e := range m.Editable {
		if !fs.ValidPath(e) || e == "." || strings.HasPrefix(e, MetaDir) || strings.HasPrefix(e, HiddenDir) {
			return fmt.Errorf("editable file %q is not a plain path in the lab", e)
		}
	}
	ids := map[string]bool{}
	graded := false
	for _, e := range m.Exercises {
		graded = graded || !e.Bonus
		if e.ID == "" || ids[e.ID] {
			return fmt.Errorf("exercise id %q is empty or repeated", e.ID)
		}
		ids[e.ID] = true
		if !strings.HasPrefix(e.TestPrefix, "Test") || len(e.TestPrefix) <= len("Test") {
			return fmt.Errorf("exercise %s: test_prefix %q does not name tests", e.ID, e.TestPrefix)
		}
		if e.Points < 0 {
			return fmt.Errorf("exercise %s: negative points %d", e.ID, e.Points)
		}
		switch e.Scoring {
		case "", ScoreAll, ScorePerTest:
		default:
			return fmt.Errorf("exercise %s: scoring %q is neither %q nor %q", e.ID, e.Scoring, ScoreAll, ScorePerTest)
		}
		if len(e.Weights) > 0 && !e.PerTest() {
			return fmt.Errorf("exercise %s: weights are given, but its scoring is not %q", e.ID, ScorePerTest)
		}
		for name, w := range e.Weights {
			if w < 1 {
				return fmt.Errorf("exercise %s: weight %d of %s is below 1", e.ID, w, name)
			}
			if !strings.HasPrefix(name, e.TestPrefix) {
				return fmt.Errorf("exercise %s: weight for %s, which is not one of its tests (%s…)", e.ID, name, e.TestPrefix)
			}
		}
	}
	if !graded {
		return errors.New("every exercise is a bonus: nothing would be graded by default")
	}
	// One test must belong to one exercise only.
	for _, a := range m.Exercises {
		for _, b := range m.Exercises {
			if a.ID != b.ID && strings.HasPrefix(a.TestPrefix, b.TestPrefix) {
				return fmt.Errorf("exercise %s: test_prefix %q starts with %s's %q", a.ID, a.TestPrefix, b.ID, b.TestPrefix)
			}
		}
	}
	return nil
}

// workspaceGoMod is the labs module's go.mod renamed to module.
func workspaceGoMod(labsGoMod []byte, module string) ([]byte, error) {
	f, err := modfile.Parse("labs/go.mod", labsGoMod, nil)
	if err != nil {
		return nil, err
	}
	if err := f.AddModuleStmt(module); err != nil {
		return nil, fmt.Errorf("labs/go.mod: %w", err)
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, fmt.Errorf("labs/go.mod: %w", err)
	}
	return out, nil
}

// testNames parses every *_test.go directly in dir (a missing dir has none)
// and returns its test functions, files in name order, functions in source
// order.
func testNames(fsys fs.FS, dir string) ([]string, error) {
	efs, embedded := fsys.(embed.FS)
	if !embedded {
		return parseTestNames(fsys, dir)
	}
	// An embedded tree cannot change while the program runs: its tests
	// are parsed once per process, however many times the labs are loaded.
	key := embeddedDir{efs, dir}
	parsedNames.mu.Lock()
	names, ok := parsedNames.m[key]
	parsedNames.mu.Unlock()
	if ok {
		return slices.Clone(names), nil
	}
	// Parsed without the lock, so that labs load side by side; two
	// loads at once may both parse a directory, to the same names.
	names, err := parseTestNames(fsys, dir)
	if err != nil {
		return nil, err
	}
	parsedNames.mu.Lock()
	if parsedNames.m == nil {
		parsedNames.m = map[embeddedDir][]string{}
	}
	parsedNames.m[key] = names
	parsedNames.mu.Unlock()
	return slices.Clone(names), nil
}

// embeddedDir is a directory of an embedded file system.
type embeddedDir struct {
	fsys embed.FS
	dir  string
}

// parsedNames holds the test names of embedded directories already parsed.
var parsedNames struct {
	mu sync.Mutex
	m  map[embeddedDir][]string
}

// parseTestNames is testNames without the memo.
func parseTestNames(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !isGoTestFile(e) {
			continue
		}
		p := path.Join(dir, e.Name())
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("lab tests: %w", err) // the message starts with p:line:col
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && isTestFunc(fn) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// isGoTestFile reports whether the go command would compile e as a test file.
func isGoTestFile(e fs.DirEntry) bool {
	n := e.Name()
	return !e.IsDir() && strings.HasSuffix(n, "_test.go") && !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_")
}

// isTestFunc applies the go command's rule: a top-level func TestXxx(*testing.T)
// where Xxx does not start with a lower-case letter.
func isTestFunc(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	if fn.Recv != nil || !strings.HasPrefix(name, "Test") || fn.Type.TypeParams != nil {
		return false
	}
	if rest := name[len("Test"):]; rest != "" {
		if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
			return false
		}
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T" // TestMain takes *testing.M
}

// Exercise returns the exercise with id, or an *UnknownExerciseError.
func (l *Lab) Exercise(id string) (Exercise, error) {
	for _, e := range l.Exercises {
		if e.ID == id {
			return e, nil
		}
	}
	known := make([]string, len(l.Exercises))
	for i, e := range l.Exercises {
		known[i] = e.ID
	}
	return Exercise{}, &UnknownExerciseError{Chapter: l.Chapter, ID: id, Known: known}
}

// PublicTests returns the names of the public tests of exercise exID (the
// tests a student has), or nil for an unknown exercise.
func (l *Lab) PublicTests(exID string) []string {
	return l.grouped(l.public, exID)
}

// HiddenTests returns the names of the hidden tests of exercise exID (the
// extra tests only grading runs), or nil for an unknown exercise.
func (l *Lab) HiddenTests(exID string) []string {
	return l.grouped(l.hidden, exID)
}

// UngroupedTests returns the test functions, public or hidden, whose names
// match no exercise's prefix: tests that no grade would ever count.
func (l *Lab) UngroupedTests() []string {
	var out []string
	for _, n := range slices.Concat(l.public, l.hidden) {
		if _, ok := l.ExerciseOf(n); !ok {
			out = append(out, n)
		}
	}
	return out
}

// ExerciseOf returns the exercise that test belongs to by its name.
func (l *Lab) ExerciseOf(test string) (Exercise, bool) {
	for _, e := range l.Exercises {
		if strings.HasPrefix(test, e.TestPrefix) {
			return e, true
		}
	}
	return Exercise{}, false
}

func (l *Lab) grouped(names []string, exID string) []string {
	ex, err := l.Exercise(exID)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, ex.TestPrefix) {
			out = append(out, n)
		}
	}
	return out
}

// Stub returns the lab's first editable file as the lab hands it out: the
// stub a student starts from.
func (l *Lab) Stub() ([]byte, error) {
	b, err := fs.ReadFile(l.labsFS, path.Join(l.Slug, l.Editable[0]))
	if err != nil {
		return nil, fmt.Errorf("lab %s: stub: %w", l.Chapter, err)
	}
	return b, nil
}

// Solution returns the reference solution of the lab's first editable file.
// When the course carries none (a student release, whose solutions module is
// empty), the error matches both ErrNoSolution and fs.ErrNotExist.
func (l *Lab) Solution() ([]byte, error) {
	p := path.Join(l.Slug, l.Editable[0])
	b, err := fs.ReadFile(l.solutionsFS, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lab %s: solution solutions/%s: %w: %w", l.Chapter, p, ErrNoSolution, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lab %s: solution solutions/%s: %w", l.Chapter, p, err)
	}
	return b, nil
}

// GivenFiles returns the lab's given Go files by name: every non-test .go
// file directly in the lab's directory except the editable ones. They are
// the package a student file is compiled with, so the grader type-checks a
// submission against them.
func (l *Lab) GivenFiles() (map[string][]byte, error) {
	entries, err := fs.ReadDir(l.labsFS, l.Slug)
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", l.Chapter, err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || isGoTestFile(e) || slices.Contains(l.Editable, n) ||
			strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		data, err := fs.ReadFile(l.labsFS, path.Join(l.Slug, n))
		if err != nil {
			return nil, fmt.Errorf("lab %s: %w", l.Chapter, err)
		}
		out[n] = data
	}
	return out, nil
}

// GoVersion is the go directive of the lab's workspaces ("1.22"): the
// language version a student file is checked and built with.
func (l *Lab) GoVersion() string {
	f, err := modfile.ParseLax("go.mod", l.goMod, nil)
	if err != nil || f.Go == nil {
		return ""
	}
	return f.Go.Version
}

// HiddenFileNames returns the base names of the hidden test files: the
// names they have in a grading directory.
func (l *Lab) HiddenFileNames() []string {
	var out []string
	for _, h := range l.hiddenFiles() {
		out = append(out, path.Base(h))
	}
	return out
}

// hiddenFiles returns the paths in labsFS of the hidden test files.
func (l *Lab) hiddenFiles() []string {
	dir := path.Join(l.Slug, HiddenDir)
	entries, _ := fs.ReadDir(l.labsFS, dir) // testNames already reported errors
	var out []string
	for _, e := range entries {
		if isGoTestFile(e) {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}
