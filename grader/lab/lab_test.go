package lab_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
)

const fixtureManifest = `{
  "chapter": "7",
  "slug": "07-demo",
  "title": "Demo",
  "package": "demo",
  "module": "lab7",
  "editable": ["demo.go"],
  "exercises": [
    {"id": "7.1", "name": "One", "test_prefix": "TestLab7_1_", "points": 10},
    {"id": "7.2", "name": "Two", "test_prefix": "TestLab7_2_", "points": 20}
  ]
}`

const fixtureTests = `package demo

import (
	"testing"
	tt "testing"
)

func TestLab7_1_First(t *testing.T)  {}
func TestLab7_2_Second(t *tt.T)      {}
func TestLab7_1_Third(t *testing.T)  {}
func TestMain(m *testing.M)          {}
func Testhelper(t *testing.T)        {} // lower case after Test: not a test
func TestLab7_1_NoArgs()             {}
func BenchmarkLab7_1_X(b *testing.B) {}
func TestStray(t *testing.T)         {}
func helper(t *testing.T)            {}

type s struct{}

func (s) TestLab7_1_Method(t *testing.T) {}
`

// fixtureFS returns a labs module holding the small lab 7, and its solutions.
func fixtureFS() (labsFS, solFS fstest.MapFS) {
	labsFS = fstest.MapFS{
		"go.mod":                           {Data: []byte("module github.com/coursekit/course/labs\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.12.1\n")},
		"go.sum":                           {Data: []byte("github.com/stretchr/testify v1.12.1 h1:x=\n")},
		"07-demo/.meta/lab.json":           {Data: []byte(fixtureManifest)},
		"07-demo/.meta/notes.md":           {Data: []byte("for the tool only")},
		"07-demo/demo.go":                  {Data: []byte("package demo\n\n// stub\n")},
		"07-demo/README.md":                {Data: []byte("# Demo\n")},
		"07-demo/sub/data.txt":             {Data: []byte("nested\n")},
		"07-demo/demo_test.go":             {Data: []byte(fixtureTests)},
		"07-demo/_ignored_test.go":         {Data: []byte("package demo\n\nfunc TestLab7_1_Ignored(t *testing.T) {}\n")},
		"07-demo/.hidden/README.md":        {Data: []byte("hidden")},
		"07-demo/.hidden/hidden_test.go":   {Data: []byte("package demo\n\nimport \"testing\"\n\nfunc TestLab7_2_HiddenA(t *testing.T) {}\nfunc TestLab7_1_HiddenB(t *testing.T) {}\n")},
		"notalab/readme.txt":               {Data: []byte("no manifest here")},
		"07-demo/.hidden/sub/deep_test.go": {Data: []byte("package demo\n")},
	}
	solFS = fstest.MapFS{"07-demo/demo.go": {Data: []byte("package demo\n\n// solved\n")}}
	return labsFS, solFS
}

func fixtureLab(t *testing.T) *lab.Lab {
	t.Helper()
	labsFS, solFS := fixtureFS()
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	l, err := c.Lookup("7")
	require.NoError(t, err)
	return l
}

