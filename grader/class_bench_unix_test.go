//go:build unix

package grader

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coursekit/course/grader/build"
	"github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/submission"
	"github.com/coursekit/course/solutions"
)

// classSize is how many submissions BenchmarkGradeClass grades at a time.
const classSize = 12

// classJobs is how many it grades at once (course grade --jobs).
const classJobs = 2

// BenchmarkGradeClass compares, side by side in every iteration, a class
// of classSize distinct correct submissions of lab 10 graded by the engine
// at --jobs 2 (public and hidden tests, the race detector on) with as many
// floors: one `go test -c -race` of the same files with the grader's build
// flags, then one run of the public tests, one submission after the other.
//
// The submissions are the reference solution and its two alternatives,
// each in four variants with a field of its own in InMemorySessionStore:
// every one is a different file whose package exports something different
// (as a class's files do: each student chooses the stores' fields), so
// that nothing compiled for one can serve another. Each iteration makes
// them new again, for both sides, so nothing comes from a cache.
//
// It reports, per submission, the wall-clock seconds and the CPU seconds
// of each side and class/floor for both. Run it with
//
//	go test -run '^$' -bench GradeClass -benchtime 1x -count 2 ./grader/
func BenchmarkGradeClass(b *testing.B) {
	l := testLab(b)
	bases := classBases(b)
	goBin, err := build.FindGo("")
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(b.TempDir(), "ws")
	if err := l.WriteGradingDir(ws, bases[0], true); err != nil {
		b.Fatal(err)
	}
	var public []string
	for _, ex := range l.Exercises {
		if !ex.Bonus {
			for _, name := range l.PublicTests(ex.ID) {
				public = append(public, regexp.QuoteMeta(name))
			}
		}
	}
	runPublic := "-test.run=^(" + strings.Join(public, "|") + ")$"
	bin := filepath.Join(b.TempDir(), "lab.test")
	temp := benchTempDir(b)

	var classWall, floorWall, floorBuilding time.Duration
	var classCPU, floorCPU, floorBuildCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := New(Options{Lab: l, Hidden: true, TempDir: temp})
		if err != nil {
			b.Fatal(err)
		}
		subs := classSubmissions(b, bases, "grader", i)
		cpu := cpuTime()
		start := time.Now()
		for r := range class.GradeAll(context.Background(), g, subs, classJobs) {
			if r.Err != nil || r.Report.Score != float64(r.Report.MaxScore) {
				b.Fatalf("grading %s: %v\n%s", r.Name, r.Err, textReport(r.Report))
			}
		}
		classWall += time.Since(start)
		classCPU += cpuTime() - cpu

		for _, sub := range classSubmissions(b, bases, "floor", i) {
			start, cpu := time.Now(), cpuTime()
			floorBuild(b, goBin, ws, bin, sub.Files["session.go"])
			floorBuilding += time.Since(start)
			floorBuildCPU += cpuTime() - cpu
			floorRun(b, ws, bin, runPublic)
			floorWall += time.Since(start)
			floorCPU += cpuTime() - cpu
		}
	}
	n := float64(b.N * classSize)
	b.ReportMetric(classWall.Seconds()/n, "class-s/sub")
	b.ReportMetric(floorWall.Seconds()/n, "floor-s/sub")
	b.ReportMetric(classWall.Seconds()/floorWall.Seconds(), "class/floor")
	b.ReportMetric(classCPU.Seconds()/n, "class-cpu-s/sub")
	b.ReportMetric(floorCPU.Seconds()/n, "floor-cpu-s/sub")
	b.ReportMetric(classCPU.Seconds()/floorCPU.Seconds(), "cpu-class/floor")
	b.Logf("per submission, graded %d at once: the floor's build wall %.3f s cpu %.3f s; its run wall %.3f s cpu %.3f s",
		classJobs, floorBuilding.Seconds()/n, floorBuildCPU.Seconds()/n,
		(floorWall-floorBuilding).Seconds()/n, (floorCPU-floorBuildCPU).Seconds()/n)
}

// classBases are the three correct solutions of lab 10: the reference
// and its two alternatives, each built differently.
func classBases(b *testing.B) [][]byte {
	bases := [][]byte{solutionSource(b)}
	for _, alt := range []string{"rawjson", "worker"} {
		src, err := fs.ReadFile(solutions.FS, "10-session/alternatives/"+alt+"/session.go")
		if err != nil {
			b.Fatal(err)
		}
		bases = append(bases, src)
	}
	return bases
}

// classSubmissions is a class of classSize distinct correct submissions,
// new for side and iteration i: each base with a field of its own in the
// in-memory store, so that every file exports a different package.
func classSubmissions(b *testing.B, bases [][]byte, side string, i int) []*submission.Submission {
	const decl = "type InMemorySessionStore struct {\n"
	subs := make([]*submission.Submission, classSize)
	nonce := strings.ReplaceAll(benchNonce(), ".", "_")
	for k := range subs {
		field := fmt.Sprintf("\tcourseBench_%s_%s_%d_%d [%d]byte\n", side, nonce, i, k, k+1)
		base := bases[k%len(bases)]
		if !bytes.Contains(base, []byte(decl)) {
			b.Fatalf("a solution of lab 10 has no %q", decl)
		}
		src := bytes.Replace(base, []byte(decl), []byte(decl+field), 1)
		name := fmt.Sprintf("student%02d", k)
		subs[k] = &submission.Submission{Name: name, Path: name, Files: map[string][]byte{"session.go": src}}
	}
	return subs
}

// cpuTime is the CPU time this process and its waited-for children have
// used so far.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	total := time.Duration(0)
	for _, u := range []syscall.Rusage{self, children} {
		total += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return total
}
