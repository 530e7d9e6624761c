package autograder

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ClassGitLabCIPath is the class's pipeline in the course's repository,
// for lab chapter: the project's CI/CD configuration file, or included
// from it.
func ClassGitLabCIPath(chapter string) string { return "grade-lab" + chapter + ".gitlab-ci.yml" }

// The jobs of the class's pipeline.
const (
	GitLabShardJob = "grade-shard"
	GitLabMergeJob = "merge-shards"
)

// aptSandboxScript installs bubblewrap in a Debian image (Go's official
// ones are), as root.
const aptSandboxScript = "apt-get update -q && apt-get install -y -q bubblewrap"

type glClassCI struct {
	Workflow *yaml.Node `yaml:"workflow"`
	Stages   []string   `yaml:"stages"`
	Shard    glClassJob `yaml:"grade-shard"`
	Merge    glClassJob `yaml:"merge-shards"`
}

type glClassJob struct {
	Stage     string      `yaml:"stage"`
	Image     string      `yaml:"image"`
	Parallel  int         `yaml:"parallel,omitempty"`
	Needs     []string    `yaml:"needs,omitempty"`
	Variables *yaml.Node  `yaml:"variables"`
	Cache     *yaml.Node  `yaml:"cache"`
	Script    []string    `yaml:"script"`
	Artifacts glArtifacts `yaml:"artifacts"`
}

// GitLabCI returns the GitLab pipeline that grades the class when started
// by hand or through the API: a job run Shards times in parallel (parallel:
// N; the shard is CI_NODE_INDEX of CI_NODE_TOTAL) in Go's official image,
// each of which installs bubblewrap, builds the course tool (modules
// cached in the project), grades its shard of Submissions and keeps its
// report as an artifact; then a job that needs them all, merges their
// reports and keeps grades.csv and report.html, even when it fails.
func (c *ClassCI) GitLabCI() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	goVersion, err := c.goVersion()
	if err != nil {
		return nil, err
	}
	image := "golang:" + strings.TrimPrefix(goVersion, "go")
	variables := func() *yaml.Node {
		return mapping(
			envSubmissions, c.submissions(),
			envReports, ClassReportsDir,
			envCourse, "$CI_PROJECT_DIR/.course-bin/course",
			// The module cache inside the project, where GitLab's cache can keep it.
			"GOMODCACHE", "$CI_PROJECT_DIR/.go-mod",
		)
	}
	cache := func() *yaml.Node {
		n := mapping("key", "course-go-modules")
		return &yaml.Node{Kind: yaml.MappingNode, Content: append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "paths"},
			&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: ".go-mod/"}}})}
	}
	rules := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{
		mapping("if", `$CI_PIPELINE_SOURCE == "web" || $CI_PIPELINE_SOURCE == "api"`),
	}}
	ci := glClassCI{
		// Grading runs when asked for (Run pipeline, or the API), not on every push.
		Workflow: &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "rules"}, rules}},
		Stages:   []string{"grade", "merge"},
		Shard: glClassJob{
			Stage: "grade", Image: image, Parallel: c.Shards, Variables: variables(), Cache: cache(),
			Script: []string{
				aptSandboxScript,
				gradingModulesScript + buildScript,
				`SHARD="$CI_NODE_INDEX"` + "\n" + `SHARDS="$CI_NODE_TOTAL"` + "\n" + c.shardScript(),
			},
			Artifacts: glArtifacts{Paths: []string{ClassReportsDir + "/"}, ExpireIn: "1 week"},
		},
		Merge: glClassJob{
			Stage: "merge", Image: image, Needs: []string{GitLabShardJob}, Variables: variables(), Cache: cache(),
			Script:    []string{buildScript, c.mergeScript()},
			Artifacts: glArtifacts{When: "always", Paths: []string{ClassReportsDir + "/grades.csv", ClassReportsDir + "/report.html"}},
		},
	}
	var b bytes.Buffer
	b.WriteString(c.summary("GitLab CI", "gitlab"))
	if err := encodeYAML(&b, ci); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
