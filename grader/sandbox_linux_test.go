//go:build linux

package grader

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertNoProcessLeft fails if any process still runs from the grader's
// work directory (bubblewrap names the binary's path there) or carries one
// of the markers (a fixture's child names its marker). Not by user id:
// other fixtures and test binaries of the course, running at the same
// time, grade with the same pool of ids.
func assertNoProcessLeft(t *testing.T, work string, markers ...string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil || strings.Contains(string(status), "\nState:\tZ") {
			continue // gone, or a zombie waiting for its parent: runs nothing
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(cl, work) || slices.ContainsFunc(markers, func(m string) bool { return strings.Contains(cl, m) }) {
			t.Errorf("process %s is still running after grading: %s", e.Name(), cl)
		}
	}
}

// assertNothingWritten fails if a file of one of the user ids runs get is
// anywhere in the machine's shared temporary directories: student code
// writes only inside its run, which goes with it.
func assertNothingWritten(t *testing.T) {
	t.Helper()
	for _, dir := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid >= uidBase && st.Uid < uidBase+uidCount {
				t.Errorf("%s was written by student code (uid %d) and is still there", p, st.Uid)
			}
			return nil
		})
	}
}

// Without bubblewrap, the strict sandbox refuses to grade and says why and
// what the weaker level would leave open; "best" grades with that level,
// and the report names each mechanism it really used.
func TestWeakerSandboxIsRefusedUnlessAskedFor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades submissions")
	}
	if os.Geteuid() != 0 {
		t.Skip("the level without bubblewrap (a uid of its own per run) needs the grader to run as root")
	}
	l := testLab(t)
	work := reachableTempDir(t)
	_, err := New(Options{Lab: l, TempDir: work, noBubblewrap: true})
	var se *SandboxError
	require.ErrorAs(t, err, &se, "New(strict, no bubblewrap) must refuse")
	assert.ErrorIs(t, err, ErrSetup, "nothing can be graded: exit status 2")
	assert.Contains(t, err.Error(), "bubblewrap was turned off")
	assert.Contains(t, err.Error(), "world-readable files on the machine", "the refusal says what the weaker level leaves open")
	assert.Contains(t, err.Error(), "--sandbox best")
	assert.Equal(t, LevelPartial, se.Offered.Level)

	g, err := New(Options{Lab: l, Hidden: true, TempDir: work, Sandbox: SandboxBest, Memory: 256 << 20, noBubblewrap: true})
	require.NoError(t, err)
	iso := g.Isolation()
	assert.Equal(t, LevelPartial, iso.Level)
	assert.True(t, iso.Has("uid"), "as root: a uid of its own per run: %s", iso.Name)
	assert.True(t, iso.Has("rlimits"), iso.Name)
	assert.False(t, iso.Has("mount"), "no private filesystem without bubblewrap: %s", iso.Name)
	assert.NotEmpty(t, iso.Missing)

	// It still grades right, leaves no process and cleans up after the run.
	marker := fmt.Sprintf("course-partial-%d", os.Getpid())
	// Nor can the nonce, the tests' list or the report be reached there.
	src := withInit(t, solutionSource(t), []string{"bytes"}, reachForTheReport+fmt.Sprintf(`_ = fio.AppendFile("/tmp/%s", []byte("left behind"))`, marker))
	rep, err := g.Grade(context.Background(), &Submission{Name: "partial", Path: "partial", Files: map[string][]byte{"session.go": src}})
	require.NoError(t, err)
	assert.Equal(t, float64(rep.MaxScore), rep.Score, textReport(rep))
	assert.Equal(t, LevelPartial, rep.Isolation.Level)
	assert.NoFileExists(t, filepath.Join("/tmp", marker), "a run without a private filesystem: what it wrote in /tmp is removed after it")
	assertNoProcessLeft(t, work)
	assertNothingWritten(t)
}

// Runs at the same time never share a user id, within one grader or
// across graders on one machine.
func TestUIDPoolGivesEveryRunItsOwnID(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the uid pool is the root grader's")
	}
	a, err := newUIDPool()
	require.NoError(t, err)
	b, err := newUIDPool() // another grader process, as far as the locks go
	require.NoError(t, err)
	seen := map[int]bool{}
	var releases []func()
	for i := 0; i < 8; i++ {
		for _, p := range []*uidPool{a, b} {
			id, release, err := p.acquire()
			require.NoError(t, err)
			assert.False(t, seen[id], "uid %d handed out twice while in use", id)
			assert.GreaterOrEqual(t, id, uidBase)
			seen[id] = true
			releases = append(releases, release)
		}
	}
	for _, r := range releases {
		r()
	}
}

