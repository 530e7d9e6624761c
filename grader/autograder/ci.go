package autograder

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/coursekit/course/grader/lab"
)

// Where the CI files go in a student's repository.
const (
	GitHubWorkflowPath = ".github/workflows/grade.yml"
	GitLabCIPath       = ".gitlab-ci.yml"
	// CourseToolDir is where a CI job puts the course tool's source (the
	// course's student release) inside its workspace.
	CourseToolDir = ".course-tool"
	// SubmissionDir is where the GitHub job checks out the student's
	// repository: beside the reports, since grading never writes into a
	// submission.
	SubmissionDir = "submission"
)

// The actions the GitHub workflow uses, each pinned to a full commit SHA
// (a tag can be moved; a commit cannot), with the release it is.
var (
	CheckoutAction       = PinnedAction{"actions/checkout", "11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"}
	SetupGoAction        = PinnedAction{"actions/setup-go", "d35c59abb061a4a6fb18e82ac0862c26744d6ab5", "v5.5.0"}
	UploadArtifactAction = PinnedAction{"actions/upload-artifact", "ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"}
	// DownloadArtifactAction is the release of actions/download-artifact
	// made beside UploadArtifactAction's (artifacts v4 both).
	DownloadArtifactAction = PinnedAction{"actions/download-artifact", "d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"}
)

// PinnedAction is a GitHub action at one commit.
type PinnedAction struct{ Repo, SHA, Version string }

// Uses is the action's `uses:` value.
func (a PinnedAction) Uses() string { return a.Repo + "@" + a.SHA }

// CI describes a CI job that grades a student's repository (a practice
// workspace) with the course tool, for GitHub Actions or GitLab CI.
type CI struct {
	Lab *lab.Lab
	// Bonus grades the lab's bonus exercises too.
	Bonus bool
	// Timeout, if set, is course grade's --timeout.
	Timeout time.Duration
	// CourseRepo is where the job gets the course tool: the repository of
	// the course's student release. For GitHub, "OWNER/NAME"; for GitLab,
	// a git URL the job can clone.
	CourseRepo string
	// CourseRef is the branch or tag of CourseRepo ("main" if empty).
	CourseRef string
	// GoVersion is the Go release of GitLab's image ("go1.26.2");
	// DefaultGoVersion() if empty. GitHub's job takes the Go of the
	// course's go.mod.
	GoVersion string
}

var (
	githubRepo = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	gitRef     = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_./-]*$`)
	gitURL     = regexp.MustCompile(`^(https://|ssh://|git@)[A-Za-z0-9_.:/@~+-]+$`)
)

func (c *CI) check(repo *regexp.Regexp, what string) (ref string, err error) {
	if c.Lab == nil {
		return "", errors.New("no lab given")
	}
	if !safeWord.MatchString(c.Lab.Chapter) {
		return "", fmt.Errorf("chapter %q: not a plain name", c.Lab.Chapter)
	}
	if c.Timeout < 0 {
		return "", fmt.Errorf("timeout %s: must be positive", c.Timeout)
	}
	if !repo.MatchString(c.CourseRepo) {
		return "", fmt.Errorf("course repository %q: not %s", c.CourseRepo, what)
	}
	ref = c.CourseRef
	if ref == "" {
		ref = "main"
	}
	if !gitRef.MatchString(ref) || strings.Contains(ref, "..") {
		return "", fmt.Errorf("course ref %q: not a branch or tag name", ref)
	}
	return ref, nil
}

// gradeFlags are course grade's flags for the job. Student code runs in
// the student's own CI job, which the student controls: a weaker sandbox
// there protects nothing more, and CI machines often refuse the namespaces
// of the full one.
func (c *CI) gradeFlags() string { return gradeFlags(c.Lab, "best", c.Bonus, c.Timeout) }

// gradeFlags are course grade's flags for lab l in a job's script.
func gradeFlags(l *lab.Lab, sandbox string, bonus bool, timeout time.Duration) string {
	flags := []string{"--chapter", l.Chapter, "--sandbox", sandbox}
	if bonus {
		flags = append(flags, "--bonus")
	}
	if timeout > 0 {
		flags = append(flags, "--timeout", timeout.String())
	}
	return strings.Join(flags, " ")
}

// summary is the header comment of a CI file.
func (c *CI) summary(platform, made string) string {
	n, points := 0, 0
	for _, e := range c.Lab.Exercises {
		if !e.Bonus || c.Bonus {
			n++
			points += e.Points
		}
	}
	return fmt.Sprintf("# %s: grades lab %s (%s), %d exercises, %d points, with the course tool\n"+
		"# of the course's student release (public tests only). Made by `course autograder %s`;\n"+
		"# see docs/instructors.md in the course.\n", platform, c.Lab.Chapter, c.Lab.Title, n, points, made)
}

