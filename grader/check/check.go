// Package check is the grader's static wall: before anything is built, a
// student's file must parse and type-check against the lab's given files,
// import only what the lab allows, declare nothing that reaches arbitrary
// memory or changes the given files' code, and lay out no more static data
// than the bounds allow. The rules are in internal/staticcheck and run in a
// helper process of their own, with a deadline and a memory limit; a file
// the checker cannot fully decide on is refused.
package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coursekit/course/grader/courseroot"
	"github.com/coursekit/course/grader/internal/capped"
	"github.com/coursekit/course/grader/internal/helperprog"
	"github.com/coursekit/course/grader/internal/procgroup"
	"github.com/coursekit/course/grader/internal/staticcheck"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/sandbox"
)

// AllowedImports is the standard library a student file may import: pure
// computation, encoding and synchronisation. Everything else is denied by
// default, above all what can end the process (os, log), read or write files
// (os, path/filepath, io/ioutil), reach the network (net), escape the type
// system (unsafe, and reflect, whose Value.Pointer and NewAt read and write
// any memory), touch the test harness (testing, flag, runtime) or change the
// build (C, embed, plugin).
var AllowedImports = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring",
	"context", "encoding", "encoding/base64", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash", "hash/crc32", "hash/fnv", "io", "io/fs",
	"maps", "math", "math/big", "math/bits", "path", "slices",
	"sort", "strconv", "strings", "sync", "sync/atomic", "time",
	"unicode", "unicode/utf16", "unicode/utf8",
}

// AllowedImportsOf is the standard library the file of a lab may import:
// AllowedImports, less what starts or serves goroutines in a sequential lab.
func AllowedImportsOf(l *lab.Lab) []string {
	if !l.Sequential {
		return slices.Clone(AllowedImports)
	}
	return slices.DeleteFunc(slices.Clone(AllowedImports), func(p string) bool {
		return slices.Contains(staticcheck.SequentialImports(), p)
	})
}

// Violation is one reason a student file may not be built.
type Violation struct {
	Line    int
	Problem string
	Hint    string // what would be allowed instead, when the problem has one
	// Compile: a syntax or type error, which no build would get past,
	// rather than a rule of what a lab file may do.
	Compile bool
}

// At says where v is and what: "session.go:12: problem", or without the
// line when the problem is the file's as a whole.
func (v Violation) At(file string) string {
	if v.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, v.Line, v.Problem)
	}
	return file + ": " + v.Problem
}

// In says v of file, with its hint: "session.go:12: problem; hint".
func (v Violation) In(file string) string {
	if v.Hint != "" {
		return v.At(file) + "; " + v.Hint
	}
	return v.At(file)
}

// Error lists every violation of a student file, so a student can fix
// them all at once.
type Error struct {
	File       string
	Violations []Violation
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s breaks the grading rules:", e.File)
	for _, v := range e.Violations {
		b.WriteString("\n  " + v.In(e.File))
	}
	return b.String()
}

// CompileOnly reports whether every violation is a syntax or type error:
// the file is not Go that builds, whatever the rules. A report calls that
// a failed build, as the compiler would, not a broken rule.
func (e *Error) CompileOnly() bool {
	for _, v := range e.Violations {
		if !v.Compile {
			return false
		}
	}
	return len(e.Violations) > 0
}

// Lines are the violations, one line each, as a compiler lists its
// errors: "session.go:12: problem".
func (e *Error) Lines() string {
	var b strings.Builder
	for _, v := range e.Violations {
		b.WriteString(v.At(e.File) + "\n")
	}
	return b.String()
}

// maxViolations bounds how many problems one rejection lists.
const maxViolations = 20

// DefaultTimeout bounds the static check of one file. A real lab file
// is checked in well under a second; a file built to make go/types work
// for minutes is rejected when it runs out.
const DefaultTimeout = 20 * time.Second

// checkOutputCap bounds what the checker's helper may print.
const checkOutputCap = 1 << 20

// Checker is the grader's static wall (package staticcheck holds the
// rules). Each check runs in a helper process of its own, built once from
// the rules' source, with a deadline (DefaultTimeout) and a memory
// limit: a file the helper cannot check within them is rejected, and so is
// every file it cannot fully parse and type-check. A checker that gives up
// must never let a file through.
//
// A Checker is safe for concurrent use.
type Checker struct {
	editable  string            // the student file's name
	pkg       string            // its package name
	goVersion string            // "go1.22": the language version of the lab
	given     map[string]string // the given files, by name
	exports   map[string]string // import path -> export data file
	helper    string            // the helper program
	timeout   time.Duration     // per check
	// Sequential refuses goroutines in the student file (lab.Manifest).
	Sequential bool
}

