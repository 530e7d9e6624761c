// Package build makes a submission's test binary: it writes the grading
// directory (the student's file beside the course's pristine files, the
// tests graded and the harness), runs one race-enabled go test -c in the
// sandbox's build limits against a build cache of the grader's own that no
// grading build writes (Cache), keeps the compiler's lines about hidden
// test files out of what students see, and leaves the binary execute-only
// with every source gone. The course's own code (the self-check) keeps its
// binaries, so that a self-check run again builds only what changed.
package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coursekit/course/grader/harness"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/dustin/go-humanize"
)

// ErrNoToolchain means the go command was not found: nothing can be graded.
var ErrNoToolchain = errors.New("the go command was not found")

// DefaultTimeout bounds the build of one submission.
const DefaultTimeout = 2 * time.Minute

// Config is how submissions of a lab are built.
type Config struct {
	Lab     *lab.Lab
	GoBin   string            // the go command (FindGo)
	Race    bool              // build with the race detector: every grading build does
	Hidden  bool              // the grading directory holds the hidden tests
	Extra   map[string][]byte // private test files (an instructor's --tests), by name
	Graded  []string          // the exercises graded, when not all: only their test files are built; nil for all
	Tests   []string          // every test the harness may run
	Sandbox *sandbox.Sandbox
	Cache   *Cache        // the read-only build cache the set-up filled
	Timeout time.Duration // one build; DefaultTimeout if zero
	Memory  int64         // one run's memory (the compiler may use more: sandbox.BuildMemoryLimit)
	// OwnCode: the files are the course's own (the self-check's stub,
	// solutions and mutants): the go command's own cache is used, and the
	// binary is kept (ownbin.go). Never for student code.
	OwnCode bool
	// SetupKey is the set-up's key (package setup): the toolchain, the
	// machine's settings and the lab, which a kept binary's name includes.
	SetupKey string
	// OwnBinDir, if set, is where the course's own binaries are kept
	// instead of the grader's cache directory (tests).
	OwnBinDir string
}

// Builder builds submissions of one lab. It is safe for concurrent use.
type Builder struct {
	cfg    Config
	cache  *Cache
	goBin  string
	secret []string // file names whose lines a build's output must not show
}

// New is a Builder for c.
func New(c Config) *Builder {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	secret := append(c.Lab.HiddenFileNames(), harness.File)
	for name := range c.Extra {
		secret = append(secret, name)
	}
	return &Builder{cfg: c, cache: c.Cache, goBin: c.GoBin, secret: secret}
}

// Write writes the grading directory of src (the student's file) under
// work: the course's pristine files, the tests graded and the harness.
func (b *Builder) Write(work string, src []byte) error {
	srcDir := filepath.Join(work, "src")
	if err := b.cfg.Lab.WriteGradingDirFor(srcDir, src, b.cfg.Hidden, b.cfg.Graded); err != nil {
		return fmt.Errorf("grader: %w", err)
	}
	for name, data := range b.cfg.Extra {
		if err := os.WriteFile(filepath.Join(srcDir, name), data, 0o644); err != nil {
			return fmt.Errorf("grader: %w", err)
		}
	}
	h, err := harness.Source(b.cfg.Lab.Package, b.cfg.Tests)
	if err != nil {
		return fmt.Errorf("grader: %w", err)
	}
	if err := os.WriteFile(filepath.Join(srcDir, harness.File), h, 0o644); err != nil {
		return fmt.Errorf("grader: %w", err)
	}
	return nil
}

// Build builds the test binary of the grading directory Write made under
// work into work/bin/lab.test, and returns the binary's path and how the
// build went. Once built, the sources are gone (hidden tests included) and
// the binary is execute-only: the runs happen as another user, or behind a
// user namespace, and may run it but not read it, nor anything beside it.
// The error is the grader's own trouble.
func (b *Builder) Build(ctx context.Context, work string) (string, report.Build, error) {
	srcDir := filepath.Join(work, "src")
	bin := filepath.Join(work, "bin", "lab.test")
	rep := b.build(ctx, work, srcDir, bin)
	if !b.cfg.OwnCode && b.cache.Shared {
		if err := b.cache.CheckLocal(); err != nil {
			return "", rep, fmt.Errorf("grader: %w; remove the grader's cache directory %s and grade again: the set-up then checks anew whether builds may share it", err, filepath.Dir(b.cache.Base))
		}
	}
	if err := ctx.Err(); err != nil || !rep.OK {
		return "", rep, err // cancelled: the build's failure says nothing about the submission
	}
	// The sources go while the sandbox reads what the binary needs.
	removed := make(chan error, 1)
	go func() { removed <- os.RemoveAll(srcDir) }()
	admitErr := b.cfg.Sandbox.Admit(bin)
	if err := <-removed; err != nil {
		return "", rep, fmt.Errorf("grader: %w", err)
	}
	if admitErr != nil {
		return "", rep, fmt.Errorf("grader: reading the test binary: %w", admitErr)
	}
	if err := os.Chmod(bin, 0o111); err != nil {
		return "", rep, fmt.Errorf("grader: %w", err)
	}
	for _, p := range []string{work, filepath.Dir(bin)} {
		if err := os.Chmod(p, 0o711); err != nil {
			return "", rep, fmt.Errorf("grader: %w", err)
		}
	}
	return bin, rep, nil
}