// Shell steps of both jobs. $COURSE is the built course tool.
const (
	downloadScript = "go mod download\n(cd labs && go mod download)\n"
	gradeScript    = `status=0
"$COURSE" grade %s --json -o "$REPORTS/report.json" %s || status=$?
echo "course grade: exit status $status (0: every exercise passed, 1: some failed, 2: could not grade)"
`
	reportScript = `"$COURSE" autograder report --format junit -o "$REPORTS/junit.xml" --force "$REPORTS/report.json"
`
)

// GitHubWorkflow returns the GitHub Actions workflow: check out the
// repository and the course's student release, set up Go with its module
// cache, build the course tool, grade the repository into report.json,
// write the exercise table to the job's summary, upload report.json and
// junit.xml, and fail the job unless every exercise passed. Every action
// is pinned to a full commit SHA; the token may only read the repository.
func (c *CI) GitHubWorkflow() ([]byte, error) {
	ref, err := c.check(githubRepo, "OWNER/NAME")
	if err != nil {
		return nil, err
	}
	course := `COURSE="$RUNNER_TEMP/course"` + "\n" + `REPORTS="$GITHUB_WORKSPACE"` + "\n"
	steps := []ghStep{
		{Name: "Check out the submission", Uses: CheckoutAction, With: mapping("path", SubmissionDir, "persist-credentials", "false")},
		{Name: "Check out the course tool", Uses: CheckoutAction,
			With: mapping("repository", c.CourseRepo, "ref", ref, "path", CourseToolDir, "persist-credentials", "false")},
		{Name: "Set up Go", Uses: SetupGoAction, With: mapping(
			"go-version-file", CourseToolDir+"/go.mod",
			"cache-dependency-path", CourseToolDir+"/go.sum\n"+CourseToolDir+"/labs/go.sum\n")},
		{Name: "Build the course tool", WorkingDirectory: CourseToolDir,
			Run: downloadScript + `go build -trimpath -o "$RUNNER_TEMP/course" ./cmd/course` + "\n"},
		{Name: "Grade", ID: "grade", Run: course + fmt.Sprintf(gradeScript, c.gradeFlags(), SubmissionDir) +
			`echo "status=$status" >>"$GITHUB_OUTPUT"` + "\n" +
			`if [ "$status" -gt 1 ]; then echo "::error::course grade could not grade this repository"; exit "$status"; fi` + "\n"},
		{Name: "Summary and JUnit report", If: "${{ !cancelled() && hashFiles('report.json') != '' }}",
			Run: course + `"$COURSE" autograder report --format markdown "$REPORTS/report.json" >>"$GITHUB_STEP_SUMMARY"` + "\n" + reportScript},
		{Name: "Upload the reports", If: "${{ !cancelled() && hashFiles('report.json') != '' }}", Uses: UploadArtifactAction,
			With: mapping("name", "grade-report", "path", "report.json\njunit.xml\n", "if-no-files-found", "ignore")},
		{Name: "Pass only if every exercise passed", Env: mapping("STATUS", "${{ steps.grade.outputs.status }}"),
			Run: `exit "$STATUS"` + "\n"},
	}
	wf := ghWorkflow{
		Name:        "Grade",
		On:          events("push", "workflow_dispatch"),
		Permissions: mapping("contents", "read"),
		Jobs: map[string]ghJob{"grade": {
			Name: "Grade lab " + c.Lab.Chapter, RunsOn: "ubuntu-latest", TimeoutMinutes: 20, Steps: steps,
		}},
	}
	var b bytes.Buffer
	b.WriteString(c.summary("GitHub Actions", "github"))
	if err := encodeYAML(&b, wf); err != nil {
		return nil, err
	}
	return commentPins(b.String()), nil
}

// commentPins writes a version comment after each pinned SHA of a
// workflow, as people read them.
func commentPins(workflow string) []byte {
	for _, a := range []PinnedAction{CheckoutAction, SetupGoAction, UploadArtifactAction, DownloadArtifactAction} {
		workflow = strings.ReplaceAll(workflow, "uses: "+a.Uses()+"\n", "uses: "+a.Uses()+" # "+a.Version+"\n")
	}
	return []byte(workflow)
}

type ghWorkflow struct {
	Name        string           `yaml:"name"`
	On          *yaml.Node       `yaml:"on"`
	Permissions *yaml.Node       `yaml:"permissions"`
	Jobs        map[string]ghJob `yaml:"jobs"`
}

type ghJob struct {
	Name           string     `yaml:"name"`
	Needs          string     `yaml:"needs,omitempty"`
	RunsOn         string     `yaml:"runs-on"`
	TimeoutMinutes int        `yaml:"timeout-minutes"`
	Strategy       *yaml.Node `yaml:"strategy,omitempty"`
	Env            *yaml.Node `yaml:"env,omitempty"`
	Steps          []ghStep   `yaml:"steps"`
}

