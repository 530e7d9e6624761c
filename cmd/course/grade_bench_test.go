package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

// BenchmarkGradeCall compares, side by side in every iteration, one whole
// `course grade` process with the floor under it:
//
//   - call: `course grade --chapter 10 --no-hidden FILE`, the built tool as
//     an instructor runs it (start-up, set-up, check, build, sandboxed runs,
//     the table);
//   - floor: one `go test -c -race` of the same files with the grader's
//     build flags, and one run of the binary with every public test.
//
// Each iteration grades a file neither side has seen (a variable makes it
// new code). It reports the seconds of each and call/floor. Run it with
//
//	go test -run '^$' -bench GradeCall -benchtime 8x -count 2 ./cmd/course/
func BenchmarkGradeCall(b *testing.B) {
	cat, err := lab.Load()
	if err != nil {
		b.Fatal(err)
	}
	l, err := cat.Lookup("10")
	if err != nil {
		b.Fatal(err)
	}
	sol := releasetest.Solution(b, l)
	dir := b.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil { // the runs' users pass through
			b.Fatal(err)
		}
	}
	course := filepath.Join(dir, "course")
	if out, err := exec.Command("go", "build", "-o", course, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	ws := filepath.Join(dir, "ws")
	if err := l.WriteGradingDir(ws, sol, false); err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, ex := range l.Exercises {
		if !ex.Bonus {
			names = append(names, regexp.QuoteMeta(ex.TestPrefix))
		}
	}
	sub := filepath.Join(dir, "session.go")
	bin := filepath.Join(dir, "lab.test")
	env := append(os.Environ(), "TMPDIR="+dir, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	fresh := func(side string, i int) []byte {
		return fmt.Appendf(append([]byte{}, sol...), "\nvar courseBenchFresh = %q\n", fmt.Sprintf("%s %d %d", side, i, time.Now().UnixNano()))
	}
	// One call before timing: the first grade on a machine fills the
	// grader's cache and keeps the set-up's answer, once.
	if err := os.WriteFile(sub, fresh("warm", 0), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(course, "grade", "--chapter", "10", "--no-hidden", sub).CombinedOutput(); err != nil {
		b.Fatalf("course grade: %v\n%s", err, out)
	}

	var call, floor time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(sub, fresh("call", i), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		cmd := exec.Command(course, "grade", "--chapter", "10", "--no-hidden", sub)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("course grade: %v\n%s", err, out)
		}
		call += time.Since(start)

		if err := os.WriteFile(filepath.Join(ws, "session.go"), fresh("floor", i), 0o644); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		build := exec.Command("go", "test", "-c", "-race", "-trimpath", "-vet=off", "-ldflags=-s -w", "-gcflags=-N -l -dwarf=false", "-o", bin, ".")
		build.Dir, build.Env = ws, env
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go test -c: %v\n%s", err, out)
		}
		run := exec.Command(bin, "-test.count=1", "-test.run=^("+strings.Join(names, "|")+")")
		run.Dir, run.Env = ws, append(env, "GORACE=atexit_sleep_ms=0")
		if out, err := run.CombinedOutput(); err != nil {
			b.Fatalf("the test binary: %v\n%s", err, out)
		}
		floor += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(call.Seconds()/n, "call-s/op")
	b.ReportMetric(floor.Seconds()/n, "floor-s/op")
	b.ReportMetric(call.Seconds()/floor.Seconds(), "call/floor")
}
