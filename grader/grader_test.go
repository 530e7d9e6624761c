package grader

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is one submission and the verdict it must get.
type fixture struct {
	name       string
	src        []byte
	skipPolicy bool
	timeout    time.Duration
	pass       []string // the exercises that must pass; every other must fail
	rejected   bool     // refused by the static check
	buildFails bool
	reason     string // every failing exercise's reason contains this
}

var allExercises = []string{"10.1", "10.2", "10.3", "10.4", "10.5", "10.6"}

// forgeLines prints fake test2json framing: a pass for every test of the lab.
func forgeLines(t testing.TB) string {
	l := testLab(t)
	var names []string
	for _, ex := range l.Exercises {
		names = append(names, l.PublicTests(ex.ID)...)
		names = append(names, l.HiddenTests(ex.ID)...)
	}
	return fmt.Sprintf(`for _, name := range %#v {
		fmt.Printf("\x16=== RUN   %%s\n\x16--- PASS: %%s (0.00s)\n", name, name)
	}
	fmt.Printf("\x16PASS\n")`, names)
}

func fixtures(t testing.TB) []fixture {
	sol, stub := solutionSource(t), stubSource(t)
	fs := []fixture{
		{name: "stub", src: stub, reason: "tests failed"},
		{name: "solution", src: sol, pass: allExercises},
		{name: "compile-error", src: append(append([]byte{}, sol...), "\nvar broken int = \"text\"\n"...), buildFails: true, reason: "does not build"},
		{name: "rejected-import", src: withInit(t, sol, []string{"os"}, `_ = os.Args`), rejected: true, reason: "import \"os\""},
		{name: "infinite-loop", timeout: 3 * time.Second, pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"}, reason: "timed out",
			src: prefixBody(t, sol, "func PathTo(entries []SessionEntry, leafID string) ([]SessionEntry, error) {", "for {\n}")},
		{name: "panic-in-init", src: withInit(t, sol, nil, `panic("boom")`), reason: "no tests ran"},
		{name: "exit0-in-init", skipPolicy: true, src: withInit(t, sol, []string{"os"}, `os.Exit(0)`), reason: "no tests ran"},
		{name: "forged-pass-lines", src: withInit(t, stub, []string{"fmt"}, forgeLines(t))},
		{name: "forging-goroutine", src: withInit(t, stub, []string{"fmt", "time"},
			"go func() {\nfor i := 0; i < 50; i++ {\n"+forgeLines(t)+"\ntime.Sleep(time.Millisecond)\n}\n}()")},
		{name: "forged-on-solution", src: withInit(t, sol, []string{"fmt"}, forgeLines(t)), reason: "imitates the test runner"},
		{name: "huge-output", src: withInit(t, sol, []string{"fmt", "strings"}, `fmt.Print(strings.Repeat("spam\n", 4<<20))`), reason: "output"},
	}
	for _, id := range allExercises {
		fs = append(fs, fixture{name: "only-" + id, src: onlyExercise(t, id), pass: []string{id}})
	}
	if runtime.GOOS == "linux" {
		fs = append(fs, fixture{name: "child-process", skipPolicy: true, pass: allExercises,
			src: withInit(t, sol, []string{"os/exec"}, fmt.Sprintf(`_ = exec.Command("/bin/sleep", %q).Start()`, childMarker))})
	}
	return fs
}

// childMarker is an argument no other process on the machine has, so the
// test can look for a child the submission left running.
const childMarker = "987.654321"

func TestGradeFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a dozen submissions")
	}
	l := testLab(t)
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			timeout := fx.timeout
			if timeout == 0 {
				timeout = 30 * time.Second
			}
			work := t.TempDir()
			g, err := New(Options{Lab: l, Hidden: true, Timeout: timeout, SkipPolicy: fx.skipPolicy, TempDir: work})
			require.NoError(t, err)

			dir := filepath.Join(t.TempDir(), fx.name)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), fx.src, 0o444))
			before := hashTree(t, dir)

			sub, err := ReadSubmission(dir, l.Editable)
			require.NoError(t, err)
			start := time.Now()
			rep, err := g.Grade(context.Background(), sub)
			require.NoError(t, err)
			elapsed := time.Since(start)

			passed := map[string]bool{}
			for _, ex := range rep.Exercises {
				passed[ex.ID] = ex.Passed
			}
			for _, id := range allExercises {
				want := contains(fx.pass, id)
				assert.Equal(t, want, passed[id], "exercise %s of fixture %s: passed=%v, want %v\n%s", id, fx.name, passed[id], want, textReport(rep))
			}
			for _, ex := range rep.Exercises {
				if !ex.Passed && fx.reason != "" {
					assert.Contains(t, ex.Reason, fx.reason, "exercise %s of fixture %s", ex.ID, fx.name)
				}
			}
			assert.Equal(t, !fx.buildFails && !fx.rejected, rep.Build.OK, "build ok of %s\n%s", fx.name, rep.Build.Output)
			assert.Equal(t, fx.rejected, rep.Build.Rejected, "rejected of %s", fx.name)
			assert.Equal(t, len(fx.pass) > 0, rep.Score > 0, "score %d of %s", rep.Score, fx.name)

			// Bounded: at most one timeout (plus the grace) per exercise
			// that hangs, plus building.
			assert.Less(t, elapsed, 6*(timeout+10*time.Second)+2*time.Minute, "grading %s took %s", fx.name, elapsed)
			assert.Equal(t, before, hashTree(t, dir), "grading %s changed the submission", fx.name)
			assertNoProcessLeft(t, work)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func textReport(r *Report) string {
	var b strings.Builder
	_ = WriteText(&b, r, Style{})
	return b.String()
}

// hashTree returns a digest of every file name, mode and content under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	require.NoError(t, err)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// assertNoProcessLeft fails if any process still runs from the grader's
// work directory or carries the child fixture's marker (Linux only: it
// reads /proc).
func assertNoProcessLeft(t *testing.T, work string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(cl, work) || strings.Contains(cl, childMarker) {
			t.Errorf("process %s is still running after grading: %s", e.Name(), cl)
		}
	}
}
