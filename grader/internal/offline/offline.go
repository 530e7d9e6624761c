// Package offline runs commands in the course's tests the way a student
// without network would: no module proxy, no workspace file, no toolchain
// download, the build cache shared. Before the first such command of a
// test process, Modules fetches, through the ordinary module proxy, every
// module the course's three modules need, as `go test ./...` on a fresh
// clone does not: it downloads only what the packages it builds import.
package offline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coursekit/course/grader/courseroot"
)

// courseroot.ModulePath is the module path of the course's root module.

var modules struct {
	once sync.Once
	err  error
}

// Modules makes sure that every module of the course's root, labs and
// solutions modules is in the module cache, downloading what is missing
// with this process's own settings (its GOPROXY), once per process. It
// fails t when that cannot be done.
func Modules(t testing.TB) {
	t.Helper()
	modules.once.Do(func() { modules.err = download() })
	if modules.err != nil {
		t.Fatalf("fetching the course's modules before working offline: %v", modules.err)
	}
}

func download() error {
	root, err := courseRoot()
	if err != nil {
		return err
	}
	for _, dir := range []string{root, filepath.Join(root, "labs"), filepath.Join(root, "solutions")} {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
			continue // a student release has no solutions module to speak of
		}
		cmd := exec.Command("go", "mod", "download")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go mod download in %s: %v\n%s", dir, err, out.String())
		}
	}
	return nil
}

// courseRoot is the directory of the course's root module, found upwards
// from the working directory (a test runs in its package's directory).
func courseRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module "+courseroot.ModulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of module " + courseroot.ModulePath + " above the working directory")
		}
		dir = parent
	}
}

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
	return RunEnv(t, timeout, dir, Env(), name, args...)
}

// RunEnv is Run with the environment env (made with Env).
func RunEnv(t testing.TB, timeout time.Duration, dir string, env []string, name string, args ...string) (int, string) {
	t.Helper()
	Modules(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
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
