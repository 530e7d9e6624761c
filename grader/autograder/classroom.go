package autograder

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/coursekit/course/grader/lab"
)

// GitHub Classroom's names, which its autograding relies on: the reporter
// uploads scores only from a workflow named WorkflowName whose one job is
// JobName.
const (
	WorkflowPath   = ".github/workflows/classroom.yml"
	WorkflowName   = "Autograding Tests"
	JobName        = "run-autograding-tests"
	CommandGrader  = "classroom-resources/autograding-command-grader@v1"
	GradingReport  = "classroom-resources/autograding-grading-reporter@v1"
	CheckoutAction = "actions/checkout@v4"
	SetupGoAction  = "actions/setup-go@v5"
)

// DefaultClassroomTimeout is the time limit of one exercise's step: the
// first one also compiles the lab's tests.
const DefaultClassroomTimeout = 2 * time.Minute

// Classroom describes a GitHub Classroom workflow for a lab.
type Classroom struct {
	Lab *lab.Lab
	// Bonus adds a step for each bonus exercise.
	Bonus bool
	// Timeout is each exercise's limit, rounded up to whole minutes (the
	// command grader counts in minutes); DefaultClassroomTimeout if zero.
	Timeout time.Duration
}

// ClassroomStep is one exercise's step: what it runs and what it is worth.
type ClassroomStep struct {
	ID       string // the step id, also the reporter's runner name
	Name     string // the exercise's id and name, "N.M Name"
	Command  string // go test -count=1 -run '^<its test prefix>'
	Points   int
	Minutes  int
	Exercise lab.Exercise
}

// Steps returns one step per graded exercise, in the lab's order.
func (c *Classroom) Steps() ([]ClassroomStep, error) {
	if c.Lab == nil {
		return nil, errors.New("no lab given")
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultClassroomTimeout
	}
	if timeout < 0 {
		return nil, fmt.Errorf("timeout %s: must be positive", timeout)
	}
	minutes := int((timeout + time.Minute - 1) / time.Minute)
	var steps []ClassroomStep
	for _, e := range c.Lab.Exercises {
		if e.Bonus && !c.Bonus {
			continue
		}
		steps = append(steps, ClassroomStep{
			ID:       stepID(c.Lab.Chapter, e.ID),
			Name:     e.ID + " " + e.Name,
			Command:  fmt.Sprintf("go test -count=1 -run '^%s'", e.TestPrefix),
			Points:   e.Points,
			Minutes:  minutes,
			Exercise: e,
		})
	}
	return steps, nil
}

// stepID makes a step id of an exercise id: "N.M" is "labN-M" (a letter
// first, then letters, digits and "-", as step ids and the reporter's
// environment variable names allow).
func stepID(chapter, exID string) string {
	id := strings.TrimPrefix(exID, chapter+".")
	var b strings.Builder
	b.WriteString("lab" + chapter + "-")
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	return strings.ToLower(b.String())
}

// ResultsEnv is the environment variable through which the reporter reads
// the result of the step with id.
func ResultsEnv(id string) string { return strings.ToUpper(id) + "_RESULTS" }

// The workflow file, in the order GitHub's documentation writes it.
type workflow struct {
	Name        string         `yaml:"name"`
	On          []string       `yaml:"on"`
	Permissions permissions    `yaml:"permissions"`
	Jobs        map[string]job `yaml:"jobs"`
}

type permissions struct {
	Checks   string `yaml:"checks"`
	Actions  string `yaml:"actions"`
	Contents string `yaml:"contents"`
}

type job struct {
	RunsOn string `yaml:"runs-on"`
	If     string `yaml:"if"`
	Steps  []step `yaml:"steps"`
}

type step struct {
	Name            string     `yaml:"name"`
	ID              string     `yaml:"id,omitempty"`
	Uses            string     `yaml:"uses,omitempty"`
	Run             string     `yaml:"run,omitempty"`
	ContinueOnError bool       `yaml:"continue-on-error,omitempty"`
	Env             *yaml.Node `yaml:"env,omitempty"`
	With            *yaml.Node `yaml:"with,omitempty"`
}

// Workflow returns the workflow file: check out the repository, set up the
// Go of its go.mod, download its modules, then one command-grader step per
// exercise (its anchored go test -run, its points and time limit) and the
// reporter, which adds up the points for Classroom.
func (c *Classroom) Workflow() ([]byte, error) {
	steps, err := c.Steps()
	if err != nil {
		return nil, err
	}
	js := []step{
		{Name: "Checkout code", Uses: CheckoutAction},
		{Name: "Set up Go", Uses: SetupGoAction, With: mapping("go-version-file", "go.mod")},
		// A broken go.mod must still end in a score of 0, not a skipped report.
		{Name: "Download modules", Run: "go mod download", ContinueOnError: true},
	}
	var env, runners []string
	total := 0
	for _, s := range steps {
		js = append(js, step{
			Name: s.Name, ID: s.ID, Uses: CommandGrader,
			With: mapping(
				"test-name", s.Name,
				"setup-command", "",
				"command", s.Command,
				"timeout", fmt.Sprint(s.Minutes),
				"max-score", fmt.Sprint(s.Points),
			),
		})
		env = append(env, ResultsEnv(s.ID), "${{steps."+s.ID+".outputs.result}}")
		runners = append(runners, s.ID)
		total += s.Points
	}
	js = append(js, step{
		Name: "Autograding Reporter", Uses: GradingReport,
		Env: quoted(mapping(env...)), With: mapping("runners", strings.Join(runners, ",")),
	})
	wf := workflow{
		Name:        WorkflowName,
		On:          []string{"push", "repository_dispatch", "workflow_dispatch"},
		Permissions: permissions{Checks: "write", Actions: "read", Contents: "read"},
		Jobs: map[string]job{JobName: {
			RunsOn: "ubuntu-latest",
			If:     "github.actor != 'github-classroom[bot]'",
			Steps:  js,
		}},
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# GitHub Classroom autograding for lab %s (%s): %d exercises, %d points.\n", c.Lab.Chapter, c.Lab.Title, len(steps), total)
	b.WriteString("# Each exercise's step runs its public tests with an anchored go test -run;\n")
	b.WriteString("# the reporter adds up the points. Made by `course autograder classroom`,\n")
	b.WriteString("# see docs/instructors.md in the course.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(wf); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// mapping makes an ordered YAML mapping of key, value pairs; an empty
// value is left out.
func mapping(kv ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[i]},
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[i+1]})
	}
	return n
}

// quoted double-quotes the values of mapping n, as GitHub's documentation
// writes ${{ }} expressions.
func quoted(n *yaml.Node) *yaml.Node {
	for i := 1; i < len(n.Content); i += 2 {
		n.Content[i].Style = yaml.DoubleQuotedStyle
	}
	return n
}
