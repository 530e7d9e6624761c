// Package offline runs commands in the course's tests the way a student
// without network would: no module proxy, no workspace file, no toolchain
// download, the build cache shared.
package offline

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Env is this process's environment with the go command kept offline, plus extra.
func Env(extra ...string) []string {
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	return append(env, extra...)
}

// Run runs name with args in dir under Env, for at most timeout, and
// returns its exit status and its output (stdout and stderr together). A
// command that cannot be started at all fails t.
func Run(t testing.TB, timeout time.Duration, dir, name string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = Env()
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return 0, string(out)
}
