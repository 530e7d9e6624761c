package autograder_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/release/releasetest"
)

// ghWorkflow is the GitHub workflow as Actions reads it, parsed apart
// from the types that wrote it.
type ghWorkflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Name           string `yaml:"name"`
		RunsOn         string `yaml:"runs-on"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Steps          []struct {
			Name             string            `yaml:"name"`
			ID               string            `yaml:"id"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
			With             map[string]string `yaml:"with"`
			Run              string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func githubWorkflow(t *testing.T, c *autograder.CI) ([]byte, ghWorkflow) {
	t.Helper()
	data, err := c.GitHubWorkflow()
	require.NoError(t, err)
	return data, knownYAML[ghWorkflow](t, data)
}

var pinned = regexp.MustCompile(`^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$`)

func TestGitHubWorkflowIsPinnedAndLeastPrivileged(t *testing.T) {
	data, wf := githubWorkflow(t, &autograder.CI{Lab: lab10(t), CourseRepo: "teach/course-student"})
	assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions, "the token may only read")
	assert.Contains(t, wf.On, "push")
	require.Len(t, wf.Jobs, 1)
	job := wf.Jobs["grade"]
	assert.Equal(t, "ubuntu-latest", job.RunsOn)
	assert.Positive(t, job.TimeoutMinutes)

	uses := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "uses:") {
			uses++
			assert.Regexp(t, pinned, line, "every action pinned by a full commit SHA, with its version")
		}
	}
	assert.Equal(t, 4, uses)
	byName := map[string]int{}
	for i, s := range job.Steps {
		byName[s.Name] = i
		assert.NotContains(t, s.Run, "${{", "%s: no expression in a script (the env carries values)", s.Name)
		if strings.HasPrefix(s.Uses, "actions/checkout@") {
			assert.Equal(t, "false", s.With["persist-credentials"], "%s: the token is not left in the checkout", s.Name)
		}
	}
	goStep := job.Steps[byName["Set up Go"]]
	assert.Equal(t, ".course-tool/go.mod", goStep.With["go-version-file"])
	assert.Equal(t, ".course-tool/go.sum\n.course-tool/labs/go.sum\n", goStep.With["cache-dependency-path"],
		"setup-go caches the modules of the tool and of the lab")
	assert.Equal(t, "teach/course-student", job.Steps[byName["Check out the course tool"]].With["repository"])
	upload := job.Steps[byName["Upload the reports"]]
	assert.Equal(t, "report.json\njunit.xml\n", upload.With["path"])
	assert.Contains(t, job.Steps[byName["Summary and JUnit report"]].Run, `>>"$GITHUB_STEP_SUMMARY"`)
}

// TestGitHubWorkflowPassesActionlint checks the workflow with actionlint,
// which knows the workflow syntax, its expressions, and the inputs of the
// popular actions.
func TestGitHubWorkflowPassesActionlint(t *testing.T) {
	for _, c := range []*autograder.CI{
		{Lab: lab10(t), CourseRepo: "teach/course-student"},
		{Lab: lab10(t), CourseRepo: "teach/course-student", CourseRef: "v2025.1", Bonus: true, Timeout: 45 * time.Second},
	} {
		data, _ := githubWorkflow(t, c)
		for _, e := range actionlintErrors(t, ".github/workflows/grade.yml", data) {
			t.Errorf("actionlint: %s", e)
		}
	}
	// The linter is not a formality: it refuses what Actions would.
	data, _ := githubWorkflow(t, &autograder.CI{Lab: lab10(t), CourseRepo: "teach/course-student"})
	for _, bad := range []string{
		strings.Replace(string(data), "timeout-minutes:", "timeout-minute:", 1),
		strings.Replace(string(data), "steps.grade.outputs.status", "steps.grades.outputs.status", 1),
		strings.Replace(string(data), "contents: read", "contents: readonly", 1),
	} {
		assert.NotEmpty(t, actionlintErrors(t, ".github/workflows/grade.yml", []byte(bad)), "actionlint finds the mistake in:\n%s", bad)
	}
}

func TestCIRefusesBadInput(t *testing.T) {
	l := lab10(t)
	for _, c := range []struct {
		ci   autograder.CI
		want string
	}{
		{autograder.CI{Lab: l, CourseRepo: "teach/course; rm -rf /"}, "not OWNER/NAME"},
		{autograder.CI{Lab: l, CourseRepo: "a/b", CourseRef: "main\nrun: x"}, "not a branch or tag name"},
		{autograder.CI{Lab: l, CourseRepo: "a/b", CourseRef: "../x"}, "not a branch or tag name"},
		{autograder.CI{Lab: l, CourseRepo: "a/b", Timeout: -time.Second}, "must be positive"},
		{autograder.CI{CourseRepo: "a/b"}, "no lab given"},
	} {
		_, err := c.ci.GitHubWorkflow()
		assert.ErrorContains(t, err, c.want)
	}
	_, err := (&autograder.CI{Lab: l, CourseRepo: "https://x/a.git\" && id"}).GitLabCI()
	assert.ErrorContains(t, err, "not a git URL")
	_, err = (&autograder.CI{Lab: l, CourseRepo: "https://x/a.git", GoVersion: "1.26"}).GitLabCI()
	assert.ErrorContains(t, err, "not a release name")
}