// New prepares a Checker for the lab's file editable (package pkg,
// Go language version goVersion such as "1.22") compiled with the given
// files. goBin is the go command, asked once (`go list -export`) where the
// export data of the standard packages is, and used to build the helper
// (offline: it needs only the standard library); env is its environment.
func New(editable, pkg, goVersion string, given map[string][]byte, goBin string, env []string) (*Checker, error) {
	want, err := Imports(given)
	if err != nil {
		return nil, err
	}
	exports, err := ExportData(goBin, env, want)
	if err != nil {
		return nil, err
	}
	helper, err := BuildHelper(goBin, env)
	if err != nil {
		return nil, err
	}
	return NewWith(editable, pkg, goVersion, given, exports, helper), nil
}

// NewWith is a Checker from what New asks the go command for:
// the export data files by import path, and the helper program.
func NewWith(editable, pkg, goVersion string, given map[string][]byte, exports map[string]string, helper string) *Checker {
	c := &Checker{editable: editable, pkg: pkg, given: map[string]string{}, exports: exports, helper: helper, timeout: DefaultTimeout}
	if goVersion != "" {
		c.goVersion = "go" + goVersion
	}
	for name, src := range given {
		c.given[name] = string(src)
	}
	return c
}

// Imports is every package the checker must see the export data
// of: what the student may import, and what the given files do.
func Imports(given map[string][]byte) (map[string]bool, error) {
	want := map[string]bool{}
	for _, p := range AllowedImports {
		want[p] = true
	}
	fset := token.NewFileSet()
	for name, src := range given {
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			return nil, fmt.Errorf("checker: given file %w", err)
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("checker: given file %s: %w", name, err)
			}
			want[p] = true
		}
	}
	return want, nil
}

// ExportData asks the go command for the export data files of pkgs and all
// their dependencies (compiling them into the build cache if needed).
func ExportData(goBin string, env []string, pkgs map[string]bool) (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Export"}
	for p := range pkgs {
		args = append(args, p)
	}
	sort.Strings(args[4:])
	dir, err := os.MkdirTemp("", "course-checker-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir // outside any module: the standard library only
	cmd.Env = append(slices.Clone(env), "GOFLAGS=", "GO111MODULE=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: go list -export of the standard library: %v: %s", sandbox.ErrSetup, err, helperprog.LastLine(stderr.String()))
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: go list -export: %v", sandbox.ErrSetup, err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	for p := range pkgs {
		if exports[p] == "" && p != "unsafe" {
			return nil, fmt.Errorf("%w: go list -export gave no export data for %s", sandbox.ErrSetup, p)
		}
	}
	return exports, nil
}

// BuildHelper builds the checker's helper program from the source
// package staticcheck embeds (see helperProgram).
func BuildHelper(goBin string, env []string) (string, error) {
	return helperprog.Build(goBin, env, "checker", staticcheck.Source, courseroot.ModulePath, staticcheck.Dir)
}

// Check checks the student file src. It returns nil when the file may be
// built, a *Error listing what is wrong when it may not (including
// when the check ran out of time or memory), and any other error only for
// the checker's own trouble (a missing export data file, say), which
// grades nothing.
func (c *Checker) Check(src []byte) error {
	req, err := json.Marshal(&staticcheck.Request{
		File: c.editable, Package: c.pkg, GoVersion: c.goVersion, Src: string(src),
		Given: c.given, Exports: c.exports, Allowed: AllowedImports, Max: maxViolations, Sequential: c.Sequential,
	})
	if err != nil {
		return fmt.Errorf("checker: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.helper)
	procgroup.Set(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.Stdin = bytes.NewReader(req)
	stdout, stderr := &capped.Buffer{Max: checkOutputCap}, &capped.Buffer{Max: checkOutputCap}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return c.reject(0, fmt.Sprintf("the grader could not check this file within %s; a file it cannot fully check is not graded", c.timeout))
	case err != nil && strings.Contains(stderr.String(), "out of memory"):
		return c.reject(0, "the grader ran out of memory checking this file; a file it cannot fully check is not graded")
	case err != nil:
		return c.reject(0, fmt.Sprintf("the grader's checker failed on this file (%v: %s); it cannot be graded as it is", err, helperprog.LastLine(stderr.String())))
	}
	var res staticcheck.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return c.reject(0, "the grader's checker gave no verdict on this file ("+err.Error()+"); it cannot be graded as it is")
	}
	if res.Trouble != "" {
		return fmt.Errorf("checker: %s", res.Trouble)
	}
	if len(res.Violations) == 0 {
		return nil
	}
	vs := make([]Violation, len(res.Violations))
	for i, v := range res.Violations {
		vs[i] = Violation{Line: v.Line, Problem: v.Problem, Hint: v.Hint, Compile: v.Compile}
	}
	return &Error{File: c.editable, Violations: vs}
}

func (c *Checker) reject(line int, problem string) *Error {
	return &Error{File: c.editable, Violations: []Violation{{Line: line, Problem: problem}}}
}
