package autograder_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rhysd/actionlint"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/coursekit/course/grader/autograder"
)

// The files that grade a whole class in shards (ClassCI), each checked
// against its platform's published schema (testdata/README.md says where
// each comes from), and the platforms' linter where there is one.

// schema compiles a vendored schema of testdata.
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata", name))
	require.NoError(t, err, "compiling testdata/%s", name)
	return sch
}

// yamlDocs decodes every YAML document of data as JSON Schema validators
// take them (maps, lists, scalars).
func yamlDocs(t *testing.T, data []byte) []any {
	t.Helper()
	var docs []any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs
		}
		require.NoError(t, err, "%s", data)
		docs = append(docs, doc)
	}
}

// actionlintErrors are actionlint's findings in the workflow data at path.
func actionlintErrors(t *testing.T, path string, data []byte) []*actionlint.Error {
	t.Helper()
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	require.NoError(t, err)
	errs, err := linter.Lint(path, data, nil)
	require.NoError(t, err)
	return errs
}

// classCIs are the variants every platform's files are checked in.
func classCIs(t *testing.T) []*autograder.ClassCI {
	return []*autograder.ClassCI{
		{Lab: lab10(t), Shards: 1},
		{Lab: lab10(t), Shards: 4},
		{Lab: lab10(t), Shards: autograder.MaxShards, Submissions: "term/lab10", Bonus: true, Timeout: 45 * time.Second,
			Sandbox: "best", GoVersion: "go1.25.4", Claim: "grading-fall"},
	}
}

// ghClassWorkflow is the class's workflow as Actions reads it.
type ghClassWorkflow struct {
	Name        string                `yaml:"name"`
	On          map[string]any        `yaml:"on"`
	Permissions map[string]string     `yaml:"permissions"`
	Jobs        map[string]ghClassJob `yaml:"jobs"`
}

type ghClassJob struct {
	Name           string            `yaml:"name"`
	Needs          string            `yaml:"needs"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Env            map[string]string `yaml:"env"`
	Strategy       struct {
		FailFast bool `yaml:"fail-fast"`
		Matrix   struct {
			Shard []int `yaml:"shard"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghClassStep `yaml:"steps"`
}

type ghClassStep struct {
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
	Run  string            `yaml:"run"`
}

// knownYAML decodes data into a T, refusing a field T does not have: a
// file parsed as its platform reads it.
func knownYAML[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&v), string(data))
	return v
}

func classWorkflow(t *testing.T, c *autograder.ClassCI) ([]byte, ghClassWorkflow) {
	t.Helper()
	data, err := c.GitHubWorkflow()
	require.NoError(t, err)
	return data, knownYAML[ghClassWorkflow](t, data)
}

func TestClassGitHubWorkflowIsAMatrixOfShardsThenAMerge(t *testing.T) {
	for _, c := range classCIs(t) {
		data, wf := classWorkflow(t, c)
		assert.Contains(t, wf.On, "workflow_dispatch", "started by hand")
		assert.Len(t, wf.On, 1, "never on a push")
		assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions)
		require.Len(t, wf.Jobs, 2)
		grade, merge := wf.Jobs["grade"], wf.Jobs["merge"]
		want := make([]int, c.Shards)
		for i := range want {
			want[i] = i + 1
		}
		assert.Equal(t, want, grade.Strategy.Matrix.Shard, "one job per shard, 1 to N")
		assert.False(t, grade.Strategy.FailFast, "a failing shard does not cancel the others")
		assert.Equal(t, strconv.Itoa(c.Shards), grade.Env["SHARDS"])
		assert.Equal(t, "grade", merge.Needs, "the merge waits for every shard")
		assert.Equal(t, 120, grade.TimeoutMinutes, "docs/instructors.md: a shard's job stops at 120 minutes")
		assert.Equal(t, 30, merge.TimeoutMinutes, "docs/instructors.md: the merge at 30")
		for _, job := range []string{"grade", "merge"} {
			for _, s := range wf.Jobs[job].Steps {
				assert.NotContains(t, s.Run, "${{", "%s: no expression in a script", s.Name)
				if strings.HasPrefix(s.Uses, "actions/checkout@") {
					assert.Equal(t, "false", s.With["persist-credentials"])
				}
			}
		}
		uses := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "uses:") {
				uses++
				assert.Regexp(t, pinned, line, "every action pinned by a full commit SHA, with its version")
			}
		}
		assert.Equal(t, 7, uses)
		upload := grade.Steps[len(grade.Steps)-1]
		assert.Equal(t, "class-shard-${{ matrix.shard }}", upload.With["name"])
		assert.Equal(t, "class-reports/shard-${{ matrix.shard }}.json", upload.With["path"])
		assert.Equal(t, "7", upload.With["retention-days"], "docs/instructors.md: kept 7 days")
		assert.Equal(t, "class-shard-*", merge.Steps[3].With["pattern"], "the merge downloads every shard's artifact")
		last := merge.Steps[len(merge.Steps)-1]
		assert.Equal(t, "class-reports/grades.csv\nclass-reports/report.html\n", last.With["path"], "CSV and HTML as an artifact")
		assert.Equal(t, "${{ !cancelled() }}", last.If, "kept even when the merge fails")
	}
}

