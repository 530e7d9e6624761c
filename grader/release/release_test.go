package release_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/internal/offline"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release"
	"github.com/coursekit/course/grader/release/releasetest"
)

// These tests make releases of a copy of the course source (so that
// concurrent edits cannot disturb them, and so that the copy can be checked
// untouched). In a release there is no source to release: they skip.

func source(t *testing.T) string {
	t.Helper()
	releasetest.SkipInRelease(t, "a release is not a source to make a release of")
	return releasetest.CopySource(t)
}

// files returns every regular file under dir, slash-separated, with content.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	}))
	return out
}

// treeHash sums every path, mode and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, info.Mode(), info.Size())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			h.Write(b)
			return err
		}
		return nil
	}))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// collapse squeezes every run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// comparable returns a file's text as the body search sees it: Go printed
// again without comments, everything with white space collapsed.
func comparable(name string, data []byte) string {
	if strings.HasSuffix(name, ".go") {
		fset := token.NewFileSet()
		if f, err := parser.ParseFile(fset, name, data, 0); err == nil {
			var b bytes.Buffer
			if printer.Fprint(&b, fset, f) == nil {
				return collapse(b.String())
			}
		}
	}
	return collapse(string(data))
}

// bodies returns, for every function of the Go file at p with more than
// three statements, its printed body with white space collapsed.
func bodies(t *testing.T, p string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := 0
		ast.Inspect(fn.Body, func(x ast.Node) bool {
			if _, ok := x.(ast.Stmt); ok {
				if _, block := x.(*ast.BlockStmt); !block {
					n++
				}
			}
			return true
		})
		if n <= 3 {
			continue
		}
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, fn.Body))
		out[fn.Name.Name] = collapse(b.String())
	}
	return out
}

// hiddenNames returns the name of every hidden test of every lab of src.
func hiddenNames(t *testing.T, src string) []string {
	t.Helper()
	cat, err := lab.LoadFS(os.DirFS(filepath.Join(src, "labs")), os.DirFS(filepath.Join(src, "solutions")))
	require.NoError(t, err)
	var names []string
	for _, l := range cat.Labs() {
		for _, e := range l.Exercises {
			names = append(names, l.HiddenTests(e.ID)...)
		}
	}
	return names
}