// TestLoadReadsTheEmbeddedLabs holds every lab directory to the course's
// conventions (docs/authoring.md): a lab is a directory NN-slug of the labs
// module with a manifest, and nothing else makes one.
func TestLoadReadsTheEmbeddedLabs(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	dirs, err := fs.ReadDir(labs.FS, ".")
	require.NoError(t, err)
	var want []string // the chapters of the directories, as they sort
	for _, d := range dirs {
		if _, err := fs.Stat(labs.FS, path.Join(d.Name(), lab.ManifestPath)); err == nil {
			l := lookupSlug(t, c, d.Name())
			want = append(want, l.Chapter)
		}
	}
	require.NotEmpty(t, want, "the labs module holds labs")
	sort.Slice(want, func(i, j int) bool {
		return len(want[i]) < len(want[j]) || len(want[i]) == len(want[j]) && want[i] < want[j]
	})
	assert.Equal(t, want, c.Chapters(), "every lab directory, by chapter in numeric order")
	require.Len(t, c.Labs(), len(want))

	packages := map[string]string{} // editable files and package -> chapter
	for _, l := range c.Labs() {
		assert.Regexp(t, `^0*`+regexp.QuoteMeta(l.Chapter)+`-[a-z0-9]+$`, l.Slug, "lab %s: its directory is NN-slug, NN its chapter", l.Chapter)
		assert.Equal(t, "github.com/coursekit/course/labs/"+l.Slug, l.Module,
			"lab %s: the workspace's module path is the lab's package path in the labs module, so that "+
				"a cmd/ program in it imports the lab the same way in both", l.Chapter)
		key := strings.Join(l.Editable, ",") + " in package " + l.Package
		if other, ok := packages[key]; ok {
			t.Errorf("labs %s and %s both have students edit %s: course grade tells labs apart by their files and package", other, l.Chapter, key)
		}
		packages[key] = l.Chapter
		require.NotEmpty(t, l.Editable)
		total := 0
		for i, e := range l.Exercises {
			n := strconv.Itoa(i + 1)
			assert.Equal(t, l.Chapter+"."+n, e.ID, "lab %s: exercises are numbered in order", l.Chapter)
			assert.Equal(t, "TestLab"+l.Chapter+"_"+n+"_", e.TestPrefix, "lab %s: the test prefix of %s", l.Chapter, e.ID)
			assert.NotEmpty(t, e.Name)
			if !e.Bonus {
				total += e.Points
			}
		}
		assert.Equal(t, 100, total, "lab %s: the points of the exercises graded by default", l.Chapter)
		for i, e := range l.Exercises {
			if e.Bonus {
				for _, later := range l.Exercises[i:] {
					assert.True(t, later.Bonus, "lab %s: a bonus exercise comes after every graded one (%s)", l.Chapter, later.ID)
				}
			}
		}
		ex, err := l.Exercise(l.Exercises[0].ID)
		require.NoError(t, err)
		assert.Equal(t, l.Exercises[0], ex)
	}
}

// lookupSlug returns the lab of c in directory slug.
func lookupSlug(t *testing.T, c *lab.Catalog, slug string) *lab.Lab {
	t.Helper()
	for _, l := range c.Labs() {
		if l.Slug == slug {
			return l
		}
	}
	t.Fatalf("labs/%s holds a manifest but is not in the catalog", slug)
	return nil
}

func TestLookupUnknownChapter(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	_, err = c.Lookup("999")
	var uc *lab.UnknownChapterError
	require.ErrorAs(t, err, &uc)
	assert.Equal(t, "999", uc.Chapter)
	assert.Equal(t, c.Chapters(), uc.Known)
	assert.EqualError(t, err, `unknown chapter "999" (known: `+strings.Join(c.Chapters(), ", ")+`)`)
}

func TestByPackageTellsTheLabOfASource(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	for _, l := range c.Labs() {
		stub, err := l.Stub()
		require.NoError(t, err)
		pkg, err := lab.PackageName(stub)
		require.NoError(t, err)
		assert.Equal(t, l.Package, pkg, "lab %s: the stub is in the manifest's package", l.Chapter)
		assert.Equal(t, []*lab.Lab{l}, c.ByPackage(l.Editable, pkg), "lab %s", l.Chapter)
		assert.Empty(t, c.ByPackage([]string{"other.go"}, pkg), "another editable file is another lab")
		for _, e := range l.Editable {
			assert.Contains(t, c.EditableNames(), e)
		}
	}
	_, err = lab.PackageName([]byte("// no clause\n"))
	assert.Error(t, err)
}

func TestExerciseUnknown(t *testing.T) {
	l := fixtureLab(t)
	_, err := l.Exercise("7.9")
	var ue *lab.UnknownExerciseError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"7.1", "7.2"}, ue.Known)
	assert.EqualError(t, err, `chapter 7 has no exercise "7.9" (known: 7.1, 7.2)`)
	assert.Nil(t, l.PublicTests("7.9"))
	assert.Nil(t, l.HiddenTests("7.9"))
}