// TestClassGitHubWorkflowMatchesSchemaStoresSchema checks the workflow
// against SchemaStore's github-workflow.json and with actionlint.
func TestClassGitHubWorkflowMatchesSchemaStoresSchema(t *testing.T) {
	sch := schema(t, "github-workflow.schema.json")
	lint := func(data []byte) []*actionlint.Error {
		return actionlintErrors(t, ".github/workflows/grade-lab10.yml", data)
	}
	for _, c := range classCIs(t) {
		data, _ := classWorkflow(t, c)
		docs := yamlDocs(t, data)
		require.Len(t, docs, 1)
		assert.NoError(t, sch.Validate(docs[0]), "%s", data)
		for _, e := range lint(data) {
			t.Errorf("actionlint: %s", e)
		}
	}
	// Neither is a formality: each refuses what Actions would.
	data, _ := classWorkflow(t, &autograder.ClassCI{Lab: lab10(t), Shards: 3})
	for _, bad := range []string{
		strings.Replace(string(data), "fail-fast:", "fail-fasts:", 1),
		strings.Replace(string(data), "needs: grade", "needs: [grade, 7]", 1),
		strings.Replace(string(data), "contents: read", "contents: readonly", 1),
		strings.Replace(string(data), "timeout-minutes: 120", "timeout-minutes: soon", 1),
	} {
		docs := yamlDocs(t, []byte(bad))
		assert.Error(t, sch.Validate(docs[0]), "the schema refuses:\n%s", bad)
	}
	for _, bad := range []string{
		strings.Replace(string(data), "${{ matrix.shard }}", "${{ matrix.shards }}", 1),
		strings.Replace(string(data), "needs: grade", "needs: grades", 1),
	} {
		assert.NotEmpty(t, lint([]byte(bad)), "actionlint finds the mistake in:\n%s", bad)
	}
}

// glClassCI is the class's pipeline as GitLab reads it.
type glClassCI struct {
	Workflow struct {
		Rules []map[string]string `yaml:"rules"`
	} `yaml:"workflow"`
	Stages []string              `yaml:"stages"`
	Jobs   map[string]glClassJob `yaml:",inline"`
}

type glClassJob struct {
	Stage     string            `yaml:"stage"`
	Image     string            `yaml:"image"`
	Parallel  int               `yaml:"parallel"`
	Needs     []string          `yaml:"needs"`
	Variables map[string]string `yaml:"variables"`
	Cache     struct {
		Key   string   `yaml:"key"`
		Paths []string `yaml:"paths"`
	} `yaml:"cache"`
	Script    []string `yaml:"script"`
	Artifacts struct {
		When     string   `yaml:"when"`
		Paths    []string `yaml:"paths"`
		ExpireIn string   `yaml:"expire_in"`
	} `yaml:"artifacts"`
}

func classPipeline(t *testing.T, c *autograder.ClassCI) ([]byte, glClassCI) {
	t.Helper()
	data, err := c.GitLabCI()
	require.NoError(t, err)
	return data, knownYAML[glClassCI](t, data)
}

func TestClassGitLabCIRunsTheShardsInParallelThenMerges(t *testing.T) {
	for _, c := range classCIs(t) {
		_, ci := classPipeline(t, c)
		require.Len(t, ci.Jobs, 2)
		shard, merge := ci.Jobs[autograder.GitLabShardJob], ci.Jobs[autograder.GitLabMergeJob]
		assert.Equal(t, []string{"grade", "merge"}, ci.Stages)
		assert.Equal(t, c.Shards, shard.Parallel, "parallel: N")
		assert.Contains(t, shard.Script[len(shard.Script)-1], `SHARD="$CI_NODE_INDEX"`)
		assert.Contains(t, shard.Script[len(shard.Script)-1], `SHARDS="$CI_NODE_TOTAL"`)
		assert.Equal(t, []string{"class-reports/"}, shard.Artifacts.Paths)
		assert.Equal(t, "1 week", shard.Artifacts.ExpireIn)
		assert.Equal(t, []string{".go-mod/"}, shard.Cache.Paths, "the modules cached in the project")
		assert.Equal(t, []string{autograder.GitLabShardJob}, merge.Needs, "the merge needs every shard")
		assert.Equal(t, "always", merge.Artifacts.When, "a failing merge keeps what it wrote")
		assert.Equal(t, []string{"class-reports/grades.csv", "class-reports/report.html"}, merge.Artifacts.Paths)
		assert.Equal(t, []map[string]string{{"if": `$CI_PIPELINE_SOURCE == "web" || $CI_PIPELINE_SOURCE == "api"`}}, ci.Workflow.Rules,
			"grading runs when asked for, never on a push")
	}
}