func TestMakeLeavesOutTheAnswers(t *testing.T) {
	src := source(t)
	before := treeHash(t, src)
	dir := filepath.Join(t.TempDir(), "student")
	res, err := release.Make(src, dir)
	require.NoError(t, err)
	assert.Equal(t, before, treeHash(t, src), "the source tree is only read")
	got := files(t, dir)
	var names []string
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.Equal(t, names, res.Files)

	// What students need is there: the tool, and every lab with its
	// stub, handout, manifest, public tests, rule table and guide.
	cat, err := lab.LoadFS(os.DirFS(filepath.Join(src, "labs")), os.DirFS(filepath.Join(src, "solutions")))
	require.NoError(t, err)
	require.NotEmpty(t, cat.Labs())
	want := []string{"go.mod", "go.sum", "README.md", ".gitignore", release.Marker,
		"cmd/course/main.go", "grader/grader.go", "grader/lab/lab.go", "labs/labs.go", "labs/go.mod",
		"labs/10-session/pathto_test.go"}
	generated := []string{release.Marker, "solutions/README.md", "solutions/go.mod", "solutions/solutions.go"}
	for _, l := range cat.Labs() {
		for _, e := range l.Editable {
			want = append(want, "labs/"+l.Slug+"/"+e)
		}
		rules := "docs/lab" + l.Chapter + "-rules.md"
		want = append(want, "labs/"+l.Slug+"/README.md", "labs/"+l.Slug+"/.meta/lab.json", rules, "docs/guide/lab"+l.Chapter+".md")
		generated = append(generated, rules) // made again from the public tests only
	}
	for _, w := range want {
		assert.Contains(t, got, w, "release.Make(%s): the release holds %s", src, w)
	}
	sort.Strings(generated)
	assert.Equal(t, generated, res.Generated, "release.Make(%s): the files it writes itself", src)
	assert.Contains(t, string(got["README.md"]), "**Student release.**")

	// What they must not see is not.
	for n := range got {
		assert.False(t, strings.HasPrefix(n, ".git/") || strings.HasPrefix(n, ".ci/"), n)
		assert.NotContains(t, n, "/"+lab.HiddenDir+"/")
		assert.NotContains(t, n, "mutants/")
		assert.NotContains(t, n, "alternatives/")
		assert.False(t, strings.HasSuffix(n, ".patch"), n)
		assert.False(t, strings.HasPrefix(n, "solutions/") && !strings.HasPrefix(n, "solutions/README.md") &&
			n != "solutions/go.mod" && n != "solutions/solutions.go", "solutions/ holds only the empty module: %s", n)
	}
	for _, gone := range []string{"docs/grading.md", "docs/selfcheck.md", "docs/performance.md", "docs/release.md", "docs/instructors.md", "docs/authoring.md"} {
		assert.NotContains(t, got, gone)
	}
	assert.Contains(t, string(got["solutions/solutions.go"]), "var FS embed.FS")
	assert.NotContains(t, string(got["solutions/solutions.go"]), "go:embed")

	// (1) No hidden test name anywhere, nor as a -run pattern.
	hidden := hiddenNames(t, src)
	require.NotEmpty(t, hidden, "the source has hidden tests to look for")
	// A private method of the reference solution (split so that this file
	// does not hold it).
	private := "func (s *JSONLSessionStore) " + "write("
	for name, data := range got {
		for _, h := range hidden {
			assert.False(t, strings.Contains(string(data), strings.TrimPrefix(h, "Test")), "%s names hidden test %s", name, h)
		}
		assert.False(t, strings.Contains(string(data), private), "%s holds %s", name, private)
	}

	// (1) No body of a function of the reference or an alternative
	// solution, nor of a hidden test, unless the lab's public files have it.
	var pub strings.Builder
	for n, data := range files(t, filepath.Join(src, "labs")) {
		if !strings.Contains(n, lab.HiddenDir+"/") {
			pub.WriteString(comparable(n, data) + "\n")
		}
	}
	public := pub.String()
	secret := map[string]string{} // body -> where
	solFiles, err := filepath.Glob(filepath.Join(src, "solutions", "*", "session.go"))
	require.NoError(t, err)
	alts, err := filepath.Glob(filepath.Join(src, "solutions", "*", "alternatives", "*", "session.go"))
	require.NoError(t, err)
	hiddenFiles, err := filepath.Glob(filepath.Join(src, "labs", "*", lab.HiddenDir, "*_test.go"))
	require.NoError(t, err)
	require.NotEmpty(t, solFiles)
	require.NotEmpty(t, alts)
	require.NotEmpty(t, hiddenFiles)
	for _, p := range append(append(solFiles, alts...), hiddenFiles...) {
		for fn, body := range bodies(t, p) {
			if !strings.Contains(public, body) {
				secret[body] = p + ": func " + fn
			}
		}
	}
	require.Greater(t, len(secret), 20, "function bodies to look for")
	for name, data := range got {
		text := comparable(name, data)
		for body, where := range secret {
			assert.False(t, strings.Contains(text, body), "%s holds the body of %s", name, where)
		}
	}

	// (1) Nor a mutant: its mistake or its hunks.
	patches, err := filepath.Glob(filepath.Join(src, "solutions", "*", "mutants", "*.patch"))
	require.NoError(t, err)
	require.NotEmpty(t, patches)
	collapsed := map[string]string{} // each released file, collapsed once
	for name, f := range got {
		collapsed[name] = collapse(string(f))
	}
	for _, p := range patches {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "Mistake: ") || strings.HasPrefix(line, "@@ ") {
				want := collapse(line)
				for name, text := range collapsed {
					assert.False(t, strings.Contains(text, want), "%s holds %s of %s", name, line, p)
				}
			}
		}
	}

	// The package's own scan agrees, and finds something to look for.
	secrets, err := release.LoadSecrets(src)
	require.NoError(t, err)
	n, frags := secrets.Len()
	assert.Equal(t, len(hidden), n)
	assert.Greater(t, frags, 100)
	leaks, err := secrets.Scan(dir)
	require.NoError(t, err)
	assert.Empty(t, leaks)

	// Every lab's rule table is the release's own: every hidden column empty.
	relCat, err := lab.LoadFS(os.DirFS(filepath.Join(dir, "labs")), os.DirFS(filepath.Join(dir, "solutions")))
	require.NoError(t, err)
	assert.Equal(t, cat.Chapters(), relCat.Chapters(), "the release has every lab")
	for _, l := range relCat.Labs() {
		table, err := l.RuleTable()
		require.NoError(t, err)
		doc := "docs/lab" + l.Chapter + "-rules.md"
		assert.Equal(t, table, string(got[doc]), "%s is the release's own rule table", doc)
		assert.Contains(t, table, "hidden tests of the same rules, which this copy of the course does not include")
		for _, line := range strings.Split(table, "\n") {
			if strings.HasPrefix(line, "| "+l.Chapter+".") {
				assert.NotContains(t, line, "Hidden", "%s: a rule with hidden tests: %s", doc, line)
				assert.Equal(t, 4, strings.Count(line, " | ")+2, "%s: a release's rule table has three columns: %s", doc, line)
			}
		}
		_, err = l.Solution()
		assert.ErrorIs(t, err, lab.ErrNoSolution, "lab %s of the release", l.Chapter)
	}

	// Links to files the release does not have are plain text now.
	assert.NotContains(t, string(got["README.md"]), "](docs/grading.md)")
	assert.Contains(t, string(got["README.md"]), "[docs/lab10-rules.md](docs/lab10-rules.md)")

	if runtime.GOOS != "windows" {
		for name := range got {
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
			require.NoError(t, err)
			assert.Zero(t, fi.Mode().Perm()&0o022, "%s is writable by others", name)
		}
	}
}

