package grader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attackFixtures are the hostile submissions, one or more for every class
// of attack the grader defends against (docs/grading.md, "Threat model").
// Each is a session.go a student could hand in; those marked skipPolicy are
// graded as if the static wall had fallen, to prove the sandbox alone holds.
func attackFixtures(t *testing.T, sol, stub []byte) []fixture {
	marker := fmt.Sprintf("course-escape-%d-%d", os.Getpid(), time.Now().UnixNano())
	courseFile, err := filepath.Abs(filepath.Join("..", "labs", "10-session", "errors.go"))
	require.NoError(t, err)
	hostInit, _ := os.ReadFile("/proc/1/cmdline")
	ownEnviron, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getpid()))
	workDir := os.TempDir()
	escapes := []string{
		filepath.Join("/tmp", marker), filepath.Join("/var/tmp", marker), filepath.Join("/dev/shm", marker),
		filepath.Join(workDir, marker), filepath.Join(filepath.Dir(courseFile), marker),
	}
	deep := "\nvar deepNesting = " + strings.Repeat("(", 100_001) + "1" + strings.Repeat(")", 100_001) + "\n"

	return []fixture{
		// 1. The static wall fails closed: what it cannot parse and
		// type-check is rejected, whatever the compiler would say.
		{name: "unparsable-hides-an-import", rejected: true, reason: "cannot parse",
			src: append(withInit(t, sol, []string{"os"}, `_ = os.Args`), deep...)},
		{name: "method-on-given-error-type", rejected: true, reason: "methods may be declared only on types that session.go declares",
			src: append(append([]byte{}, sol...), "\nfunc (e *DuplicateIDError) Is(error) bool { return true }\n"...)},
		{name: "given-variable-assigned", rejected: true, reason: "assigns to ErrTainted",
			src: withInit(t, sol, nil, "ErrTainted = ErrNeedsRepair")},
		// A package-level true, false, len or append would change the given
		// files' code: ContainerIdentity, CloneMessage, the tests' fixtures.
		{name: "predeclared-names-redefined", rejected: true, reason: "true is predeclared by Go",
			src: append(append([]byte{}, sol...), "\nconst true, false = 1 == 2, 1 == 2\n"...)},
		{name: "changed-signature-breaks-the-tests", buildFails: true, reason: "does not build",
			src: []byte(strings.Replace(string(sol), pathToSig, "func PathTo(entries []SessionEntry, leafID string, extra int) ([]SessionEntry, error) {", 1)),
			check: func(t *testing.T, rep *report.Report) {
				assert.NotContains(t, rep.Build.Output, "_hidden_test.go", "the build output shown to the student must not quote a hidden test")
				assert.Contains(t, rep.Build.Output, "hidden tests are not shown")
				assert.Contains(t, rep.Build.Output, "_test.go", "the public tests' errors are shown")
			}},

		// 2. No road to memory: reflect and unsafe.Pointer are out.
		{name: "reflect", rejected: true, reason: `import "reflect" is not allowed`,
			src: withInit(t, sol, []string{"reflect"}, `_ = reflect.ValueOf(ErrTainted).Pointer()`)},
		{name: "unsafe-pointer-through-sync-atomic", rejected: true, reason: "unsafe.Pointer",
			src: append(withInit(t, sol, []string{"sync/atomic"}, `_ = smuggled`),
				"\nfunc ptrTo[T any](func(*T, T) T) *T { return new(T) }\n\nvar smuggled = ptrTo(atomic.SwapPointer)\n"...)},

		// 3. The given file I/O reaches nothing but the run's own temp dir:
		// not the course, not the host's /proc, not the binary, not a file
		// another run (the hidden one) could leave for a later one.
		{name: "file-io-escape", pass: allExercises,
			src: withInit(t, sol, []string{"bytes", "fmt"}, fmt.Sprintf(`
	fio, rfs := OSFileIO{}, OSRepairFS{}
	if b, err := fio.ReadFile(%[1]q); err == nil && len(b) > 0 {
		panic("read a course file")
	}
	if b, err := fio.ReadFile("/proc/1/cmdline"); err == nil && len(b) > 0 && bytes.Equal(b, []byte(%[2]q)) {
		panic("saw the host's processes")
	}
	if b, err := fio.ReadFile("/proc/%[3]d/environ"); err == nil && bytes.Equal(b, []byte(%[4]q)) {
		panic("read the grader's environment")
	}
	if b, err := fio.ReadFile("/proc/self/exe"); err == nil && len(b) > 0 {
		panic("read the test binary, hidden tests and all")
	}
	if _, err := fio.ReadFile("/tmp/%[5]s-smuggled"); err == nil {
		panic("found what an earlier run left")
	}
	_ = fio.AppendFile("/tmp/%[5]s-smuggled", []byte("hidden inputs"))
	for _, p := range %#[6]v {
		_ = fio.AppendFile(p, []byte("escaped"))
	}
	// Replace the binary: later runs would run this instead.
	_ = rfs.WriteFile("/proc/self/exe", []byte("#!/bin/sh\n"), 0o755)
	_ = rfs.WriteFile("/lab.test", []byte("#!/bin/sh\n"), 0o755)
	_ = rfs.Rename("/tmp/%[5]s-smuggled", "/lab.test")
	chunk := bytes.Repeat([]byte{'x'}, 8<<20)
	for i := 0; i < 128; i++ { // fill the disk: 1 GiB in files of 32 MiB
		if fio.AppendFile(fmt.Sprintf("/tmp/fill-%%d", i/4), chunk) != nil {
			break
		}
	}
	for i := 0; i < 32; i++ { // and empty it again, for the tests' own files
		_ = rfs.Remove(fmt.Sprintf("/tmp/fill-%%d", i))
	}`, courseFile, hostInit, os.Getpid(), ownEnviron, marker, escapes)),
			after: func(t *testing.T) {
				for _, p := range escapes {
					assert.NoFileExists(t, p, "student code wrote outside its run")
				}
			}},

		// 4. Every process a run starts ends with the run, even one that
		// leaves the process group (setsid).
		{name: "child-leaves-the-session", skipPolicy: true, pass: allExercises,
			src: withInit(t, sol, []string{"os", "os/exec", "syscall"}, fmt.Sprintf(`
	for _, a := range os.Args {
		if a == %[1]q {
			select {} // the child: stay forever
		}
	}
	cmd := exec.Command("/proc/self/exe", %[1]q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()`, childMarker))},

		// 5. Memory and processes are limited per run.
		{name: "memory-bomb", pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"}, reason: "memory limit exceeded",
			src: prefixBody(t, sol, pathToSig, `var keep [][]byte
	for {
		b := make([]byte, 16<<20)
		for i := range b {
			b[i] = 1
		}
		keep = append(keep, b)
	}`)},
		// The same in init: the package's initialisation fails in every
		// run alike, so the first run ends the submission, with the limit
		// as the reason (not a timeout, and not a run per exercise).
		{name: "memory-bomb-in-init", reason: "memory limit exceeded before any test started",
			src: withInit(t, sol, nil, `var keep [][]byte
	for {
		b := make([]byte, 16<<20)
		for i := range b {
			b[i] = 1
		}
		keep = append(keep, b)
	}`), check: func(t *testing.T, rep *report.Report) {
				assert.Less(t, rep.Seconds-rep.Build.Seconds, 25.0, "one run ends the submission: the others would fail alike")
			}},
		{name: "goroutine-bomb", pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"},
			src: prefixBody(t, sol, pathToSig, `for {
		go func() { select {} }()
	}`)},
		{name: "thread-bomb", skipPolicy: true, pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"}, reason: "process limit exceeded",
			src: []byte(strings.Replace(string(prefixBody(t, sol, pathToSig, `for {
		go func() {
			runtime.LockOSThread()
			select {}
		}()
	}`)), "\nimport (", "\nimport (\n\t\"runtime\"", 1))},

		// 6. One time budget: an init that never returns fails everything
		// at once; a submission slow in every run stops at its budget.
		{name: "init-never-returns", timeout: 3 * time.Second, reason: "no test started within",
			src: withInit(t, sol, nil, "select {}"),
			check: func(t *testing.T, rep *report.Report) {
				assert.Less(t, rep.Seconds-rep.Build.Seconds, (3*time.Second + run.Grace + 5*time.Second).Seconds(),
					"one timeout, not one per exercise")
			}},
		// Every run takes at least 3s: after the shared run and two alone,
		// the 8s budget cannot start the others.
		{name: "slow-in-every-run", timeout: 5 * time.Second, budget: 8 * time.Second, anyReason: "time budget",
			src: withInit(t, stub, []string{"time"}, "time.Sleep(3 * time.Second)"),
			check: func(t *testing.T, rep *report.Report) {
				for _, ex := range rep.Exercises {
					assert.NotRegexp(t, `-\d`, ex.Reason, "exercise %s: a run the budget did not let start says so, never a negative timeout", ex.ID)
				}
			}},

		// 9. The verdict cannot be forged. Results come from the harness
		// on fd 3, never from printed text: not even a forged line after
		// exactly a page of output (test2json's buffer), which once hid
		// a real "--- FAIL" from the events.
		{name: "forged-after-a-page-of-output", src: withInit(t, stub, []string{"fmt", "strings"},
			"go func() {\nfor i := 0; i < 64; i++ {\nfmt.Print(strings.Repeat(\"x\", 4095) + \"\\n\")\n"+forgeLines(t)+"\n}\n}()\n"+
				"fmt.Print(strings.Repeat(\"y\", 4096))\n"+forgeLines(t)),
			check: func(t *testing.T, rep *report.Report) {
				assert.Zero(t, rep.Score, "the stub with forged pass lines scores nothing")
			}},
		// The nonce and the list of tests come on the harness's fd 4 (in
		// an unlinked file, and nowhere in the environment) and the report
		// goes to its fd 3: a process running an execute-only binary (not
		// dumpable) cannot open its own /proc files, so neither can be
		// reached by the given file I/O. /dev is read-only.
		{name: "reads-the-nonce-writes-the-report", pass: allExercises,
			src: withInit(t, sol, []string{"bytes"}, reachForTheReport+`
	for _, p := range []string{"/dev/course-planted", "/dev/shm/course-planted", "/dev/mqueue/course-planted"} {
		if fio.AppendFile(p, []byte("x")) == nil {
			panic("wrote into " + p)
		}
	}`)},
		// What student code prints reaches reports only escaped: a forged
		// test name with a terminal escape sequence and a bidi override.
		{name: "escape-sequences-in-a-forged-name", reason: "events for tests that were not run",
			src: withInit(t, sol, []string{"fmt"}, `fmt.Printf("\x16=== RUN   TestEvil\x1b[2J\x1b]0;pwned\x07\u202e\n")`),
			check: func(t *testing.T, rep *report.Report) {
				for _, ex := range rep.Exercises {
					for _, s := range []string{ex.Reason, ex.HiddenReason} {
						assert.NotContains(t, s, "\x1b", "exercise %s reason %q carries a raw escape", ex.ID, s)
						assert.NotContains(t, s, "\u202e", "exercise %s reason %q carries a raw bidi override", ex.ID, s)
					}
				}
			}},

		// 8. Races fail the exercise they happen in.
		// 10.3's and 10.5's tests append from several goroutines at once.
		{name: "queue-tail-without-the-lock", pass: []string{"10.1", "10.2", "10.4", "10.6"}, reason: "data race",
			src: []byte(strings.Replace(strings.Replace(string(sol), "\tq.mu.Lock()\n\tprev := q.tail", "\tprev := q.tail", 1),
				"\tq.tail = done\n\tq.mu.Unlock()", "\tq.tail = done", 1))},
	}
}