func TestTestsComeFromTheSources(t *testing.T) {
	l := fixtureLab(t)
	assert.Equal(t, []string{"TestLab7_1_First", "TestLab7_1_Third"}, l.PublicTests("7.1"))
	assert.Equal(t, []string{"TestLab7_2_Second"}, l.PublicTests("7.2"), "an aliased testing import still counts")
	assert.Equal(t, []string{"TestLab7_1_HiddenB"}, l.HiddenTests("7.1"))
	assert.Equal(t, []string{"TestLab7_2_HiddenA"}, l.HiddenTests("7.2"))
	assert.Equal(t, []string{"TestStray"}, l.UngroupedTests())

	ex, ok := l.ExerciseOf("TestLab7_2_HiddenA")
	assert.True(t, ok)
	assert.Equal(t, "7.2", ex.ID)
}

func TestLoadChaptersInNumericOrder(t *testing.T) {
	labsFS, solFS := fixtureFS()
	for _, ch := range []string{"9", "10", "2"} {
		slug := "lab-" + ch
		m := strings.NewReplacer(`"chapter": "7"`, `"chapter": "`+ch+`"`, `"slug": "07-demo"`, `"slug": "`+slug+`"`).Replace(fixtureManifest)
		labsFS[slug+"/.meta/lab.json"] = &fstest.MapFile{Data: []byte(m)}
	}
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	assert.Equal(t, []string{"2", "7", "9", "10"}, c.Chapters())
}

