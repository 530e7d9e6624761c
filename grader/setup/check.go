package setup

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coursekit/course/grader/build"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/internal/helperprog"
	"github.com/coursekit/course/grader/sandbox"
)

// Error carries what the toolchain said when the pristine lab would
// not load.
type Error struct {
	Output string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: the course's own files do not load (%s); download the lab's modules with `go mod download` in the course's labs/ directory, or run `go test ./...` in the course once",
		sandbox.ErrSetup, helperprog.LastLine(e.Output))
}

// Is makes every Error match sandbox.ErrSetup.
func (e *Error) Is(target error) bool { return target == sandbox.ErrSetup }

// checkSetup loads the pristine lab, with every test file the grader will
// add, the way a build would, but without compiling: a missing module shows
// here, before any student is graded.
func (s *state) checkSetup() error {
	dir, err := os.MkdirTemp(s.cfg.TempDir, "course-setup-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := s.cfg.Lab.WriteGradingDir(src, nil, s.cfg.Hidden); err != nil {
		return err
	}
	for name, data := range s.cfg.Extra {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			return err
		}
	}
	// -export compiles every dependency with the grading build's flags
	// into the build cache: on a new machine the first build would
	// otherwise compile the standard library (with the race detector, a
	// minute or more) inside one student's build timeout.
	args := []string{"list", "-test", "-deps", "-export", "-trimpath"}
	if s.cfg.Race {
		args = append(args, "-race")
	}
	goWork := filepath.Join(dir, "go")
	if err := s.cache.Prepare(goWork); err != nil {
		return err
	}
	out := s.cfg.Sandbox.Run(context.Background(), sandbox.Job{
		Path:    s.cfg.GoBin,
		Args:    append(args, "."),
		Dir:     src,
		Env:     s.cache.Env(goenv.Env(s.cfg.Race), goWork, true),
		Timeout: setupTimeout,
		Cap:     64 << 10,
	})
	if out.StartErr != nil {
		return fmt.Errorf("%w: %v", build.ErrNoToolchain, out.StartErr)
	}
	if out.ExitCode != 0 || out.TimedOut {
		return &Error{Output: string(out.Output)}
	}
	if !s.cache.Filled() {
		return fmt.Errorf("%w: the go command (%s) put nothing into the grader's build cache: it ignores GOCACHEPROG, which Go 1.24 brought; grade with Go 1.24 or newer", sandbox.ErrSetup, s.cfg.GoBin)
	}
	return nil
}

// setupTimeout bounds the setup check, which compiles the standard library
// the first time a machine grades.
const setupTimeout = 15 * time.Minute

// checkRaceToolchain makes sure a race-enabled build can link: the race
// detector's runtime needs cgo, and cgo a C compiler. Without one every
// submission would fail to build, for the machine's fault.
func checkRaceToolchain(goBin string) error {
	cmd := exec.Command(goBin, "env", "CC")
	cmd.Env = goenv.Env(true)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: go env CC: %v", sandbox.ErrSetup, err)
	}
	cc := strings.Fields(strings.TrimSpace(string(out)))
	if len(cc) == 0 {
		return fmt.Errorf("%w: the lab is graded with the race detector, which needs a C compiler, and go env CC names none", sandbox.ErrSetup)
	}
	if _, err := exec.LookPath(cc[0]); err != nil {
		return fmt.Errorf("%w: the lab is graded with the race detector, which needs a C compiler: %s was not found (install gcc)", sandbox.ErrSetup, cc[0])
	}
	return nil
}