func TestMakeFailsClosedOnALeak(t *testing.T) {
	src := source(t)
	// A guide that quotes three statements of the reference solution, laid
	// out and commented anew, and a tool file that names a hidden test.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(src, "solutions", "10-session", "session.go"), nil, 0)
	require.NoError(t, err)
	var longest *ast.FuncDecl // the function with the most statements
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil && (longest == nil || len(fn.Body.List) > len(longest.Body.List)) {
			longest = fn
		}
	}
	require.NotNil(t, longest)
	require.GreaterOrEqual(t, len(longest.Body.List), 4)
	var b bytes.Buffer
	for i, st := range longest.Body.List[1:4] { // from the middle
		require.NoError(t, printer.Fprint(&b, fset, st))
		fmt.Fprintf(&b, "   // step %d\n\n", i+1)
	}
	quoted := b.String()
	hidden := hiddenNames(t, src)
	guide := filepath.Join(src, "docs", "guide", "spoiler.md")
	require.NoError(t, os.WriteFile(guide, []byte("# Spoiler\n\n```go\n"+quoted+"```\n"), 0o644))
	tool := filepath.Join(src, "cmd", "course", "spoiler.go")
	require.NoError(t, os.WriteFile(tool, []byte("package main\n\n// see go test -run "+strings.TrimPrefix(hidden[0], "Test")+"\n"), 0o644))

	parent := t.TempDir()
	_, err = release.Make(src, filepath.Join(parent, "student"))
	var le *release.LeakError
	require.ErrorAs(t, err, &le)
	var where []string
	for _, l := range le.Leaks {
		where = append(where, l.File)
	}
	assert.Contains(t, where, "docs/guide/spoiler.md")
	assert.Contains(t, where, "cmd/course/spoiler.go")
	assert.Contains(t, err.Error(), "nothing was written")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "neither the release nor its temporary directory is left")
}

func TestScanSparesThePublicLab(t *testing.T) {
	src := source(t)
	secrets, err := release.LoadSecrets(src)
	require.NoError(t, err)
	// A practice workspace holds the stub, the given code and the public
	// tests: nothing secret, even where the solution shares code with them.
	cat, err := lab.LoadFS(os.DirFS(filepath.Join(src, "labs")), os.DirFS(filepath.Join(src, "solutions")))
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		ws := filepath.Join(t.TempDir(), "ws")
		require.NoError(t, l.WriteWorkspace(ws))
		leaks, err := secrets.Scan(ws)
		require.NoError(t, err)
		assert.Empty(t, leaks, "lab %s", l.Chapter)
	}
	// And the solution itself is all secret.
	leaks, err := secrets.Scan(filepath.Join(src, "solutions"))
	require.NoError(t, err)
	assert.NotEmpty(t, leaks)
}