func TestLoadRejectsBrokenLabs(t *testing.T) {
	edit := func(old, new string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			m["07-demo/.meta/lab.json"].Data = []byte(strings.Replace(fixtureManifest, old, new, 1))
		}
	}
	for name, tc := range map[string]struct {
		change func(fstest.MapFS)
		want   string
	}{
		"unknown key":       {edit(`"title"`, `"titel"`), `labs/07-demo/.meta/lab.json: json: unknown field "titel"`},
		"bad json":          {edit(`{`, `[`), "labs/07-demo/.meta/lab.json: invalid character"},
		"slug mismatch":     {edit(`"slug": "07-demo"`, `"slug": "7-demo"`), `slug "7-demo" differs from its directory "07-demo"`},
		"repeated exercise": {edit(`"id": "7.2"`, `"id": "7.1"`), `exercise id "7.1" is empty or repeated`},
		"prefix overlap":    {edit(`"TestLab7_2_"`, `"TestLab7_1_X"`), `exercise 7.2: test_prefix "TestLab7_1_X" starts with 7.1's "TestLab7_1_"`},
		"prefix not a test": {edit(`"TestLab7_2_"`, `"Lab7_2_"`), `exercise 7.2: test_prefix "Lab7_2_" does not name tests`},
		"bad module":        {edit(`"lab7"`, `"lab 7"`), `module "lab 7"`},
		"editable escapes":  {edit(`"demo.go"`, `"../demo.go"`), `editable file "../demo.go" is not a plain path in the lab`},
		"only bonus exercises": {func(m fstest.MapFS) {
			m["07-demo/.meta/lab.json"].Data = []byte(strings.ReplaceAll(fixtureManifest, `0}`, `0, "bonus": true}`))
		}, "every exercise is a bonus: nothing would be graded by default"},
		"no exercises": {func(m fstest.MapFS) {
			m["07-demo/.meta/lab.json"].Data = []byte(`{"chapter":"7","slug":"07-demo","package":"demo","module":"lab7","editable":["demo.go"],"exercises":[]}`)
		}, "labs/07-demo/.meta/lab.json: no exercises"},
		"hidden name clash": {func(m fstest.MapFS) {
			m["07-demo/.hidden/demo_test.go"] = &fstest.MapFile{Data: []byte("package demo\n")}
		}, "labs/07-demo/.hidden/demo_test.go: hidden test file has the name of a public one"},
		"test does not parse": {func(m fstest.MapFS) {
			m["07-demo/broken_test.go"] = &fstest.MapFile{Data: []byte("package demo\n\nfunc {\n")}
		}, "07-demo/broken_test.go:3:6"},
		"same chapter twice": {func(m fstest.MapFS) {
			m["07-again/.meta/lab.json"] = &fstest.MapFile{Data: []byte(strings.Replace(fixtureManifest, `"slug": "07-demo"`, `"slug": "07-again"`, 1))}
		}, `labs/07-demo/.meta/lab.json: chapter "7" is also lab 07-again`},
		"bad go.mod": {func(m fstest.MapFS) {
			m["go.mod"].Data = []byte("modul x\n")
		}, "labs/go.mod:1"},
	} {
		t.Run(name, func(t *testing.T) {
			labsFS, solFS := fixtureFS()
			tc.change(labsFS)
			_, err := lab.LoadFS(labsFS, solFS)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestManifestErrorIsTyped(t *testing.T) {
	labsFS, solFS := fixtureFS()
	labsFS["07-demo/.meta/lab.json"].Data = []byte(`{"chapter": ""}`)
	_, err := lab.LoadFS(labsFS, solFS)
	var me *lab.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "07-demo/.meta/lab.json", me.Path)
}

// tree returns every file under dir, slash-separated, with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	require.NoError(t, err)
	return out
}

func TestWriteWorkspaceOfLab10(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "mylab")
	require.NoError(t, l.WriteWorkspace(dir))

	got := tree(t, dir)
	// Every file of labs/10-session except .meta and .hidden, byte for byte.
	want := map[string]string{}
	require.NoError(t, fs.WalkDir(labs.FS, "10-session", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".meta" || d.Name() == ".hidden") {
			return fs.SkipDir
		}
		if !d.IsDir() {
			b, err := fs.ReadFile(labs.FS, p)
			want[strings.TrimPrefix(p, "10-session/")] = string(b)
			return err
		}
		return nil
	}))
	labsSum, err := fs.ReadFile(labs.FS, "go.sum")
	require.NoError(t, err)
	want["go.sum"] = string(labsSum)
	want[".course/workspace.json"] = `{"chapter":"10","slug":"10-session"}` + "\n"
	want["go.mod"] = got["go.mod"] // checked below
	assert.Equal(t, want, got)
	assert.Contains(t, got, "session.go")

	// go.mod: the labs module's requirements under the manifest's name.
	labsMod, err := fs.ReadFile(labs.FS, "go.mod")
	require.NoError(t, err)
	lm, err := modfile.Parse("labs/go.mod", labsMod, nil)
	require.NoError(t, err)
	wm, err := modfile.Parse("go.mod", []byte(got["go.mod"]), nil)
	require.NoError(t, err)
	assert.Equal(t, "github.com/coursekit/course/labs/10-session", wm.Module.Mod.Path)
	assert.Equal(t, lm.Go.Version, wm.Go.Version)
	require.Equal(t, len(lm.Require), len(wm.Require))
	for i := range lm.Require {
		assert.Equal(t, lm.Require[i].Mod, wm.Require[i].Mod)
		assert.Equal(t, lm.Require[i].Indirect, wm.Require[i].Indirect)
	}

	info, err := lab.ReadWorkspaceInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, lab.WorkspaceInfo{Chapter: "10", Slug: "10-session"}, info)

	if runtime.GOOS != "windows" {
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			require.NoError(t, err)
			fi, err := d.Info()
			require.NoError(t, err)
			want := fs.FileMode(0o644)
			if d.IsDir() {
				want = 0o755
			}
			assert.Equal(t, want, fi.Mode().Perm(), p)
			return nil
		}))
	}
	assertNoLeftovers(t, filepath.Dir(dir), "mylab")
}

// assertNoLeftovers checks that parent holds nothing but the names given.
func assertNoLeftovers(t *testing.T, parent string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(names)
	assert.Equal(t, names, got, "files in %s", parent)
}