func TestAttackFixturesAreWhatTheySay(t *testing.T) {
	// A fixture that did not change the solution would prove nothing.
	sol := string(solutionSource(t))
	for _, fx := range attackFixtures(t, []byte(sol), stubSource(t)) {
		assert.NotEqual(t, sol, string(fx.src), "fixture %s is the unchanged solution", fx.name)
	}
}

// reachForTheReport is the start of an init function that panics if the
// given file I/O reaches the grader's nonce, the list of tests or the
// report: through the run's environment, command line or file descriptors.
const reachForTheReport = `
	fio := OSFileIO{}
	for _, p := range []string{"/proc/self/environ", "/proc/1/environ", "/proc/self/cmdline", "/proc/1/cmdline", "/proc/self/task/1/environ"} {
		if b, err := fio.ReadFile(p); err == nil && bytes.Contains(b, []byte("COURSE_GRADER")) {
			panic("read the grader's nonce or test list from " + p)
		}
	}
	for _, p := range []string{"/proc/self/fd/4", "/dev/fd/4", "/proc/1/fd/4", "/proc/self/fd/3", "/dev/fd/3", "/proc/1/fd/3"} {
		if b, err := fio.ReadFile(p); err == nil && len(b) > 0 {
			panic("read the grader's nonce or report through " + p)
		}
	}
	for _, p := range []string{"/proc/self/fd/3", "/dev/fd/3", "/proc/1/fd/3", "/dev/stdout", "/proc/self/fd/1"} {
		if fio.AppendFile(p, []byte("forged end 0\n")) == nil {
			panic("wrote to the grader's report, or the events, through " + p)
		}
	}
`