// glCI is .gitlab-ci.yml as GitLab reads it.
type glCI map[string]struct {
	Image     string            `yaml:"image"`
	Variables map[string]string `yaml:"variables"`
	Cache     struct {
		Key   string   `yaml:"key"`
		Paths []string `yaml:"paths"`
	} `yaml:"cache"`
	Script    []string `yaml:"script"`
	Artifacts struct {
		When    string            `yaml:"when"`
		Paths   []string          `yaml:"paths"`
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

func gitlabCI(t *testing.T, c *autograder.CI) ([]byte, glCI) {
	t.Helper()
	data, err := c.GitLabCI()
	require.NoError(t, err)
	return data, knownYAML[glCI](t, data)
}

func TestGitLabCIHasAJUnitReportAndACache(t *testing.T) {
	_, ci := gitlabCI(t, &autograder.CI{Lab: lab10(t), CourseRepo: "https://gitlab.example.com/teach/course-student.git", GoVersion: "go1.25.4"})
	require.Len(t, ci, 1)
	job := ci["grade"]
	assert.Equal(t, "golang:1.25.4", job.Image)
	assert.Equal(t, "https://gitlab.example.com/teach/course-student.git", job.Variables["COURSE_REPO"])
	assert.Equal(t, "main", job.Variables["COURSE_REF"])
	assert.Equal(t, "$CI_PROJECT_DIR/.go-mod", job.Variables["GOMODCACHE"])
	assert.Equal(t, []string{".go-mod/"}, job.Cache.Paths, "the module cache is kept between pipelines")
	assert.Equal(t, "always", job.Artifacts.When, "a failing grade keeps its reports")
	assert.Equal(t, map[string]string{"junit": "junit.xml"}, job.Artifacts.Reports)
	assert.Equal(t, []string{"report.json", "junit.xml"}, job.Artifacts.Paths)
	require.NotEmpty(t, job.Script)
	assert.Equal(t, `git clone --depth 1 --branch "$COURSE_REF" "$COURSE_REPO" .course-tool`, job.Script[0])
}

func TestGitLabCIMatchesTheSchema(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata", "gitlab-ci.schema.json"))
	require.NoError(t, err)
	for _, c := range []*autograder.CI{
		{Lab: lab10(t), CourseRepo: "https://gitlab.example.com/teach/course-student.git"},
		{Lab: lab10(t), CourseRepo: "git@gitlab.example.com:teach/course-student.git", Bonus: true, Timeout: time.Minute},
	} {
		data, _ := gitlabCI(t, c)
		var doc any
		require.NoError(t, yaml.Unmarshal(data, &doc))
		require.NoError(t, sch.Validate(doc), "%s", data)
	}
	// The schema is not a formality: it refuses what GitLab would.
	for _, bad := range []string{
		"grade:\n  image: golang\n",                                    // a job without a script
		"grade:\n  script: [x]\n  artifacts:\n    when: sometimes\n",   // no such when
		"grade:\n  script: [x]\n  cache:\n    key: k\n    path: [x]\n", // misspelt
	} {
		var doc any
		require.NoError(t, yaml.Unmarshal([]byte(bad), &doc))
		assert.Error(t, sch.Validate(doc), bad)
	}
}

// The CI jobs' shell steps, run here as the platforms run them, offline,
// on the reference solution and on the stub: a workspace laid out as the
// job lays it out, with the course's student release as the tool's source.

type ciLayout struct {
	root, release string
}

func newCILayout(t *testing.T) ciLayout {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds the course tool and grades submissions")
	}
	releasetest.SkipInRelease(t, "a release cannot make a release of itself")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	return ciLayout{release: sharedRelease(t)}
}

// copyTree copies the student release where a job clones it.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	out, err := exec.Command("cp", "-a", src, dst).CombinedOutput()
	require.NoError(t, err, string(out))
}

