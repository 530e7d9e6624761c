package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/coursekit/course/grader/internal/capped"
)

// DefaultOutputCap is how much output of one run is kept. Beyond it the rest
// is read and counted, but dropped, so a flood of output can neither fill
// memory nor block the child on a full pipe.
const DefaultOutputCap = 1 << 20

// Job is one run of a program: student code (Untrusted) or the toolchain.
type Job struct {
	Path    string
	Args    []string
	Dir     string // the working directory of a trusted Job
	Env     []string
	Timeout time.Duration // wall clock; every process of the run is killed then
	Cap     int           // output bytes kept
	Extra   []*os.File    // inherited as fd 3, 4, ...
	// Untrusted confines the run in the sandbox; the program then sees
	// only itself and an empty private temp dir (its working directory,
	// HOME and TMPDIR).
	Untrusted bool
	// PrivateDir is a host directory the sandbox may make for an untrusted
	// run's temp dir when it has no private filesystem to give.
	PrivateDir string
}

// Outcome is what a Job did.
type Outcome struct {
	Output            []byte // stdout and stderr, interleaved, at most Cap bytes
	Dropped           int64  // output bytes beyond Cap
	ExitCode          int    // -1 when killed by a signal or not started
	TimedOut          bool
	Duration          time.Duration
	MemoryExceeded    bool  // the kernel killed a process at the memory limit
	ProcessesExceeded bool  // a fork or a new thread was refused at the limit
	CPUThrottled      bool  // the run was held back for its CPU quota
	StartErr          error // the program could not be started at all
}

// Run runs j, confined by s, and returns when the program and every
// process it started are gone. Trouble in confining it (no cgroup could be
// made, a process that would not die) is returned as StartErr: the run did
// not happen as promised, so nothing may be judged from it.
func (s *Sandbox) Run(ctx context.Context, j Job) Outcome {
	if j.Cap <= 0 {
		j.Cap = DefaultOutputCap
	}
	ctx, cancel := context.WithTimeout(ctx, j.Timeout)
	defer cancel()
	l, err := s.prepare(j)
	if err != nil {
		return Outcome{ExitCode: -1, StartErr: err}
	}
	out := &capped.Buffer{Max: j.Cap}
	// The program writes into a pipe whose other end the grader reads. Wait
	// does not wait for the pipe, so a process holding it open cannot delay
	// the verdict; it is killed with the run below.
	pr, pw, err := os.Pipe()
	if err != nil {
		var o Outcome
		return Outcome{ExitCode: -1, StartErr: errors.Join(err, l.finish(&o))}
	}
	defer pr.Close()
	l.cmd.Stdout, l.cmd.Stderr = pw, pw
	start := time.Now()
	err = l.cmd.Start()
	pw.Close()
	if err != nil {
		var o Outcome
		return Outcome{ExitCode: -1, StartErr: errors.Join(err, l.finish(&o))}
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	if l.setup != nil {
		err := l.setup(l.cmd.Process.Pid)
		if err == nil && l.gate != nil {
			_, err = l.gate.Write([]byte("go\n"))
		}
		if l.gate != nil {
			l.gate.Close()
		}
		if err != nil {
			l.kill()
			_ = l.cmd.Wait()
			var o Outcome
			return Outcome{ExitCode: -1, StartErr: errors.Join(err, l.finish(&o))}
		}
	}
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		_ = l.cmd.Wait()
	}()
	timedOut := false
	select {
	case <-waited:
	case <-ctx.Done():
		timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		l.kill()
		<-waited
	}
	duration := time.Since(start)
	// Whatever the program left behind goes too.
	l.kill()
	res := Outcome{ExitCode: l.cmd.ProcessState.ExitCode(), TimedOut: timedOut, Duration: duration}
	if err := l.finish(&res); err != nil {
		res.StartErr = err
	}

	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		// Something outside the run still holds the pipe: stop reading.
		pr.Close()
		<-copied
	}
	res.Output, res.Dropped = out.Bytes(), out.Dropped()
	// Where an rlimit, not a cgroup, stopped a new thread, the Go runtime
	// says so before it dies.
	res.ProcessesExceeded = res.ProcessesExceeded || bytes.Contains(res.Output, []byte("runtime: failed to create new OS thread"))
	return res
}

// launch is a command ready to start, with what must happen around it: each
// system's prepare makes one.
type launch struct {
	cmd *exec.Cmd
	// setup runs after Start and before the program proper begins: the
	// trampoline is waiting on gate meanwhile.
	setup func(pid int) error
	gate  *os.File
	// kill ends every process of the run now.
	kill func()
	// finish runs once the program has ended: it makes sure every process
	// of the run is gone, reads the limits' counters and cleans up.
	finish func(out *Outcome) error
}
