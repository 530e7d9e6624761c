package autograder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coursekit/course/grader/lab"
)

// Names of a Classroom 50 assignment's grading files, in its directory
// CLASSROOM/autograders/ASSIGNMENT/ of the classroom50 repository.
const (
	Classroom50Script  = "autograder.py"
	Classroom50Runtime = "runtime.json"
	// Classroom50Source is the directory of the student release of the
	// course that autograder.py builds the course tool from.
	Classroom50Source = "course"
)

// Classroom50 describes the grading files of a Classroom 50 assignment of
// one lab: an autograder.py, which builds the course tool from a student
// release beside it and writes result.json with `course grade --format
// classroom50`, and the assignment's runtime block.
type Classroom50 struct {
	Lab *lab.Lab
	// Bonus grades the lab's bonus exercises too.
	Bonus bool
	// Timeout, if set, is course grade's --timeout.
	Timeout time.Duration
	// GoVersion is the Go release the runtime block asks for ("go1.26.2");
	// DefaultGoVersion() if empty.
	GoVersion string
}

// Runtime is the assignment's runtime block, for `gh teacher assignment
// add --runtime runtime.json` or the web form's advanced settings: an
// Ubuntu runner with the Go release that builds the course.
func (c *Classroom50) Runtime() ([]byte, error) {
	v, err := c.goVersion()
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(struct {
		RunsOn string `json:"runs-on"`
		Go     string `json:"go"`
	}{"ubuntu-latest", strings.TrimPrefix(v, "go")}, "", "  ")
	return append(data, '\n'), err
}

func (c *Classroom50) goVersion() (string, error) { return goRelease(c.GoVersion) }

// goRelease checks a Go release's name ("go1.26.2"), DefaultGoVersion()
// if empty.
func goRelease(v string) (string, error) {
	if v == "" {
		v = DefaultGoVersion()
	}
	if !goReleaseName.MatchString(v) {
		return "", fmt.Errorf("Go version %q: not a release name like go1.26.2", v)
	}
	return v, nil
}

// Script returns autograder.py.
func (c *Classroom50) Script() ([]byte, error) {
	if c.Lab == nil {
		return nil, errors.New("no lab given")
	}
	if c.Timeout < 0 {
		return nil, fmt.Errorf("timeout %s: must be positive", c.Timeout)
	}
	if !safeWord.MatchString(c.Lab.Chapter) {
		return nil, fmt.Errorf("chapter %q: not a plain name", c.Lab.Chapter)
	}
	// Student code runs in the student's own repository, which the student
	// controls: a weaker sandbox there protects nothing more, and GitHub's
	// runners may refuse the namespaces of the full one.
	flags := []string{"--chapter", c.Lab.Chapter, "--sandbox", "best"}
	if c.Bonus {
		flags = append(flags, "--bonus")
	}
	if c.Timeout > 0 {
		flags = append(flags, "--timeout", c.Timeout.String())
	}
	var exercises [][2]any
	points := 0
	for _, e := range c.Lab.Exercises {
		if e.Bonus && !c.Bonus {
			continue
		}
		exercises = append(exercises, [2]any{e.ID + " " + e.Name, e.Points})
		points += e.Points
	}
	// JSON lists of strings and numbers are Python literals too.
	fl, err := json.Marshal(flags)
	if err != nil {
		return nil, err
	}
	ex, err := json.Marshal(exercises)
	if err != nil {
		return nil, err
	}
	data := struct {
		Chapter, Title, Editable, GradeFlags, Exercises string
		Count, Points                                   int
	}{c.Lab.Chapter, c.Lab.Title, strings.Join(c.Lab.Editable, " and "), string(fl), string(ex), len(exercises), points}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "autograder.py.tmpl", data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
