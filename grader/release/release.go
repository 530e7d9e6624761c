// Package release writes a student release of the course: a copy of the
// course's source tree with everything a student needs (the course tool,
// the lab templates with their public tests, handouts, hints and guides) and
// nothing a student must not see (reference and alternative solutions,
// mutants, hidden tests, instructors' documents).
//
// What goes in is decided path by path by an explicit list, Rules: anything
// the list does not keep is left out, so a new file reaches students only
// once someone adds it to the list. The release gets, instead of the
// solutions module, an empty one with the same module path (the tool still
// builds; lab.Solution reports lab.ErrNoSolution), a rule table made from
// its own labs (so it names no hidden test), and a Marker file at its root.
// Before the release is moved into place, Scan searches every file of it for
// the names of the hidden tests and for fragments of every solution, hidden
// test and mutant; a hit fails the release (fail closed).
package release

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/mod/modfile"

	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/lab"
)

// Marker is the file at the root of every release. Tests that need the
// reference solution skip where it exists (see package releasetest) and fail
// anywhere else; Make refuses a source that has it.
const Marker = "RELEASE"

// Rule decides what happens to the paths it matches.
type Rule struct {
	// Pattern is a path.Match pattern on a slash-separated path relative to
	// the source root. Ending in "/" it matches a directory and everything
	// in it; otherwise the path itself. With Base set it is matched against
	// the last element of every path, at any depth.
	Pattern string
	Base    bool
	Keep    bool
	// Why says why the path is kept or left out.
	Why string
}

// rules is what a release holds. The first rule that matches a path
// decides; a path no rule matches is left out. A directory that no rule
// matches is still entered when a Keep rule names something inside it
// (docs/ for docs/guide/).
var rules = []Rule{
	// Leftovers of builds and editors, wherever they are.
	{Pattern: "*.test", Base: true, Why: "a compiled test binary"},
	{Pattern: "*.out", Base: true, Why: "build or coverage output"},
	{Pattern: "*~", Base: true, Why: "an editor's backup"},
	{Pattern: ".*.sw?", Base: true, Why: "an editor's swap file"},
	{Pattern: "*.orig", Base: true, Why: "a leftover of patch"},
	{Pattern: "*.rej", Base: true, Why: "a leftover of patch"},
	{Pattern: ".DS_Store", Base: true, Why: "a Finder file"},
	{Pattern: ".idea", Base: true, Why: "an editor's settings"},
	{Pattern: ".vscode", Base: true, Why: "an editor's settings"},
	{Pattern: ".*.course-tmp-*", Base: true, Why: "an interrupted course command's temporary directory"},
	{Pattern: "node_modules", Base: true, Why: "packages npm installed (npm ci installs them again from package-lock.json)"},

	// What students must not see, or what the release makes anew.
	{Pattern: ".git/", Why: "version control: its history holds the solutions"},
	{Pattern: ".ci/", Why: "the course's CI, which proves the solutions"},
	{Pattern: "solutions/", Why: "reference and alternative solutions, mutants, fuzz targets: replaced by an empty module"},
	{Pattern: "labs/*/" + lab.HiddenDir + "/", Why: "hidden tests: only grading runs them"},
	{Pattern: "docs/lab*-rules.md", Why: "names the hidden tests: made anew from the release's labs"},
	{Pattern: "docs/grading.md", Why: "instructors': grading a class, output formats, threat model; names a hidden test"},
	{Pattern: "docs/selfcheck.md", Why: "instructors': proving the tests with the solutions and mutants"},
	{Pattern: "docs/performance.md", Why: "instructors': measures the reference solution and the grader"},
	{Pattern: "docs/instructors.md", Why: "instructors' guide"},
	{Pattern: "docs/release.md", Why: "instructors': how this release is made"},
	{Pattern: "docs/authoring.md", Why: "instructors': what makes a lab, with its solutions and mutants"},
	{Pattern: "cmd/course/internal/cli/testdata/golden/", Why: "saved grading reports that name hidden tests: the report formats' golden files"},

	// What students need.
	{Pattern: "go.mod", Keep: true, Why: "the course module"},
	{Pattern: "go.sum", Keep: true, Why: "the course module"},
	{Pattern: "README.md", Keep: true, Why: "the course's introduction (with a note on the release)"},
	{Pattern: ".gitignore", Keep: true, Why: "ignores what the tool and the tests write"},
	{Pattern: "LICENSE*", Keep: true, Why: "the licence"},
	{Pattern: "cmd/", Keep: true, Why: "the course tool"},
	{Pattern: "grader/", Keep: true, Why: "the grading engine and the labs' model, which the tool is built from"},
	{Pattern: "labs/", Keep: true, Why: "lab templates: stubs, given code, public tests, handouts, hints"},
	{Pattern: "docs/guide/", Keep: true, Why: "the students' guides"},
}