type ghStep struct {
	Name             string       `yaml:"name"`
	ID               string       `yaml:"id,omitempty"`
	If               string       `yaml:"if,omitempty"`
	Uses             PinnedAction `yaml:"uses,omitempty"`
	WorkingDirectory string       `yaml:"working-directory,omitempty"`
	Env              *yaml.Node   `yaml:"env,omitempty"`
	With             *yaml.Node   `yaml:"with,omitempty"`
	Run              string       `yaml:"run,omitempty"`
}

// MarshalYAML writes an action as its `uses:` value.
func (a PinnedAction) MarshalYAML() (any, error) { return a.Uses(), nil }

// IsZero leaves an unset action out.
func (a PinnedAction) IsZero() bool { return a.Repo == "" }

// GitLabCI returns .gitlab-ci.yml: one job in Go's official image that
// clones the course's student release, builds the course tool (its
// modules cached in the project), grades the repository into
// report.json, prints the exercise table in the log, makes junit.xml (a
// JUnit report GitLab shows in merge requests and pipelines), keeps both
// as artifacts, and fails unless every exercise passed.
func (c *CI) GitLabCI() ([]byte, error) {
	ref, err := c.check(gitURL, "a git URL (https://, ssh:// or git@)")
	if err != nil {
		return nil, err
	}
	goVersion := c.GoVersion
	if goVersion == "" {
		goVersion = DefaultGoVersion()
	}
	if !goReleaseName.MatchString(goVersion) {
		return nil, fmt.Errorf("Go version %q: not a release name like go1.26.2", goVersion)
	}
	// Grading never writes into the submission (the project's directory):
	// the reports are written outside it, then copied in for the artifacts.
	course := `COURSE="$CI_PROJECT_DIR/.course-bin/course"` + "\n" + `REPORTS="$(mktemp -d)"` + "\n"
	job := glJob{
		Image: "golang:" + strings.TrimPrefix(goVersion, "go"),
		Variables: mapping(
			"COURSE_REPO", c.CourseRepo,
			"COURSE_REF", ref,
			// The module cache inside the project, where GitLab's cache can keep it.
			"GOMODCACHE", "$CI_PROJECT_DIR/.go-mod",
		),
		Cache: mapping("key", "course-go-modules", "paths", ""),
		Script: []string{
			`git clone --depth 1 --branch "$COURSE_REF" "$COURSE_REPO" ` + CourseToolDir,
			"cd " + CourseToolDir + "\n" + downloadScript + `go build -trimpath -o "$CI_PROJECT_DIR/.course-bin/course" ./cmd/course` + "\ncd \"$CI_PROJECT_DIR\"\n",
			course + fmt.Sprintf(gradeScript, c.gradeFlags(), ".") +
				`if [ -s "$REPORTS/report.json" ]; then` + "\n" +
				`  "$COURSE" autograder report "$REPORTS/report.json"` + "\n" +
				"  " + reportScript +
				`  cp "$REPORTS/report.json" "$REPORTS/junit.xml" "$CI_PROJECT_DIR/"` + "\n" +
				"fi\n" +
				`exit "$status"` + "\n",
		},
		Artifacts: glArtifacts{When: "always", Paths: []string{"report.json", "junit.xml"}, Reports: map[string]string{"junit": "junit.xml"}},
	}
	job.Cache.Content = append(job.Cache.Content[:2], &yaml.Node{Kind: yaml.ScalarNode, Value: "paths"},
		&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: ".go-mod/"}}})
	var b bytes.Buffer
	b.WriteString(c.summary("GitLab CI", "gitlab"))
	if err := encodeYAML(&b, map[string]glJob{"grade": job}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type glJob struct {
	Image     string      `yaml:"image"`
	Variables *yaml.Node  `yaml:"variables"`
	Cache     *yaml.Node  `yaml:"cache"`
	Script    []string    `yaml:"script"`
	Artifacts glArtifacts `yaml:"artifacts"`
}

type glArtifacts struct {
	When     string            `yaml:"when,omitempty"`
	Paths    []string          `yaml:"paths"`
	ExpireIn string            `yaml:"expire_in,omitempty"`
	Reports  map[string]string `yaml:"reports,omitempty"`
}

func encodeYAML(b *bytes.Buffer, v any) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// mapping makes an ordered YAML mapping of key, value pairs; an empty
// value is left out.
func mapping(kv ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		style := yaml.Style(0)
		if strings.Contains(kv[i+1], "\n") {
			style = yaml.LiteralStyle
		}
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[i]},
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[i+1], Style: style})
	}
	return n
}

// events makes a mapping of events to null: `push:` with no filters.
func events(names ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, name := range names {
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: name},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""})
	}
	return n
}
