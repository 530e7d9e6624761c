package grader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/submission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// neighbourMarker is what the hostile neighbour leaves where it can.
const neighbourMarker = "course-neighbour-was-here"

// hostileNeighbour is a submission graded as if the static wall had
// fallen: in every run it signals and tries to trace every process it can
// see, fills its /tmp and /dev/shm (and empties them again, for its own
// tests), leaves a marker in every temporary directory, and keeps a CPU
// busy for as long as the run lasts.
func hostileNeighbour(t *testing.T) []byte {
	return withInit(t, solutionSource(t), []string{"os", "strconv", "syscall"}, fmt.Sprintf(`
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = syscall.PtraceAttach(pid)
		}
	}
	_ = syscall.Kill(-1, syscall.SIGKILL)
	for _, d := range []string{"/tmp", "/dev/shm", "/var/tmp", os.TempDir()} {
		_ = os.WriteFile(d+"/%[1]s", []byte("x"), 0o666)
		chunk := make([]byte, 8<<20)
		for i := 0; i < 40; i++ {
			f, err := os.OpenFile(d+"/fill-"+strconv.Itoa(i), os.O_CREATE|os.O_WRONLY, 0o666)
			if err != nil {
				break
			}
			_, err = f.Write(chunk)
			f.Close()
			if err != nil {
				break
			}
		}
		for i := 0; i < 40; i++ { // its own tests need room again
			_ = os.Remove(d + "/fill-" + strconv.Itoa(i))
		}
	}
	go func() {
		for i := 0; ; i++ {
			if i%%(1<<16) == 0 {
				_ = strconv.Itoa(i) // a call where the scheduler may step in
			}
		}
	}()`, neighbourMarker))
}

// wary is a correct submission that fails if it finds any trace of a
// neighbour: a marker in its temporary directories, or a process not its
// own (it is process 1 of its PID namespace, and starts none).
func wary(t *testing.T) []byte {
	return withInit(t, solutionSource(t), []string{"strconv"}, fmt.Sprintf(`
	fio := OSFileIO{}
	for _, d := range []string{"/tmp", "/dev/shm", "/var/tmp"} {
		if _, err := fio.ReadFile(d + "/%[1]s"); err == nil {
			panic("found a neighbour's marker in " + d)
		}
	}
	own, _ := fio.ReadFile("/proc/self/cmdline")
	for pid := 2; pid < 4096; pid++ {
		// Its own threads have ids too, and its own command line.
		if b, err := fio.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && string(b) != string(own) {
			panic("saw another process: " + string(b))
		}
	}`, neighbourMarker))
}

// TestNeighboursCannotReachEachOther grades a hostile submission and a wary
// one at the same time, as a class run with --jobs 2 does: the wary one
// keeps every point, and neither leaves a process or a file behind.
func TestNeighboursCannotReachEachOther(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and grades two submissions at once")
	}
	l := testLab(t)
	hostileG, hostileWork := fixtureGrader(t, Options{Lab: l, Hidden: true, Timeout: 20 * time.Second, Memory: 512 << 20, SkipPolicy: true})
	waryG, waryWork := fixtureGrader(t, Options{Lab: l, Hidden: true, Timeout: 20 * time.Second, Memory: 512 << 20})
	subs := map[string][]byte{"hostile": hostileNeighbour(t), "wary": wary(t)}
	graders := map[string]*Grader{"hostile": hostileG, "wary": waryG}
	reports := map[string]*report.Report{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, src := range subs {
		dir := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), src, 0o444))
		sub, err := submission.Read(dir, l.Editable)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := graders[name].Grade(context.Background(), sub)
			assert.NoError(t, err, "grading %s", name)
			mu.Lock()
			reports[name] = rep
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.NotNil(t, reports["wary"])
	require.True(t, reports["hostile"].Build.OK, "the hostile neighbour must build and run:\n%s", reports["hostile"].Build.Output)
	assert.Equal(t, float64(reports["wary"].MaxScore), reports["wary"].Score, "the wary submission, graded beside a hostile one, lost points\n%s", textReport(reports["wary"]))
	// The hostile one is the solution too: its attacks ran, and hurt no one.
	assert.Equal(t, float64(reports["hostile"].MaxScore), reports["hostile"].Score, "the hostile submission's own runs\n%s", textReport(reports["hostile"]))
	assertNoProcessLeft(t, hostileWork)
	assertNoProcessLeft(t, waryWork)
	assertNothingWritten(t)
	for _, d := range []string{"/tmp", "/dev/shm", "/var/tmp", os.TempDir()} {
		assert.NoFileExists(t, filepath.Join(d, neighbourMarker), "the hostile run wrote outside its own /tmp")
	}
}