// notListed is why a path that no rule matches is left out.
const notListed = "not on the release's list (grader/release.Rules)"

// Rules returns the list that decides what a release holds, in order.
func Rules() []Rule { return slices.Clone(rules) }

// match reports whether r matches rel, a slash-separated path.
func (r Rule) match(rel string) bool {
	if r.Base {
		ok, _ := path.Match(r.Pattern, path.Base(rel))
		return ok
	}
	pat := strings.TrimSuffix(r.Pattern, "/")
	isDirPattern := pat != r.Pattern
	n := strings.Count(pat, "/") + 1
	segs := strings.Split(rel, "/")
	if len(segs) < n || (!isDirPattern && len(segs) != n) {
		return false
	}
	ok, _ := path.Match(pat, strings.Join(segs[:n], "/"))
	return ok
}

// leadsToKept reports whether a Keep rule names something inside dir.
func leadsToKept(dir string) bool {
	segs := strings.Split(dir, "/")
	for _, r := range rules {
		if !r.Keep || r.Base {
			continue
		}
		psegs := strings.Split(strings.TrimSuffix(r.Pattern, "/"), "/")
		if len(psegs) <= len(segs) {
			continue
		}
		if ok, _ := path.Match(strings.Join(psegs[:len(segs)], "/"), dir); ok {
			return true
		}
	}
	return false
}

// decide returns the rule for rel, or false if none matches.
func decide(rel string) (Rule, bool) {
	for _, r := range rules {
		if r.match(rel) {
			return r, true
		}
	}
	return Rule{}, false
}

// LeftOut is a path of the source that a release does not copy. For a
// directory it stands for everything in it.
type LeftOut struct {
	Path string // slash-separated, relative to the source; a directory ends in "/"
	Why  string
}

// Result describes a release that Make wrote.
type Result struct {
	Source string
	Dir    string
	// Files lists every file of the release, slash-separated, sorted.
	Files []string
	// Generated lists the files made for the release rather than copied.
	Generated []string
	// LeftOut lists what was not copied, in walk order.
	LeftOut []LeftOut
}

// Errors of the source tree; a *SourceError wraps one.
var (
	// ErrNotCourse: the directory is not the root of the course's source.
	ErrNotCourse = errors.New("not the course's source tree (no go.mod declaring " + courseroot.ModulePath + ")")
	// ErrSourceIsRelease: the source is itself a student release.
	ErrSourceIsRelease = errors.New("is a student release (it has a " + Marker + " file), not the course's source")
	// ErrTargetInSource refuses a release inside the source tree, which
	// Make never writes to.
	ErrTargetInSource = errors.New("is inside the course's source tree; name a directory outside it")
)

// SourceError reports a source directory Make cannot make a release of.
type SourceError struct {
	Path string
	Err  error
}

func (e *SourceError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *SourceError) Unwrap() error { return e.Err }

// FindSource returns the course's source root: start or the nearest of its
// parents whose go.mod declares the course's module (courseroot.Find).
func FindSource(start string) (string, error) {
	root, err := courseroot.Find(start)
	if err != nil {
		return "", &SourceError{Path: start, Err: fmt.Errorf("neither it nor a parent directory is the course's source tree (no go.mod declaring %s)", courseroot.ModulePath)}
	}
	return root, nil
}

// InRelease reports whether start lies in a student release: whether the
// course root found from it (see FindSource) holds the Marker file.
func InRelease(start string) bool {
	root, err := FindSource(start)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(root, Marker))
	return err == nil
}