func TestMakeRefusesAndTouchesNothing(t *testing.T) {
	src := source(t)
	notCourse := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notCourse, "go.mod"), []byte("module example.com/other\n"), 0o644))
	aRelease := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(aRelease, "go.mod"), []byte("module "+courseroot.ModulePath+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(aRelease, release.Marker), []byte("x"), 0o644))

	for name, tc := range map[string]struct {
		source string
		target func(t *testing.T, parent string) string
		want   error
	}{
		"non-empty target": {src, func(t *testing.T, parent string) string {
			d := filepath.Join(parent, "full")
			require.NoError(t, os.Mkdir(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "keep"), []byte("mine"), 0o644))
			return d
		}, lab.ErrTargetNotEmpty},
		"target is a file": {src, func(t *testing.T, parent string) string {
			f := filepath.Join(parent, "file")
			require.NoError(t, os.WriteFile(f, []byte("mine"), 0o644))
			return f
		}, lab.ErrTargetNotDir},
		"target inside the source": {src, func(t *testing.T, parent string) string {
			return filepath.Join(src, "dist")
		}, release.ErrTargetInSource},
		"target is the source": {src, func(t *testing.T, parent string) string { return src }, release.ErrTargetInSource},
		"not the course":       {notCourse, func(t *testing.T, parent string) string { return filepath.Join(parent, "r") }, release.ErrNotCourse},
		"a release as source":  {aRelease, func(t *testing.T, parent string) string { return filepath.Join(parent, "r") }, release.ErrSourceIsRelease},
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := tc.target(t, parent)
			beforeSrc, beforeParent := treeHash(t, tc.source), treeHash(t, parent)
			_, err := release.Make(tc.source, target)
			require.ErrorIs(t, err, tc.want)
			var te *lab.TargetError
			var se *release.SourceError
			assert.True(t, errors.As(err, &te) || errors.As(err, &se), "typed error: %T", err)
			assert.Equal(t, beforeSrc, treeHash(t, tc.source), "source untouched")
			assert.Equal(t, beforeParent, treeHash(t, parent), "target's parent untouched")
		})
	}
}

func TestFindSourceAndInRelease(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+courseroot.ModulePath+"\n\ngo 1.24\n"), 0o644))
	deep := filepath.Join(root, "labs", "10-session")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	// A nested module on the way up is not the course.
	require.NoError(t, os.WriteFile(filepath.Join(root, "labs", "go.mod"), []byte("module "+courseroot.ModulePath+"/labs\n"), 0o644))

	got, err := release.FindSource(deep)
	require.NoError(t, err)
	want, _ := filepath.EvalSymlinks(root)
	gotReal, _ := filepath.EvalSymlinks(got)
	assert.Equal(t, want, gotReal)
	assert.False(t, release.InRelease(deep))
	require.NoError(t, os.WriteFile(filepath.Join(root, release.Marker), nil, 0o644))
	assert.True(t, release.InRelease(deep))

	_, err = release.FindSource(t.TempDir())
	var se *release.SourceError
	assert.ErrorAs(t, err, &se)
}

func TestSkipOnlyInARelease(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+courseroot.ModulePath+"\n"), 0o644))
	noSolution := fmt.Errorf("lab 10: %w: %w", lab.ErrNoSolution, fs.ErrNotExist)
	assert.False(t, releasetest.ShouldSkip(noSolution, root), "without the marker a missing solution fails")
	require.NoError(t, os.WriteFile(filepath.Join(root, release.Marker), nil, 0o644))
	assert.True(t, releasetest.ShouldSkip(noSolution, root))
	assert.False(t, releasetest.ShouldSkip(errors.New("disk on fire"), root), "only a missing solution skips")

	// Here, in the course itself, a missing solution is a failure.
	wd, err := os.Getwd()
	require.NoError(t, err)
	if !release.InRelease(wd) {
		assert.False(t, releasetest.ShouldSkip(noSolution, wd))
	}
}

