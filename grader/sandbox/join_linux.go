//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// joiner puts a trampoline into its cgroup before the gate opens. Where
// the cgroup is v1 and the trampoline has no namespaces of its own, the
// trampoline moves itself (cgroup.joinFiles), says so on a pipe, and the
// grader checks the move; elsewhere the grader moves it.
type joiner struct {
	cg    *cgroup
	tasks []string // the files the trampoline moves itself with; none: the grader moves it
	fd    int      // the trampoline's descriptor for saying it joined
	r, w  *os.File
}

// joinTimeout bounds the wait for a trampoline to say it joined: a few
// file writes by a shell.
const joinTimeout = 10 * time.Second

func newJoiner(cg *cgroup, attr *syscall.SysProcAttr, fd int) (*joiner, error) {
	j := &joiner{cg: cg, fd: fd}
	if cg == nil || attr.Cloneflags != 0 {
		return j, nil // no cgroup; or namespaces in which the cgroup files are not the grader's
	}
	if j.tasks = cg.joinFiles(); len(j.tasks) == 0 {
		return j, nil
	}
	var err error
	if j.r, j.w, err = os.Pipe(); err != nil {
		return nil, err
	}
	return j, nil
}

// args are the shell's arguments: the trampoline's script and program.
func (j *joiner) args(program []string) []string {
	if len(j.tasks) == 0 {
		return append([]string{"-c", gateScript, "course-run"}, program...)
	}
	fd := strconv.Itoa(j.fd)
	script := `n=$1; shift; while [ "$n" -gt 0 ]; do echo 0 >"$1" || exit 112; shift; n=$((n-1)); done; ` +
		`echo joined >&` + fd + ` && exec ` + fd + `>&- || exit 112; ` + gateScript
	args := append([]string{"-c", script, "course-run", strconv.Itoa(len(j.tasks))}, j.tasks...)
	return append(args, program...)
}

// files are the trampoline's extra descriptors: the job's, and the pipe
// it says it joined on, at fd.
func (j *joiner) files(extra []*os.File) []*os.File {
	if j.w == nil {
		return extra
	}
	return append(slices.Clone(extra), j.w)
}

// join puts the started trampoline pid into the cgroup, or waits for it to
// say it moved itself and checks that it did.
func (j *joiner) join(pid int) error {
	if j.cg == nil {
		return nil
	}
	if j.w == nil {
		return j.cg.add(pid)
	}
	j.w.Close() // the trampoline has its own copy
	if err := j.r.SetReadDeadline(time.Now().Add(joinTimeout)); err != nil {
		return err
	}
	line, err := bufio.NewReader(j.r).ReadString('\n')
	if line != "joined\n" {
		return fmt.Errorf("cgroup: the trampoline did not say it joined its cgroup (%q, %v)", line, err)
	}
	return j.cg.holds(pid)
}

func (j *joiner) close() error {
	if j.r != nil {
		j.r.Close()
		j.w.Close()
	}
	return nil
}
