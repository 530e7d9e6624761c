package grader

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// DefaultOutputCap is how much output of one run is kept. Beyond it the rest
// is read and counted, but dropped, so a flood of output can neither fill
// memory nor block the child on a full pipe.
const DefaultOutputCap = 1 << 20

// Isolation says how a run of student code was confined. It is part of every
// report, so an instructor knows what a verdict was protected by.
type Isolation struct {
	// Name is a short summary, e.g. "network namespace, uid nobody, rlimits".
	Name string `json:"name"`
	// Network is true when the run had no network (its own empty namespace).
	NoNetwork bool `json:"no_network"`
	// Unprivileged is true when the run did not have the grader's user id.
	Unprivileged bool `json:"unprivileged"`
	// Limits is true when resource limits (CPU, file size, open files) were set.
	Limits bool `json:"limits"`
}

// job is one run of an untrusted program.
type job struct {
	Path    string
	Args    []string
	Dir     string
	Env     []string
	Timeout time.Duration // wall clock; the whole process group is killed then
	Cap     int           // output bytes kept
	Extra   []*os.File    // inherited as fd 3, 4, ...
}

// outcome is what a job did.
type outcome struct {
	Output    []byte // stdout and stderr, interleaved, at most Cap bytes
	Dropped   int64  // output bytes beyond Cap
	ExitCode  int    // -1 when killed by a signal or not started
	TimedOut  bool
	Duration  time.Duration
	Isolation Isolation
	StartErr  error // the program could not be started at all
}

// cappedBuffer keeps the first max bytes written to it and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// runJob runs j confined as well as this machine allows (see confine) and
// returns when the program and every process it started are gone.
func runJob(ctx context.Context, j job, sb *sandbox) outcome {
	if j.Cap <= 0 {
		j.Cap = DefaultOutputCap
	}
	ctx, cancel := context.WithTimeout(ctx, j.Timeout)
	defer cancel()
	out := &cappedBuffer{max: j.Cap}
	// The program writes into a pipe whose other end the grader reads. Wait
	// does not wait for the pipe, so a grandchild holding it open cannot
	// delay the verdict; it is killed with the group below.
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{ExitCode: -1, StartErr: err}
	}
	defer pr.Close()
	mk := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, j.Path, j.Args...)
		cmd.Dir = j.Dir
		cmd.Env = j.Env
		cmd.Stdout = pw
		cmd.Stderr = pw
		cmd.ExtraFiles = j.Extra
		cmd.Cancel = func() error { return killGroup(cmd) }
		return cmd
	}
	start := time.Now()
	cmd, iso, err := sb.start(mk)
	pw.Close()
	if err != nil {
		return outcome{ExitCode: -1, StartErr: err, Isolation: iso}
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	sb.limit(cmd, j.Timeout)
	_ = cmd.Wait()
	// Whatever the program left behind in its group goes too.
	_ = killGroup(cmd)
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		// Something outside the group still holds the pipe: stop reading.
		pr.Close()
		<-copied
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	res := outcome{
		Output:    out.buf.Bytes(),
		Dropped:   out.dropped,
		ExitCode:  cmd.ProcessState.ExitCode(),
		TimedOut:  errors.Is(ctx.Err(), context.DeadlineExceeded),
		Duration:  time.Since(start),
		Isolation: iso,
	}
	return res
}