// goCmd runs the go command in dir offline, as a student without network
// would, and returns its exit status and output. It builds with -trimpath:
// the release's packages are the course's own, in another directory, and
// so come from the build cache after the first run.
func goCmd(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	return offline.RunEnv(t, 8*time.Minute, dir, offline.Env("GOFLAGS=-mod=mod -trimpath"), "go", args...)
}

// tail returns the end of out, enough to see why something failed.
func tail(out string) string {
	if len(out) > 6000 {
		return "…" + out[len(out)-6000:]
	}
	return out
}

func TestReleaseBuildsTestsAndPractises(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds, vets and tests a whole release")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	src := source(t)
	dir := filepath.Join(t.TempDir(), "student")
	_, err := release.Make(src, dir)
	require.NoError(t, err)

	// (2) It builds and vets.
	if code, out := goCmd(t, dir, "build", "./..."); code != 0 {
		t.Fatalf("go build ./... in the release: exit %d\n%s", code, tail(out))
	}
	if code, out := goCmd(t, dir, "vet", "./..."); code != 0 {
		t.Fatalf("go vet ./... in the release: exit %d\n%s", code, tail(out))
	}
	// (3) Its own tests pass; those that need the solution skip, saying why.
	if code, out := goCmd(t, dir, "test", "-short", "./..."); code != 0 {
		t.Fatalf("go test -short ./... in the release: exit %d\n%s", code, tail(out))
	}
	code, out := goCmd(t, dir, "test", "-short", "-v", "-count=1", "-run", "^(TestMutantsApply|TestSolution|TestGradeCancelledIsAnErrorNotAVerdict)$", "./grader/...")
	require.Equal(t, 0, code, tail(out))
	for _, skipped := range []string{"TestMutantsApply", "TestSolution", "TestGradeCancelledIsAnErrorNotAVerdict"} {
		assert.Contains(t, out, "--- SKIP: "+skipped, tail(out))
	}
	assert.Contains(t, out, "student release: no reference solution")

	// (4) course practice works from it for every lab, and the workspace's
	// tests run (and fail on the stub).
	tool := filepath.Join(t.TempDir(), "course")
	code, out = goCmd(t, dir, "build", "-o", tool, "./cmd/course")
	require.Equal(t, 0, code, tail(out))
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		ws := filepath.Join(t.TempDir(), "mylab")
		cmd := exec.Command(tool, "practice", l.Chapter, ws)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "course practice %s in the release\n%s", l.Chapter, b)
		first := l.Exercises[0]
		run := strings.TrimSuffix(strings.TrimPrefix(first.TestPrefix, "Test"), "_")
		code, out = goCmd(t, ws, "test", "-run", run)
		assert.Equal(t, 1, code, "go test -run %s on the stub of lab %s\n%s", run, l.Chapter, tail(out))
		assert.Contains(t, out, "--- FAIL: "+first.TestPrefix, "go test -run %s on the stub of lab %s", run, l.Chapter)
		assert.NotContains(t, out, "[build failed]", "go test -run %s on the stub of lab %s", run, l.Chapter)
	}

	// course selfcheck says it is not for a release; course release refuses
	// one. (Built, as go run would turn their exit status 2 into 1.)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"selfcheck"}, "not available in a student release"},
		{[]string{"release", filepath.Join(t.TempDir(), "again")}, "is a student release"},
	} {
		cmd := exec.Command(tool, c.args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "course %v", c.args)
		assert.Equal(t, 2, ee.ExitCode(), "course %v\n%s", c.args, out)
		assert.Contains(t, string(out), c.want)
	}

	// Without the marker, the same tests fail: the skip is the release's
	// alone, and a course that lost its solution is not excused.
	require.NoError(t, os.Remove(filepath.Join(dir, release.Marker)))
	code, out = goCmd(t, dir, "test", "-short", "-count=1", "-run", "^TestMutantsApply$", "./grader/selfcheck")
	assert.Equal(t, 1, code, tail(out))
	assert.Contains(t, out, "--- FAIL: TestMutantsApply")
	assert.Contains(t, out, lab.ErrNoSolution.Error())
}