// Make writes a student release of the course source tree at source into
// dir. dir must not exist (its parent must) or be an empty directory, and
// must lie outside source; otherwise a *lab.TargetError is returned and
// nothing is touched. A source that is not the course root, or is itself a
// release, is a *SourceError. The release is built in a temporary directory
// beside dir and renamed into place once complete and scanned (see Scan): if
// the scan finds anything a student must not see, Make returns a *LeakError
// and writes nothing. The source tree is only read.
func Make(source, dir string) (*Result, error) {
	src, err := filepath.Abs(source)
	if err != nil {
		return nil, &SourceError{Path: source, Err: err}
	}
	if courseroot.Check(src) != nil {
		return nil, &SourceError{Path: source, Err: ErrNotCourse}
	}
	if _, err := os.Stat(filepath.Join(src, Marker)); err == nil {
		return nil, &SourceError{Path: source, Err: ErrSourceIsRelease}
	}
	if inside, err := within(dir, src); err != nil {
		return nil, &lab.TargetError{Path: dir, Err: err}
	} else if inside {
		return nil, &lab.TargetError{Path: dir, Err: ErrTargetInSource}
	}
	secrets, err := LoadSecrets(src)
	if err != nil {
		return nil, err
	}
	res := &Result{Source: src, Dir: dir}
	err = lab.WriteDirAtomic(dir, func(tmp string) error {
		if err := copyTree(src, tmp, res); err != nil {
			return err
		}
		if err := generate(src, tmp, res); err != nil {
			return err
		}
		if err := fixMarkdown(tmp); err != nil {
			return err
		}
		leaks, err := secrets.Scan(tmp)
		if err != nil {
			return err
		}
		if len(leaks) > 0 {
			return &LeakError{Leaks: leaks}
		}
		res.Files, err = listFiles(tmp)
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(res.Generated)
	return res, nil
}

// within reports whether dir (which may not exist yet) is root or lies
// inside it, symbolic links resolved.
func within(dir, root string) (bool, error) {
	if dir == "" {
		return false, nil // the target check reports it
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	// dir may not exist: resolve its nearest existing ancestor.
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			abs = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false, err
	}
	rel, err := filepath.Rel(realRoot, abs)
	if err != nil {
		return false, nil // another volume
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))), nil
}

// Modes of everything written, as lab writes workspaces.
const (
	fileMode fs.FileMode = 0o644
	execMode fs.FileMode = 0o755
	dirMode  fs.FileMode = 0o755
)

// copyTree copies from src into tmp what the rules keep.
func copyTree(src, tmp string, res *Result) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		r, matched := decide(rel)
		switch {
		case matched && !r.Keep, !matched && !(d.IsDir() && leadsToKept(rel)):
			why := r.Why
			if !matched {
				why = notListed
			}
			shown := rel
			if d.IsDir() {
				shown += "/"
			}
			res.LeftOut = append(res.LeftOut, LeftOut{Path: shown, Why: why})
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir():
			return mkdir(filepath.Join(tmp, filepath.FromSlash(rel)))
		case !d.Type().IsRegular():
			res.LeftOut = append(res.LeftOut, LeftOut{Path: rel, Why: "not a regular file (a symbolic link is never followed)"})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fileMode
		if info.Mode()&0o111 != 0 {
			mode = execMode
		}
		return writeFile(tmp, rel, data, mode)
	})
}

func mkdir(p string) error {
	if err := os.MkdirAll(p, dirMode); err != nil {
		return err
	}
	return os.Chmod(p, dirMode)
}

// writeFile writes data as rel (slash-separated) under root.
func writeFile(root, rel string, data []byte, mode fs.FileMode) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := mkdir(filepath.Dir(p)); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		return err
	}
	return os.Chmod(p, mode)
}

// solutionsGo is the release's solutions/solutions.go: no files embedded.
const solutionsGo = `// Package solutions is empty in a student release of the course: the
// reference solutions, alternative solutions, mutants and fuzz targets are
// left out on purpose (see README.md). FS holds no files, so the course
// tool builds as ever, lab.Solution reports lab.ErrNoSolution and
// ` + "`course selfcheck`" + ` says that it needs the full course.
package solutions

import "embed"

// FS holds no files in a student release.
var FS embed.FS
`

const solutionsReadme = `# solutions: empty on purpose

This is a student release of the course, made by ` + "`course release`" + `. The full course keeps its reference
solutions here, with alternative solutions, mutants and fuzz targets; a release leaves them all out, so
that working through the labs is yours to do.

The module stays, with the same path and an empty ` + "`FS`" + `, only so that the course tool builds.
`

