package grader

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coursekit/course/grader/build"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/submission"
)

// BenchmarkGrade compares, side by side in every iteration, three ways to
// grade the reference solution with the public and hidden tests of lab 10:
//
//   - grader: course grade's engine (check, one race build, sandboxed runs);
//   - floor: one `go test -c` with the grader's flags, then one run of the
//     binary with every test: the least any grader that builds can do;
//   - by hand: `go test -race -run ^TestLab10_<n>_` once per exercise, each
//     building again.
//
// Each iteration grades a file the build cache has not seen (a variable
// makes it new), as every student's file is new, and runs the three one
// after the other, so that a busy machine slows all three alike. It
// reports the seconds of each per iteration and two ratios: grader/floor
// (the grader's overhead) and byhand/grader (its speed-up), and the
// seconds of the two builds, the bulk of both. Run it with
//
//	go test -run '^$' -bench '^BenchmarkGrade$' -benchtime 5x -count 2 ./grader/
func BenchmarkGrade(b *testing.B) {
	l := testLab(b)
	sol := solutionSource(b)
	goBin, err := build.FindGo("")
	if err != nil {
		b.Fatal(err)
	}
	g, err := New(Options{Lab: l, Hidden: true, TempDir: benchTempDir(b)})
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(b.TempDir(), "ws")
	if err := l.WriteGradingDir(ws, sol, true); err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, ex := range l.Exercises {
		if !ex.Bonus {
			names = append(names, regexp.QuoteMeta(ex.TestPrefix))
		}
	}
	bin := filepath.Join(b.TempDir(), "lab.test")

	var grader, floor, byHand time.Duration
	var graderBuild, floorBuildTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sub := &submission.Submission{Name: "bench", Path: "bench", Files: map[string][]byte{"session.go": fresh(sol, "grader", i)}}
		rep, err := g.Grade(context.Background(), sub)
		if err != nil || rep.Score != float64(rep.MaxScore) {
			b.Fatalf("grading the solution: %v\n%s", err, textReport(rep))
		}
		grader += time.Since(start)
		graderBuild += time.Duration(rep.Build.Seconds * float64(time.Second))

		start = time.Now()
		floorBuild(b, goBin, ws, bin, fresh(sol, "floor", i))
		floorBuildTime += time.Since(start)
		floorRun(b, ws, bin, "-test.run=^("+strings.Join(names, "|")+")")
		floor += time.Since(start)

		start = time.Now()
		if err := os.WriteFile(filepath.Join(ws, "session.go"), fresh(sol, "by-hand", i), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, ex := range l.Exercises {
			if ex.Bonus {
				continue // the grader grades bonus exercises only when asked
			}
			cmd := exec.Command(goBin, "test", "-race", "-count=1", "-run", "^"+ex.TestPrefix, ".")
			cmd.Dir = ws
			cmd.Env = append(goenv.Env(true), "GORACE=atexit_sleep_ms=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("go test -run %s: %v\n%s", ex.TestPrefix, err, out)
			}
		}
		byHand += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(grader.Seconds()/n, "grader-s/op")
	b.ReportMetric(floor.Seconds()/n, "floor-s/op")
	b.ReportMetric(byHand.Seconds()/n, "byhand-s/op")
	b.ReportMetric(graderBuild.Seconds()/n, "grader-build-s/op")
	b.ReportMetric(floorBuildTime.Seconds()/n, "floor-build-s/op")
	b.ReportMetric(grader.Seconds()/floor.Seconds(), "grader/floor")
	b.ReportMetric(byHand.Seconds()/grader.Seconds(), "byhand/grader")
}

// floorBuild is the floor's build: src as session.go in the grading
// directory ws, and one `go test -c` of it with the grader's flags into
// bin.
func floorBuild(b *testing.B, goBin, ws, bin string, src []byte) {
	if err := os.WriteFile(filepath.Join(ws, "session.go"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	// A new file makes a new binary: the go command would skip the link
	// if the one there were up to date.
	if err := os.Remove(bin); err != nil && !os.IsNotExist(err) {
		b.Fatal(err)
	}
	build := exec.Command(goBin, build.Args(bin, true)...)
	build.Dir, build.Env = ws, goenv.Env(true)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go test -c: %v\n%s", err, out)
	}
}

// floorRun is the floor's run: bin once, in ws, with runFlag (-test.run=...).
func floorRun(b *testing.B, ws, bin, runFlag string) {
	run := exec.Command(bin, "-test.count=1", runFlag)
	// Without the race detector's second of sleep at exit, which the
	// grader's own TestMain also skips.
	run.Dir, run.Env = ws, append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	if out, err := run.CombinedOutput(); err != nil {
		b.Fatalf("the floor's test binary: %v\n%s", err, out)
	}
}

// benchTempDir is a temporary directory a run's user may pass through.
func benchTempDir(b *testing.B) string {
	dir := b.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// fresh returns src with a variable that makes it a file, and code, the
// build cache has not seen: a comment alone would leave the compiled code
// as it was, and the go command would then skip the link.
func fresh(src []byte, side string, i int) []byte {
	return append(append([]byte{}, src...), fmt.Sprintf("\nvar courseBenchFresh = %q\n", fmt.Sprintf("%s iteration %d, %s", side, i, benchNonce()))...)
}

// benchNonce is new at every call, in this process and any other: with
// -count, a benchmark runs its iterations again, and a file of an earlier
// run would come from the build cache.
func benchNonce() string {
	return fmt.Sprintf("%d.%d", time.Now().UnixNano(), benchCalls.Add(1))
}

var benchCalls atomic.Int64

// BenchmarkRaceCost measures what the race detector on every build costs:
// for each lab, the reference solution (public and hidden tests) graded
// with it and without it (which only the course's own code may be), side
// by side in every iteration, each time a file the build cache has not
// seen. It reports the seconds of each and their ratio. Run it with
//
//	go test -run '^$' -bench RaceCost -benchtime 5x ./grader/
func BenchmarkRaceCost(b *testing.B) {
	cat, err := lab.Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range cat.Labs() {
		b.Run("lab"+l.Chapter, func(b *testing.B) {
			sol := releasetest.Solution(b, l)
			graders := map[bool]*Grader{}
			for _, noRace := range []bool{false, true} {
				g, err := New(Options{Lab: l, Hidden: true, NoRace: noRace, TempDir: benchTempDir(b)})
				if err != nil {
					b.Fatal(err)
				}
				graders[noRace] = g
			}
			took := map[bool]time.Duration{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, noRace := range []bool{false, true} {
					side := fmt.Sprintf("race=%v", !noRace)
					sub := &submission.Submission{Name: "bench", Path: "bench", Files: map[string][]byte{l.Editable[0]: fresh(sol, side, i)}}
					start := time.Now()
					rep, err := graders[noRace].Grade(context.Background(), sub)
					if err != nil || rep.Score != float64(rep.MaxScore) {
						b.Fatalf("grading lab %s's solution (%s): %v\n%s", l.Chapter, side, err, textReport(rep))
					}
					took[noRace] += time.Since(start)
				}
			}
			n := float64(b.N)
			b.ReportMetric(took[false].Seconds()/n, "race-s/op")
			b.ReportMetric(took[true].Seconds()/n, "norace-s/op")
			b.ReportMetric(took[false].Seconds()/took[true].Seconds(), "race/norace")
		})
	}
}
