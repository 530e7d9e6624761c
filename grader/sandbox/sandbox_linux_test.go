//go:build linux

package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
			assert.GreaterOrEqual(t, id, UIDBase)
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
	sb, err := New(Config{Mode: Strict})
	if err != nil || !sb.Isolation().Has("cpu") {
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
	sb, err := New(Config{Mode: Strict})
	if err != nil {
		if os.Getenv("COURSE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("COURSE_REQUIRE_SANDBOX is set but this machine has no full sandbox: %v", err)
		}
		t.Skipf("this machine cannot give a full sandbox: %v", err)
	}
	sb.uids = nil // run as the grader's own user, as a grader that is not root does
	work := t.TempDir()
	for _, d := range []string{filepath.Dir(work), work} {
		require.NoError(t, os.Chmod(d, 0o711)) // the run's user passes through
	}
	// As the grader makes them (package run): open, then every permission taken.
	report, input := noPermissions(t, filepath.Join(work, "report")), noPermissions(t, filepath.Join(work, "input"))
	// The shell's own redirections: the sandbox holds no other program.
	probe := `for fd in 3 4; do (read -r line < /proc/self/fd/$fd) 2>/dev/null && echo "read fd $fd"; (echo forged >> /proc/self/fd/$fd) 2>/dev/null && echo "wrote fd $fd"; done; echo done`
	out := sb.Run(context.Background(), Job{Path: "/bin/sh", Args: []string{"-c", probe}, Timeout: 10 * time.Second,
		Extra: []*os.File{report, input}, Untrusted: true, PrivateDir: filepath.Join(work, "run")})
	require.NoError(t, out.StartErr)
	assert.Equal(t, "done\n", string(out.Output), "the run reopened its report or its input through /proc/self/fd")
	data, err := io.ReadAll(report)
	require.NoError(t, err)
	assert.Empty(t, data, "the report is as the grader left it")
}

// noPermissions makes a file open for reading and writing, with every
// permission taken from it.
func noPermissions(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	require.NoError(t, err)
	require.NoError(t, f.Chmod(0))
	t.Cleanup(func() { f.Close() })
	return f
}

// TestAdmittedBinaryIsNotReadAgain: the build makes a test binary
// execute-only, which a grader that is not root cannot read; what a run
// needs of it (its shared libraries) is read once by Admit, before, and
// never again. Here the file is no longer an ELF binary after Admit: a
// run's set-up that read it again would fail.
func TestAdmittedBinaryIsNotReadAgain(t *testing.T) {
	true_, err := exec.LookPath("true")
	if err != nil {
		t.Skipf("no true(1) to stand for a dynamically linked test binary: %v", err)
	}
	data, err := os.ReadFile(true_)
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "lab.test")
	require.NoError(t, os.WriteFile(bin, data, 0o700))
	s := &Sandbox{}
	want, err := s.readLibraries(bin)
	require.NoError(t, err)
	if len(want) == 0 {
		t.Skipf("%s is linked statically: it needs no library", true_)
	}
	require.NoError(t, s.Admit(bin), "Admit(%s)", bin)
	require.NoError(t, os.WriteFile(bin, []byte("not a binary any more"), 0o111))
	got, err := s.sharedLibraries(bin)
	require.NoError(t, err, "sharedLibraries(%s) after Admit reads the binary again", bin)
	assert.Equal(t, want, got, "the libraries Admit read")
	_, err = s.sharedLibraries(filepath.Join(t.TempDir(), "other.test"))
	assert.Error(t, err, "a binary never admitted is read, and one that is not there is an error")
}