// TestClassGitLabCIMatchesGitLabsSchema checks the pipeline against the
// schema GitLab publishes for .gitlab-ci.yml.
func TestClassGitLabCIMatchesGitLabsSchema(t *testing.T) {
	sch := schema(t, "gitlab-ci.gitlab.schema.json")
	for _, c := range classCIs(t) {
		data, _ := classPipeline(t, c)
		assert.NoError(t, sch.Validate(yamlDocs(t, data)[0]), "%s", data)
	}
	data, _ := classPipeline(t, &autograder.ClassCI{Lab: lab10(t), Shards: 3})
	for _, bad := range []string{
		strings.Replace(string(data), "parallel: 3", "parallel: 201", 1), // GitLab's limit
		strings.Replace(string(data), "when: always", "when: sometimes", 1),
		strings.Replace(string(data), "needs:", "need:", 1),
	} {
		assert.Error(t, sch.Validate(yamlDocs(t, []byte(bad))[0]), "the schema refuses:\n%s", bad)
	}
}

// strictSchema is a Kubernetes schema in which an object that lists its
// properties has no others, as kubeconform's "strict" schemas are made
// (openapi2jsonschema --strict): a misspelt field is then an error, as
// the API server's strict field validation makes it.
func strictSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readTestdata(t, name)))
	require.NoError(t, err)
	var strict func(v any)
	strict = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["properties"].(map[string]any); ok {
				if _, set := v["additionalProperties"]; !set {
					v["additionalProperties"] = false
				}
			}
			for _, x := range v {
				strict(x)
			}
		case []any:
			for _, x := range v {
				strict(x)
			}
		}
	}
	strict(doc)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(name, doc))
	sch, err := c.Compile(name)
	require.NoError(t, err)
	return sch
}