func TestWriteWorkspaceSkipsToolFiles(t *testing.T) {
	l := fixtureLab(t)
	dir := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, l.WriteWorkspace(dir))
	got := tree(t, dir)
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{".course/workspace.json", "README.md", "_ignored_test.go", "demo.go", "demo_test.go", "go.mod", "go.sum", "sub/data.txt"}, keys)
	assert.Equal(t, "module lab7\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.12.1\n", got["go.mod"])
	assert.Equal(t, "package demo\n\n// stub\n", got["demo.go"])
}

func TestWriteWorkspaceIntoEmptyDir(t *testing.T) {
	l := fixtureLab(t)
	dir := t.TempDir()
	require.NoError(t, l.WriteWorkspace(dir))
	assert.FileExists(t, filepath.Join(dir, "demo.go"))
	assertNoLeftovers(t, filepath.Dir(dir), filepath.Base(dir))
}

func TestWriteWorkspaceRefusesAndTouchesNothing(t *testing.T) {
	l := fixtureLab(t)
	for name, tc := range map[string]struct {
		setup func(t *testing.T, parent string) string // returns the target
		want  error
	}{
		"non-empty dir": {func(t *testing.T, parent string) string {
			d := filepath.Join(parent, "full")
			require.NoError(t, os.MkdirAll(filepath.Join(d, "sub"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "session.go"), []byte("my work"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(d, "sub", "x"), []byte("x"), 0o644))
			return d
		}, lab.ErrTargetNotEmpty},
		"dir with a dotfile only": {func(t *testing.T, parent string) string {
			d := filepath.Join(parent, "dot")
			require.NoError(t, os.Mkdir(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: x"), 0o644))
			return d
		}, lab.ErrTargetNotEmpty},
		"a file": {func(t *testing.T, parent string) string {
			f := filepath.Join(parent, "file.txt")
			require.NoError(t, os.WriteFile(f, []byte("keep me"), 0o644))
			return f
		}, lab.ErrTargetNotDir},
		"missing parent": {func(t *testing.T, parent string) string {
			return filepath.Join(parent, "no", "such", "dir")
		}, lab.ErrTargetNoParent},
		"parent is a file": {func(t *testing.T, parent string) string {
			f := filepath.Join(parent, "file.txt")
			require.NoError(t, os.WriteFile(f, []byte("keep me"), 0o644))
			return filepath.Join(f, "ws")
		}, nil},
		"empty path": {func(t *testing.T, parent string) string { return "" }, lab.ErrTargetEmpty},
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := tc.setup(t, parent)
			before := tree(t, parent)
			err := l.WriteWorkspace(target)
			var te *lab.TargetError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, target, te.Path)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
			assert.True(t, strings.HasPrefix(err.Error(), target+": "), err.Error())
			assert.Equal(t, before, tree(t, parent), "nothing touched")
			assert.NoFileExists(t, filepath.Join(parent, "demo.go"))
		})
	}
}

func TestWriteWorkspaceRefusesASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	l := fixtureLab(t)
	parent := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(parent, "real"), 0o755))
	link := filepath.Join(parent, "link")
	require.NoError(t, os.Symlink("real", link))
	err := l.WriteWorkspace(link)
	assert.ErrorIs(t, err, lab.ErrTargetSymlink)
	assertNoLeftovers(t, parent, "link", "real")
}

func TestWriteWorkspaceRefusesTheWorkingDir(t *testing.T) {
	l := fixtureLab(t)
	dir := t.TempDir()
	t.Chdir(dir)
	err := l.WriteWorkspace(".")
	assert.ErrorIs(t, err, lab.ErrTargetWorkingDir)
	assert.EqualError(t, err, ".: is the current directory; name a new directory instead")
	assert.Empty(t, tree(t, dir))
}

// failingFS fails to open one file, as a broken disk would.
type failingFS struct {
	fs.FS
	name string
}

var errDisk = errors.New("disk on fire")

func (f failingFS) Open(name string) (fs.File, error) {
	if name == f.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errDisk}
	}
	return f.FS.Open(name)
}

