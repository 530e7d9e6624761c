package grader

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGrade compares, side by side in one run, the grader (build once,
// run the binary once per exercise) with what a person would do by hand:
// `go test -count=1 -run Lab10_<n>` once per exercise, each building again.
// Both grade the reference solution with the public tests, made new for
// every iteration by a comment, as every student's file is new: neither side
// gets the student's package from the build cache. Run it with
//
//	go test -run '^$' -bench Grade -benchtime 3x ./grader/
//
// and divide the two ns/op: that ratio is the grader's speed-up.
func BenchmarkGrade(b *testing.B) {
	l := testLab(b)
	sol := solutionSource(b)

	b.Run("grader", func(b *testing.B) {
		g, err := New(Options{Lab: l, NoSandbox: false})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sub := &Submission{Name: "bench", Path: "bench", Files: map[string][]byte{"session.go": fresh(sol, "grader", i)}}
			rep, err := g.Grade(context.Background(), sub)
			if err != nil || rep.Score != rep.MaxScore {
				b.Fatalf("grading the solution: score %d/%d, error %v", rep.Score, rep.MaxScore, err)
			}
		}
	})

	b.Run("go-test-per-exercise", func(b *testing.B) {
		ws := filepath.Join(b.TempDir(), "ws")
		if err := l.WriteGradingDir(ws, sol, false); err != nil {
			b.Fatal(err)
		}
		goBin, err := findGo("")
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := os.WriteFile(filepath.Join(ws, "session.go"), fresh(sol, "go-test", i), 0o644); err != nil {
				b.Fatal(err)
			}
			for _, ex := range l.Exercises {
				if ex.Bonus {
					continue // the grader grades bonus exercises only when asked
				}
				cmd := exec.Command(goBin, "test", "-count=1", "-run", "^"+ex.TestPrefix, ".")
				cmd.Dir = ws
				cmd.Env = buildEnv(false)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("go test -run %s: %v\n%s", ex.TestPrefix, err, out)
				}
			}
		}
	})
}

// fresh returns src with a comment that makes it a file the build cache has
// not seen in this process.
func fresh(src []byte, side string, i int) []byte {
	return append(append([]byte{}, src...), fmt.Sprintf("\n// %s iteration %d of run %d\n", side, i, benchRun)...)
}

var benchRun = time.Now().UnixNano()