func bashScript(t *testing.T, dir string, env []string, script string) (int, string) {
	t.Helper()
	return runIn(t, dir, env, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
}

func TestGitHubWorkflowStepsTellSolutionFromStub(t *testing.T) {
	lay := newCILayout(t)
	l := lab10(t)
	_, wf := githubWorkflow(t, &autograder.CI{Lab: l, CourseRepo: "teach/course-student"})
	steps := wf.Jobs["grade"].Steps
	solution := releasetest.Solution(t, l)
	runnerTemp := t.TempDir()
	// One module cache for the job's runs, empty before the first: the
	// first proves the job fetches what it needs; the second finds it there.
	modules := freshModules(t)

	for _, c := range []struct {
		name   string
		src    []byte
		status string
	}{{"solution", solution, "0"}, {"stub", nil, "1"}} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir() // $GITHUB_WORKSPACE
			sub := filepath.Join(ws, "submission")
			require.NoError(t, l.WriteWorkspace(sub))
			if c.src != nil {
				require.NoError(t, os.WriteFile(filepath.Join(sub, "session.go"), c.src, 0o644))
			}
			copyTree(t, lay.release, filepath.Join(ws, ".course-tool"))
			output, summary := filepath.Join(t.TempDir(), "output"), filepath.Join(t.TempDir(), "summary")
			env := offline.Env(append(slices.Clone(modules),
				"RUNNER_TEMP="+runnerTemp, "GITHUB_WORKSPACE="+ws, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)...)
			ran := 0
			for _, s := range steps {
				if s.Run == "" {
					continue // an action: the layout above stands in for it
				}
				if strings.Contains(s.If, "hashFiles('report.json')") {
					require.FileExists(t, filepath.Join(ws, "report.json"), "%s runs only with a report", s.Name)
				}
				stepEnv := env
				for k, v := range s.Env {
					if v == "${{ steps.grade.outputs.status }}" {
						data, err := os.ReadFile(output)
						require.NoError(t, err)
						v = strings.TrimPrefix(strings.TrimSpace(string(data)), "status=")
					}
					stepEnv = append(stepEnv, k+"="+v)
				}
				code, out := bashScript(t, filepath.Join(ws, s.WorkingDirectory), stepEnv, s.Run)
				ran++
				if s.Name == "Pass only if every exercise passed" {
					assert.Equal(t, c.status, strconv.Itoa(code), "the job passes only if every exercise did:\n%s", out)
					continue
				}
				require.Equal(t, 0, code, "step %q:\n%s", s.Name, out)
			}
			assert.Equal(t, 4, ran)
			data, err := os.ReadFile(output)
			require.NoError(t, err)
			assert.Equal(t, "status="+c.status+"\n", string(data))
			sum, err := os.ReadFile(summary)
			require.NoError(t, err)
			if c.status == "0" {
				assert.Contains(t, string(sum), "### Lab 10: 100 of 100 points")
				assert.NotContains(t, string(sum), "**fail**")
			} else {
				assert.Contains(t, string(sum), "### Lab 10: 0 of 100 points")
				assert.Equal(t, 6, strings.Count(string(sum), "**fail**"))
			}
			assert.FileExists(t, filepath.Join(ws, "junit.xml"))
			assert.NoFileExists(t, filepath.Join(sub, "report.json"), "nothing written into the submission")
		})
	}
}

func TestGitLabCIScriptTellsSolutionFromStub(t *testing.T) {
	lay := newCILayout(t)
	l := lab10(t)
	_, ci := gitlabCI(t, &autograder.CI{Lab: l, CourseRepo: "https://gitlab.example.com/teach/course-student.git"})
	job := ci["grade"]
	solution := releasetest.Solution(t, l)
	modules := freshModules(t) // empty before the first run, as a job's is

	for _, c := range []struct {
		name string
		src  []byte
		code int
	}{{"solution", solution, 0}, {"stub", nil, 1}} {
		t.Run(c.name, func(t *testing.T) {
			project := filepath.Join(t.TempDir(), "lab10-alice") // $CI_PROJECT_DIR
			require.NoError(t, l.WriteWorkspace(project))
			if c.src != nil {
				require.NoError(t, os.WriteFile(filepath.Join(project, "session.go"), c.src, 0o644))
			}
			// The clone, the first line, needs the network: the copy stands in for it.
			require.True(t, strings.HasPrefix(job.Script[0], "git clone "))
			copyTree(t, lay.release, filepath.Join(project, ".course-tool"))
			// The job's module cache, empty at first, filled from a proxy
			// made of this machine's module cache, offline.
			env := offline.Env(append(slices.Clone(modules), "CI_PROJECT_DIR="+project)...)
			for k, v := range job.Variables {
				env = append(env, k+"="+strings.ReplaceAll(v, "$CI_PROJECT_DIR", project))
			}
			code, out := bashScript(t, project, env, strings.Join(job.Script[1:], "\n"))
			require.Equal(t, c.code, code, "the job passes only if every exercise did:\n%s", out)
			assert.Contains(t, out, "EXERCISE", "the exercise table in the job's log")
			for _, p := range job.Artifacts.Paths {
				assert.FileExists(t, filepath.Join(project, p), "artifact %s", p)
			}
			for _, p := range job.Cache.Paths {
				assert.DirExists(t, filepath.Join(project, p), "the job fills its cache %s", p)
			}
			junit, err := os.ReadFile(filepath.Join(project, job.Artifacts.Reports["junit"]))
			require.NoError(t, err)
			assert.Contains(t, string(junit), "<testsuite")
		})
	}
}
