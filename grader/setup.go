package grader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrSetup marks a grading machine that cannot build the lab at all (its
// modules are not in the module cache, say). Grading there would fail every
// student for the machine's fault, so nothing is graded (exit status 2).
var ErrSetup = errors.New("the grading machine is not ready")

// SetupError carries what the toolchain said when the pristine lab would
// not load.
type SetupError struct {
	Output string
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("%s: the course's own files do not load (%s); download the lab's modules with `go mod download` in the course's labs/ directory, or run `go test ./...` in the course once",
		ErrSetup, lastLine(e.Output))
}

// Is makes every SetupError match ErrSetup.
func (e *SetupError) Is(target error) bool { return target == ErrSetup }

// checkSetup loads the pristine lab, with every test file the grader will
// add, the way a build would, but without compiling: a missing module shows
// here, before any student is graded.
func (g *Grader) checkSetup() error {
	dir, err := os.MkdirTemp(g.opts.TempDir, "course-setup-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := g.opts.Lab.WriteGradingDir(src, nil, g.opts.Hidden); err != nil {
		return err
	}
	for name, data := range g.extra {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			return err
		}
	}
	out := runJob(context.Background(), job{
		Path:    g.goBin,
		Args:    []string{"list", "-test", "-deps", "."},
		Dir:     src,
		Env:     buildEnv(g.opts.Race),
		Timeout: time.Minute,
		Cap:     64 << 10,
	}, g.trusted)
	if out.StartErr != nil {
		return fmt.Errorf("%w: %v", ErrNoToolchain, out.StartErr)
	}
	if out.ExitCode != 0 || out.TimedOut {
		return &SetupError{Output: string(out.Output)}
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// checkReachable makes sure that the user student code runs as can reach
// the grader's temporary directory (every directory above it must let
// others pass), so that a run is never started where it cannot work.
func (g *Grader) checkReachable() error {
	if g.sandbox.runUID() < 0 {
		return nil
	}
	dir := g.opts.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%w: student code runs as an unprivileged user, who cannot pass through %s (mode %v); grade with a temporary directory others can traverse", ErrSetup, d, info.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
