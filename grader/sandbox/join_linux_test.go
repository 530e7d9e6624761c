//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startTrampoline starts what a joiner makes for program, behind a gate it
// never opens, and returns its command.
func startTrampoline(t *testing.T, jn *joiner, program ...string) *exec.Cmd {
	t.Helper()
	gateR, gateW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { gateW.Close() })
	cmd := exec.Command("/bin/sh", jn.args(program)...)
	cmd.Stdin, cmd.ExtraFiles = gateR, jn.files(nil)
	require.NoError(t, cmd.Start())
	gateR.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// fakeCgroup is a v1 cgroup of one hierarchy in a plain directory: its
// tasks file takes any write, and its cgroup.procs lists what procs says.
func fakeCgroup(t *testing.T, procs string) *cgroup {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tasks"), nil, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(procs), 0o600))
	return &cgroup{version: 1, memory: dir, dirs: []string{dir}}
}

func TestJoinerTakesOnlyATrampolineItFindsInTheCgroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	jn, err := newJoiner(fakeCgroup(t, "1\n"), &syscall.SysProcAttr{}, 3)
	require.NoError(t, err)
	t.Cleanup(func() { jn.close() })
	cmd := startTrampoline(t, jn, "/usr/bin/touch", marker)
	err = jn.join(cmd.Process.Pid)
	assert.ErrorContains(t, err, "did not join", "join of a trampoline that said it joined but is not in cgroup.procs")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.NoFileExists(t, marker, "the program ran although its gate never opened")
}

func TestJoinerRefusesATrampolineThatCouldNotMoveItself(t *testing.T) {
	cg := fakeCgroup(t, "")
	cg.dirs = []string{filepath.Join(cg.memory, "gone")} // its tasks file cannot be written
	jn, err := newJoiner(cg, &syscall.SysProcAttr{}, 3)
	require.NoError(t, err)
	t.Cleanup(func() { jn.close() })
	cmd := startTrampoline(t, jn, "/bin/true")
	err = jn.join(cmd.Process.Pid)
	assert.ErrorContains(t, err, "did not say it joined", "join of a trampoline whose move failed")
	var exit *exec.ExitError
	require.True(t, errors.As(cmd.Wait(), &exit), "the trampoline went on after its move failed")
	assert.Equal(t, 112, exit.ExitCode(), "the trampoline's exit code after a failed move")
}

func TestJoinerLeavesTheMoveToTheGraderWhereTheTrampolineCannot(t *testing.T) {
	jn, err := newJoiner(fakeCgroup(t, ""), &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}, 3)
	require.NoError(t, err)
	assert.Empty(t, jn.tasks, "a trampoline in a user namespace of its own cannot write the grader's cgroup files")
	jn, err = newJoiner(&cgroup{version: 2, memory: t.TempDir()}, &syscall.SysProcAttr{}, 3)
	require.NoError(t, err)
	assert.Empty(t, jn.tasks, "v2 moves whole processes only, which takes the lock a self-move avoids")
}

// TestJobsStartInTheirCgroup: what a job runs is in the job's cgroup from
// its first instruction, in every hierarchy.
func TestJobsStartInTheirCgroup(t *testing.T) {
	sb, err := New(Config{Mode: Best})
	require.NoError(t, err)
	if sb.cg == nil {
		if os.Getenv("COURSE_REQUIRE_SANDBOX") != "" {
			t.Fatal("COURSE_REQUIRE_SANDBOX is set but this machine gives no run a cgroup")
		}
		t.Skip("this machine gives no run a cgroup (cgroup controllers, as root or delegated)")
	}
	out := sb.Run(context.Background(), Job{Path: "/bin/cat", Args: []string{"/proc/self/cgroup"}, Timeout: 10 * time.Second})
	require.NoError(t, out.StartErr)
	var memory, pids bool
	for _, line := range strings.Split(strings.TrimSpace(string(out.Output)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		in := strings.Contains(f[2], "course-grade-")
		for _, c := range strings.Split(f[1], ",") {
			memory = memory || (c == "memory" && in)
			pids = pids || (c == "pids" && in)
		}
		if f[0] == "0" && f[1] == "" && sb.cg.version == 2 {
			memory, pids = in, in
		}
	}
	assert.True(t, memory && pids, "a job's /proc/self/cgroup:\n%s\nwant its own cgroup (course-grade-...) for memory and pids", out.Output)
}