func TestClassKubernetesJobsMatchTheAPISchema(t *testing.T) {
	job := strictSchema(t, "kubernetes-job-batch-v1.schema.json")
	claim := strictSchema(t, "kubernetes-persistentvolumeclaim-v1.schema.json")
	for _, c := range classCIs(t) {
		k, err := c.Kubernetes()
		require.NoError(t, err)
		for _, data := range [][]byte{k.Volume, k.Grade, k.Merge} {
			for _, doc := range yamlDocs(t, data) {
				sch := job
				if doc.(map[string]any)["kind"] == "PersistentVolumeClaim" {
					sch = claim
				}
				assert.NoError(t, sch.Validate(doc), "%s", data)
			}
		}
	}
	k, err := (&autograder.ClassCI{Lab: lab10(t), Shards: 3}).Kubernetes()
	require.NoError(t, err)
	for _, bad := range []string{
		strings.Replace(string(k.Grade), "completionMode:", "completionMod:", 1),
		strings.Replace(string(k.Grade), "completions: 3", "completions: three", 1),
		strings.Replace(string(k.Grade), "mountPath:", "mountpath:", 1),
	} {
		assert.Error(t, job.Validate(yamlDocs(t, []byte(bad))[0]), "the schema refuses:\n%s", bad)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// k8sJob is what the tests read of a Job.
type k8sJob struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					WorkingDir string `yaml:"workingDir"`
					Resources  struct {
						Requests map[string]string `yaml:"requests"`
					} `yaml:"resources"`
					Command []string `yaml:"command"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// env is the container's environment as a map.
func (j *k8sJob) env() map[string]string {
	out := map[string]string{}
	for _, e := range j.Spec.Template.Spec.Containers[0].Env {
		out[e.Name] = e.Value
	}
	return out
}

func k8sJobs(t *testing.T, data []byte) []k8sJob {
	t.Helper()
	var jobs []k8sJob
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var j k8sJob
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			return jobs
		}
		require.NoError(t, err)
		jobs = append(jobs, j)
	}
}

func TestClassKubernetesIsAnIndexedJobThenAMergeOnOneVolume(t *testing.T) {
	for _, c := range classCIs(t) {
		k, err := c.Kubernetes()
		require.NoError(t, err)
		claim := c.Claim
		if claim == "" {
			claim = "course-grading"
		}
		volume := k8sJobs(t, k.Volume)
		require.Len(t, volume, 2, "the claim, then the pod to copy through")
		assert.Equal(t, "PersistentVolumeClaim", volume[0].Kind)
		assert.Equal(t, claim, volume[0].Metadata.Name)

		grade := k8sJobs(t, k.Grade)
		require.Len(t, grade, 1)
		g := grade[0]
		assert.Equal(t, "Indexed", g.Spec.CompletionMode)
		assert.Equal(t, c.Shards, g.Spec.Completions, "one completion per shard")
		assert.Equal(t, c.Shards, g.Spec.Parallelism, "every shard at once")
		assert.Equal(t, strconv.Itoa(c.Shards), g.env()["SHARDS"])
		assert.Contains(t, g.Spec.Template.Spec.Containers[0].Command[2], `SHARD=$((JOB_COMPLETION_INDEX + 1))`)
		assert.Contains(t, g.Spec.Template.Spec.Containers[0].Command[2], "--jobs 2 --runs 2", "as many as the pod's CPUs")
		assert.Equal(t, map[string]string{"cpu": "2", "memory": "6Gi"}, g.Spec.Template.Spec.Containers[0].Resources.Requests)

		merge := k8sJobs(t, k.Merge)
		require.Len(t, merge, 1)
		for k := 1; k <= c.Shards; k++ {
			assert.Contains(t, merge[0].Spec.Template.Spec.Containers[0].Command[2], `--from "$REPORTS/shard-`+strconv.Itoa(k)+`.json"`)
		}
		for _, j := range append(append(volume[1:], g), merge[0]) {
			assert.Equal(t, "Never", j.Spec.Template.Spec.RestartPolicy)
			assert.Equal(t, claim, j.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName, "%s: the shared volume", j.Metadata.Name)
			assert.Equal(t, autograder.K8sMount, j.Spec.Template.Spec.Containers[0].VolumeMounts[0].MountPath)
		}
		for _, j := range []k8sJob{g, merge[0]} {
			assert.Equal(t, autograder.K8sCourse, j.Spec.Template.Spec.Containers[0].WorkingDir, "builds the course on the volume")
			assert.Equal(t, autograder.K8sReports, j.env()["REPORTS"], "reports on the volume")
		}
	}
}

func TestClassCIRefusesBadInput(t *testing.T) {
	l := lab10(t)
	for _, c := range []struct {
		ci   autograder.ClassCI
		want string
	}{
		{autograder.ClassCI{Shards: 2}, "no lab given"},
		{autograder.ClassCI{Lab: l}, "the number of shards must be 1 to 200"},
		{autograder.ClassCI{Lab: l, Shards: 201}, "the number of shards must be 1 to 200"},
		{autograder.ClassCI{Lab: l, Shards: 2, Submissions: "../elsewhere"}, "not a directory inside the course's checkout"},
		{autograder.ClassCI{Lab: l, Shards: 2, Submissions: "/srv/submissions"}, "not a directory inside the course's checkout"},
		{autograder.ClassCI{Lab: l, Shards: 2, Submissions: "subs; rm -rf ~"}, "not a directory inside the course's checkout"},
		{autograder.ClassCI{Lab: l, Shards: 2, Sandbox: "off"}, "off is never for student code"},
		{autograder.ClassCI{Lab: l, Shards: 2, Timeout: -time.Second}, "must be positive"},
	} {
		_, err := c.ci.GitHubWorkflow()
		assert.ErrorContains(t, err, c.want, "GitHubWorkflow of %+v", c.ci)
		_, err = c.ci.GitLabCI()
		assert.ErrorContains(t, err, c.want, "GitLabCI of %+v", c.ci)
		_, err = c.ci.Kubernetes()
		assert.ErrorContains(t, err, c.want, "Kubernetes of %+v", c.ci)
	}
	_, err := (&autograder.ClassCI{Lab: l, Shards: 2, GoVersion: "1.26"}).GitLabCI()
	assert.ErrorContains(t, err, "not a release name")
	_, err = (&autograder.ClassCI{Lab: l, Shards: 2, Claim: "Course_Grading"}).Kubernetes()
	assert.ErrorContains(t, err, "not a Kubernetes name")
}