// TestRunGetsOneCPU: a run's cgroup has the same CPU weight as every
// other run's and a quota of one CPU, so in a class run it cannot take its
// neighbours' share (the runs also have GOMAXPROCS=1); the toolchain gets
// the weight without the quota. Read from the cgroup's own files, not from
// how busy a machine happens to be.
func TestRunGetsOneCPU(t *testing.T) {
	sb, err := newSandbox(SandboxStrict, DefaultMemoryLimit, DefaultProcessLimit, false)
	if err != nil || !sb.isolation().Has("cpu") {
		if os.Getenv("COURSE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("COURSE_REQUIRE_SANDBOX is set but this machine gives no run a CPU share: %v", err)
		}
		t.Skipf("this machine gives no run a CPU share of its own (the cgroup cpu controller, as root): %v", err)
	}
	read := func(cg *cgroup, v1, v2 string) string {
		name := v2
		if cg.version == 1 {
			name = v1
		}
		data, err := os.ReadFile(filepath.Join(cg.cpu, name))
		require.NoError(t, err)
		return strings.TrimSpace(string(data))
	}
	run, err := sb.cg.child("test-run", 64<<20, 16, 1)
	require.NoError(t, err)
	defer run.remove()
	build, err := sb.cg.child("test-build", 64<<20, 16, 0)
	require.NoError(t, err)
	defer build.remove()
	if run.version == 1 {
		assert.Equal(t, "1024", read(run, "cpu.shares", ""), "a run's CPU weight")
		assert.Equal(t, "100000", read(run, "cpu.cfs_quota_us", ""), "a run's CPU quota, per 100 ms")
		assert.Equal(t, "-1", read(build, "cpu.cfs_quota_us", ""), "the toolchain has no CPU quota")
	} else {
		assert.Equal(t, "100", read(run, "", "cpu.weight"), "a run's CPU weight")
		assert.Equal(t, "100000 100000", read(run, "", "cpu.max"), "a run's CPU quota")
		assert.Equal(t, "max 100000", read(build, "", "cpu.max"), "the toolchain has no CPU quota")
	}
}

// TestRunCannotReopenItsReportOrInput: the report (fd 3) and the harness's
// input (fd 4) are files the run inherits open; reopening them through
// /proc/self/fd (which a process may always list) would let student code
// read the nonce and write a report. They have no permissions at all, so
// that even a run under the grader's own uid (a grader that is not root
// runs student code behind a user namespace, as itself) cannot. Here the
// run is root's behind bubblewrap's user namespace, without capabilities:
// the owner's case.
func TestRunCannotReopenItsReportOrInput(t *testing.T) {
	sb, err := newSandbox(SandboxStrict, DefaultMemoryLimit, DefaultProcessLimit, false)
	if err != nil {
		if os.Getenv("COURSE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("COURSE_REQUIRE_SANDBOX is set but this machine has no full sandbox: %v", err)
		}
		t.Skipf("this machine cannot give a full sandbox: %v", err)
	}
	sb.uids = nil // run as the grader's own user, as a grader that is not root does
	work := reachableTempDir(t)
	report, err := openReport(filepath.Join(work, "report"))
	require.NoError(t, err)
	defer report.Close()
	input, err := harnessInput(work, "the-nonce", []string{"TestA"})
	require.NoError(t, err)
	defer input.Close()
	// The shell's own redirections: the sandbox holds no other program.
	probe := `for fd in 3 4; do (read -r line < /proc/self/fd/$fd) 2>/dev/null && echo "read fd $fd"; (echo forged >> /proc/self/fd/$fd) 2>/dev/null && echo "wrote fd $fd"; done; echo done`
	out := runJob(context.Background(), job{Path: "/bin/sh", Args: []string{"-c", probe}, Timeout: 10 * time.Second,
		Extra: []*os.File{report, input}, Untrusted: true, PrivateDir: filepath.Join(work, "run")}, sb)
	require.NoError(t, out.StartErr)
	assert.Equal(t, "done\n", string(out.Output), "the run reopened its report or its input through /proc/self/fd")
	assert.Empty(t, readReport(report, maxReportBytes), "the report is as the grader left it")
}
