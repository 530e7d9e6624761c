// Package selfcheck proves that a lab's tests tell right from wrong: the
// stub fails every test, the reference solution and the alternative
// solutions pass every test, and every mutant (a plausible wrong solution,
// kept as a small patch of the reference) fails at least one test of the
// exercise it models a mistake of.
package selfcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Mutant is a plausible wrong solution: the reference solution with one
// mistake a student could make, kept as a patch so it stays small and says
// exactly what differs.
type Mutant struct {
	// ID is the patch's file name without .patch, e.g. "N.M-tainted-keeps-writing".
	ID string
	// Exercise is the exercise whose tests must catch it ("N.M").
	Exercise string
	// Mistake says in one sentence what the mutant gets wrong.
	Mistake string
	// Rules are the rules of the lab it breaks: at least one test that
	// checks one of them must fail on it.
	Rules []string
	// File is the file the patch changes, as its "--- a/FILE" and
	// "+++ b/FILE" lines name it: the file a student edits, for a patch
	// that patch -p1 and git apply take.
	File string
	// Patch is the unified diff against the reference solution's file.
	Patch []byte
}

// MutantError reports a mutant file that cannot be used.
type MutantError struct {
	File string
	Err  error
}

func (e *MutantError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *MutantError) Unwrap() error { return e.Err }

// LoadMutants reads every *.patch in dir of fsys. A patch starts with a
// header of "Key: value" lines (Exercise, Mistake and Rules, all required),
// then the diff:
//
//	Exercise: N.M
//	Mistake: the failed write does not taint the writer
//	Rules: N.M.4
//
//	--- a/file.go
//	+++ b/file.go
//	@@ ...
func LoadMutants(fsys fs.FS, dir string) ([]Mutant, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".patch") {
			continue
		}
		p := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		m := Mutant{ID: strings.TrimSuffix(e.Name(), ".patch"), Patch: data}
		files, preamble, err := gitdiff.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, &MutantError{File: p, Err: err}
		}
		if len(files) == 1 {
			m.File = files[0].NewName
			if files[0].OldName != m.File {
				return nil, &MutantError{File: p, Err: fmt.Errorf("the patch changes %q into %q: want one file, named the same on its --- a/ and +++ b/ lines", files[0].OldName, m.File)}
			}
		}
		sc := bufio.NewScanner(strings.NewReader(preamble))
		for sc.Scan() {
			key, value, ok := strings.Cut(sc.Text(), ": ")
			if !ok {
				continue
			}
			switch key {
			case "Exercise":
				m.Exercise = strings.TrimSpace(value)
			case "Mistake":
				m.Mistake = strings.TrimSpace(value)
			case "Rules":
				for _, r := range strings.Split(value, ",") {
					if r = strings.TrimSpace(r); r != "" {
						m.Rules = append(m.Rules, r)
					}
				}
			default:
				return nil, &MutantError{File: p, Err: fmt.Errorf("unknown header %q (known: Exercise, Mistake, Rules)", key)}
			}
		}
		if m.Exercise == "" || m.Mistake == "" || len(m.Rules) == 0 {
			return nil, &MutantError{File: p, Err: fmt.Errorf("header needs an Exercise:, a Mistake: and a Rules: line")}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Apply returns the reference solution with the mutant's patch applied. Each
// hunk is found by its content (its context and removed lines), not by its
// line number, so editing the solution elsewhere does not break a mutant;
// a hunk whose lines are gone or appear twice is an error, so a stale
// mutant is noticed instead of silently testing nothing.
func (m Mutant) Apply(solution []byte) ([]byte, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(m.Patch))
	if err != nil {
		return nil, &MutantError{File: m.ID, Err: err}
	}
	if len(files) != 1 {
		return nil, &MutantError{File: m.ID, Err: fmt.Errorf("patch changes %d files, want exactly the one a student edits", len(files))}
	}
	text := string(solution)
	for i, frag := range files[0].TextFragments {
		var old, repl strings.Builder
		for _, l := range frag.Lines {
			switch l.Op {
			case gitdiff.OpContext:
				old.WriteString(l.Line)
				repl.WriteString(l.Line)
			case gitdiff.OpDelete:
				old.WriteString(l.Line)
			case gitdiff.OpAdd:
				repl.WriteString(l.Line)
			}
		}
		switch n := strings.Count(text, old.String()); {
		case old.Len() == 0:
			return nil, &MutantError{File: m.ID, Err: fmt.Errorf("hunk %d has no context to place it", i+1)}
		case n == 0:
			return nil, &MutantError{File: m.ID, Err: fmt.Errorf("hunk %d (near line %d) no longer applies to the reference solution: its lines are not there", i+1, frag.OldPosition)}
		case n > 1:
			return nil, &MutantError{File: m.ID, Err: fmt.Errorf("hunk %d (near line %d) matches %d places in the reference solution; add context", i+1, frag.OldPosition, n)}
		}
		text = strings.Replace(text, old.String(), repl.String(), 1)
	}
	if text == string(solution) {
		return nil, &MutantError{File: m.ID, Err: fmt.Errorf("patch changes nothing")}
	}
	return []byte(text), nil
}