// FindGo is the go command: explicit if set, else the one on PATH or in
// GOROOT.
func FindGo(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("%w: %s", ErrNoToolchain, explicit)
		}
		return explicit, nil
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", ErrNoToolchain
}

// FindTest2JSON asks the go command where its test2json converter is
// (building it into the build cache first if needed).
func FindTest2JSON(goBin string) (string, error) {
	cmd := exec.Command(goBin, "tool", "-n", "test2json")
	cmd.Env = goenv.Env(false)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: go tool -n test2json: %v", ErrNoToolchain, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildEnv is a grading build's environment: the grader's read-only cache,
// or for the course's own code the go command's own (Options.OwnCode).
func (b *Builder) buildEnv(goWork string) []string {
	if b.cfg.OwnCode {
		return append(goenv.Env(b.cfg.Race), "GOTMPDIR="+filepath.Join(goWork, "gotmp"))
	}
	return b.cache.Env(goenv.Env(b.cfg.Race), goWork, false)
}

// Args are the go test -c arguments of a grading build. No vet, no optimisation, no debug
// information: the binary runs a few quick tests once, so every second of
// compiling and linking saved is most of a submission's grading time (see
// docs/performance.md). -trimpath keeps the grading directory's path out of
// the build, so what does not change between submissions (the tests) comes
// from the build cache although every submission has a directory of its own.
func Args(bin string, race bool) []string {
	args := []string{"test", "-c", "-trimpath", "-vet=off", "-ldflags=-s -w", "-gcflags=-N -l -dwarf=false", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	return append(args, ".")
}

// Cache is the build cache the builds read.
func (b *Builder) Cache() *Cache { return b.cache }

// build builds the test binary of the grading directory srcDir into bin.
func (b *Builder) build(ctx context.Context, work, srcDir, bin string) report.Build {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return report.Build{Output: err.Error()}
	}
	var kept string
	if b.cfg.OwnCode {
		var err error
		if kept, err = b.ownBinary(srcDir); err != nil {
			return report.Build{Output: "keeping the course's own test binaries: " + err.Error()}
		}
		if copyBinary(kept, bin, false) == nil {
			now := time.Now()
			_ = os.Chtimes(kept, now, now)
			return report.Build{OK: true}
		}
	}
	// The go command's own cache and temporary files stay in the build's
	// work directory, which goes with the grade; the shared cache is read.
	goWork := filepath.Join(work, "go")
	if err := b.cache.Prepare(goWork); err != nil {
		return report.Build{Output: err.Error()}
	}
	defer os.RemoveAll(goWork)
	res := b.cfg.Sandbox.Run(ctx, sandbox.Job{
		Path:    b.goBin,
		Args:    Args(bin, b.cfg.Race),
		Dir:     srcDir,
		Env:     b.buildEnv(goWork),
		Timeout: b.cfg.Timeout,
		Cap:     64 << 10,
	})
	text := b.publicBuildOutput(strings.ReplaceAll(string(res.Output), srcDir+string(filepath.Separator), ""))
	switch {
	case res.StartErr != nil:
		return report.Build{Output: "could not start the go command: " + res.StartErr.Error()}
	case res.TimedOut:
		return report.Build{Output: fmt.Sprintf("the build did not finish in %s\n%s", b.cfg.Timeout, text)}
	case res.MemoryExceeded:
		return report.Build{Output: fmt.Sprintf("the compiler ran out of memory (%s) building this file\n%s", humanize.IBytes(uint64(max(sandbox.BuildMemoryLimit, b.cfg.Memory))), text)}
	case res.ExitCode != 0:
		return report.Build{Output: text}
	}
	if kept != "" {
		if err := copyBinary(bin, kept, true); err != nil {
			return report.Build{Output: "keeping the course's own test binaries: " + err.Error()}
		}
	}
	return report.Build{OK: true, Output: text, Seconds: res.Duration.Seconds()}
}

// publicBuildOutput drops the compiler's lines about hidden test files and
// the grader's own: a student's file that breaks a hidden test must not
// show its code. A line says how many were left out.
func (b *Builder) publicBuildOutput(text string) string {
	var keep []string
	dropped := 0
	inSecret := false
	for _, line := range strings.SplitAfter(text, "\n") {
		// A compiler message goes on in indented lines ("\thave (...)",
		// "\tother declaration of x"): they belong to the line before.
		if inSecret && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ")) {
			dropped++
			continue
		}
		inSecret = false
		for _, name := range b.secret {
			if strings.Contains(line, name) {
				inSecret = true
				break
			}
		}
		if inSecret {
			dropped++
			continue
		}
		keep = append(keep, line)
	}
	out := strings.Join(keep, "")
	if dropped > 0 {
		out += fmt.Sprintf("(%d more lines about the course's hidden tests are not shown: keep every given name and signature as the handout has it)\n", dropped)
	}
	return out
}