// generate writes the files made for the release: the empty solutions
// module, the rule tables of its own labs, the marker.
func generate(src, tmp string, res *Result) error {
	add := func(rel string, data []byte) error {
		res.Generated = append(res.Generated, rel)
		return writeFile(tmp, rel, data, fileMode)
	}

	// solutions/: same module path and go version, no requirements, no files.
	solMod := filepath.Join(src, "solutions", "go.mod")
	data, err := os.ReadFile(solMod)
	if err != nil {
		return &SourceError{Path: src, Err: fmt.Errorf("the solutions module: %w", err)}
	}
	mf, err := modfile.ParseLax(solMod, data, nil)
	if err != nil {
		return &SourceError{Path: src, Err: err}
	}
	if mf.Module == nil {
		return &SourceError{Path: src, Err: errors.New("solutions/go.mod declares no module")}
	}
	goMod := "module " + modfile.AutoQuote(mf.Module.Mod.Path) + "\n"
	if mf.Go != nil {
		goMod += "\ngo " + mf.Go.Version + "\n"
	}
	goSrc, err := format.Source([]byte(solutionsGo))
	if err != nil {
		return err
	}
	for _, f := range []struct {
		rel  string
		data []byte
	}{{"solutions/go.mod", []byte(goMod)}, {"solutions/solutions.go", goSrc}, {"solutions/README.md", []byte(solutionsReadme)}} {
		if err := add(f.rel, f.data); err != nil {
			return err
		}
	}

	// docs/lab<chapter>-rules.md from the release's own labs: the hidden
	// column says "none" everywhere, as no hidden test is there.
	cat, err := lab.LoadFS(os.DirFS(filepath.Join(tmp, "labs")), os.DirFS(filepath.Join(tmp, "solutions")))
	if err != nil {
		return fmt.Errorf("the release's labs: %w", err)
	}
	for _, l := range cat.Labs() {
		table, err := l.RuleTable()
		if err != nil {
			return fmt.Errorf("the release's labs: %w", err)
		}
		if err := add("docs/lab"+l.Chapter+"-rules.md", []byte(table)); err != nil {
			return err
		}
	}

	var marker bytes.Buffer
	marker.WriteString(markerText)
	tw := tabwriter.NewWriter(&marker, 0, 0, 2, ' ', 0)
	for _, lo := range res.LeftOut {
		fmt.Fprintf(tw, "  %s\t%s\n", lo.Path, lo.Why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return add(Marker, marker.Bytes())
}

const markerText = `Student release of the course ` + courseroot.ModulePath + `, made by ` + "`course release`" + `.

It holds no reference solutions (solutions/ is an empty module), no hidden
tests, no mutants and no instructors' documents. This file marks the tree as
a release: tests that need the reference solution skip here instead of
failing, ` + "`course selfcheck`" + ` says it needs the full course, and ` + "`course release`" + `
refuses to make a release of a release. Keep it.

Left out of the course's source tree:
`

// releaseNote goes under the title of the release's README.md.
const releaseNote = `> **Student release.** This copy of the course has the ` + "`course`" + ` tool, the lab templates with their public
> tests, the handouts, hints and guides, and none of the reference solutions, hidden tests, mutants or
> instructors' documents: ` + "`solutions/`" + ` is empty on purpose. ` + "`course practice`" + ` works as below, ` + "`course grade`" + `
> runs the public tests only, and ` + "`course selfcheck`" + ` needs the full course. ` + "`RELEASE`" + ` lists what was left out.
`

// mdLink is a Markdown inline link or image: [text](target).
var mdLink = regexp.MustCompile(`(!?)\[([^\]\n]*)\]\(([^)\s]+)\)`)

// fixMarkdown adds the release note to README.md and, in every Markdown
// file, turns a link to a file the release does not have into plain text.
func fixMarkdown(tmp string) error {
	return filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return err
		}
		rel, err := filepath.Rel(tmp, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := mdLink.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := mdLink.FindSubmatch(m)
			target := string(sub[3])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				return m
			}
			file, _, _ := strings.Cut(target, "#")
			file, _, _ = strings.Cut(file, "?")
			to := path.Join(path.Dir(rel), file)
			if !strings.HasPrefix(to, "../") && to != ".." {
				if _, err := os.Stat(filepath.Join(tmp, filepath.FromSlash(to))); err == nil {
					return m
				}
			}
			return sub[2] // the text alone: the target is not in the release
		})
		if rel == "README.md" {
			out = withNote(out)
		}
		if bytes.Equal(out, data) {
			return nil
		}
		return writeFile(tmp, rel, out, fileMode)
	})
}

// withNote puts releaseNote after the first line of readme when that is a
// title, else first.
func withNote(readme []byte) []byte {
	if title, rest, ok := bytes.Cut(readme, []byte("\n")); ok && bytes.HasPrefix(title, []byte("# ")) {
		return slices.Concat(title, []byte("\n\n"+releaseNote), rest)
	}
	return slices.Concat([]byte(releaseNote+"\n"), readme)
}

// listFiles returns every file under root, slash-separated, sorted.
func listFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	sort.Strings(out)
	return out, err
}