func TestWriteWorkspaceFailureLeavesNothing(t *testing.T) {
	labsFS, solFS := fixtureFS()
	c, err := lab.LoadFS(failingFS{labsFS, "07-demo/sub/data.txt"}, solFS)
	require.NoError(t, err)
	l, err := c.Lookup("7")
	require.NoError(t, err)

	parent := t.TempDir()
	err = l.WriteWorkspace(filepath.Join(parent, "ws"))
	assert.ErrorIs(t, err, errDisk)
	assertNoLeftovers(t, parent) // neither ws nor the temporary directory

	empty := filepath.Join(parent, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	err = l.WriteWorkspace(empty)
	assert.ErrorIs(t, err, errDisk)
	assertNoLeftovers(t, parent, "empty")
	assert.Empty(t, tree(t, empty), "the user's empty directory stays")
}

func TestWriteGradingDir(t *testing.T) {
	l := fixtureLab(t)
	solved := []byte("package demo\n\n// student's\n")

	dir := filepath.Join(t.TempDir(), "g")
	require.NoError(t, l.WriteGradingDir(dir, solved, true))
	got := tree(t, dir)
	assert.Equal(t, string(solved), got["demo.go"])
	assert.Contains(t, got["hidden_test.go"], "TestLab7_2_HiddenA", "hidden tests sit beside the public ones")
	for p := range got {
		assert.False(t, strings.HasPrefix(p, ".hidden") || strings.HasPrefix(p, ".meta"), p)
	}

	ws := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, l.WriteWorkspace(ws))
	want := tree(t, ws)
	want["demo.go"] = string(solved)
	delete(got, "hidden_test.go")
	assert.Equal(t, want, got, "otherwise the same files as a workspace")

	stub := filepath.Join(t.TempDir(), "stub")
	require.NoError(t, l.WriteGradingDir(stub, nil, false))
	assert.Equal(t, tree(t, ws)["demo.go"], tree(t, stub)["demo.go"])
	assert.NotContains(t, tree(t, stub), "hidden_test.go")

	err := l.WriteGradingDir(stub, solved, true)
	assert.ErrorIs(t, err, lab.ErrTargetNotEmpty)
}

func TestSolution(t *testing.T) {
	l := fixtureLab(t)
	b, err := l.Solution()
	require.NoError(t, err)
	assert.Equal(t, "package demo\n\n// solved\n", string(b))

	labsFS, _ := fixtureFS()
	c, err := lab.LoadFS(labsFS, fstest.MapFS{})
	require.NoError(t, err)
	l, err = c.Lookup("7")
	require.NoError(t, err)
	_, err = l.Solution()
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), path.Join("solutions", "07-demo", "demo.go"))

	c, err = lab.Load()
	require.NoError(t, err)
	l, err = c.Lookup("10")
	require.NoError(t, err)
	b = releasetest.Solution(t, l) // skips in a student release, which has none
	assert.Contains(t, string(b), "package session")
}

func TestWriteGradingDirWithoutAStub(t *testing.T) {
	labsFS, solFS := fixtureFS()
	delete(labsFS, "07-demo/demo.go")
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	l, err := c.Lookup("7")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "g")
	require.NoError(t, l.WriteGradingDir(dir, []byte("package demo\n"), false))
	assert.Equal(t, "package demo\n", tree(t, dir)["demo.go"], "the submitted file is written all the same")
}

func TestTestFileNamesAreEveryNameTheTestsDeclare(t *testing.T) {
	names, err := fixtureLab(t).TestFileNames()
	require.NoError(t, err)
	assert.Equal(t, []string{
		"BenchmarkLab7_1_X", "TestLab7_1_First", "TestLab7_1_HiddenB", "TestLab7_1_NoArgs", "TestLab7_1_Third",
		"TestLab7_2_HiddenA", "TestLab7_2_Second", "TestMain", "TestStray", "Testhelper", "helper", "s",
	}, names, "functions, types and the hidden files' names, once each and sorted; no methods, no _test.go in a sub-directory")
}
