package autograder

import (
	"bytes"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ClassGitHubWorkflowPath is where the class's workflow goes in the
// course's repository, for lab chapter.
func ClassGitHubWorkflowPath(chapter string) string {
	return ".github/workflows/grade-lab" + chapter + ".yml"
}

// ghSandboxScript installs bubblewrap on GitHub's Ubuntu runner and lets
// it make user namespaces, which Ubuntu 24.04 grants by default only to
// programs AppArmor names: the runner is the job's own, thrown away after.
const ghSandboxScript = `sudo apt-get update -q
sudo apt-get install -y -q bubblewrap
if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
fi
`

// ghCourse sets $COURSE in a step: the runner's temp directory is known
// only to steps.
const ghCourse = `COURSE="$RUNNER_TEMP/course"` + "\n"

// GitHubWorkflow returns the GitHub Actions workflow that grades the class
// when started by hand (workflow_dispatch): a matrix of Shards jobs, each
// of which checks out the course, sets up Go with its module cache and
// the sandbox, builds the course tool, grades its shard of Submissions
// and uploads its report as an artifact; then a job that downloads them,
// merges them, and uploads grades.csv and report.html as the artifact
// class-report. Every action is pinned to a full commit SHA; the token may
// only read the repository.
func (c *ClassCI) GitHubWorkflow() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	setup := []ghStep{
		{Name: "Check out the course", Uses: CheckoutAction, With: mapping("persist-credentials", "false")},
		{Name: "Set up Go", Uses: SetupGoAction, With: mapping(
			"go-version-file", "go.mod", "cache-dependency-path", "go.sum\nlabs/go.sum\n")},
	}
	build := ghStep{Name: "Build the course tool", Run: ghCourse + buildScript}
	buildForGrading := ghStep{Name: "Build the course tool", Run: ghCourse + gradingModulesScript + buildScript}
	shards := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for k := 1; k <= c.Shards; k++ {
		shards.Content = append(shards.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(k)})
	}
	strategy := mapping("fail-fast", "false")
	strategy.Content[1].Tag = "!!bool"
	strategy.Content = append(strategy.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "matrix"},
		&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "shard"}, shards}})
	env := mapping(envSubmissions, c.submissions(), envReports, ClassReportsDir)

	grade := ghJob{
		Name: "Grade shard ${{ matrix.shard }} of " + strconv.Itoa(c.Shards), RunsOn: "ubuntu-latest", TimeoutMinutes: 120,
		Strategy: strategy, Env: mapping(envSubmissions, c.submissions(), envReports, ClassReportsDir, envShards, strconv.Itoa(c.Shards)),
		Steps: append(setup,
			ghStep{Name: "Set up the sandbox", Run: ghSandboxScript},
			buildForGrading,
			ghStep{Name: "Grade the shard", Env: mapping(envShard, "${{ matrix.shard }}"), Run: ghCourse + c.shardScript()},
			ghStep{Name: "Upload the shard's report", Uses: UploadArtifactAction, With: mapping(
				"name", "class-shard-${{ matrix.shard }}",
				"path", ClassReportsDir+"/shard-${{ matrix.shard }}.json",
				"if-no-files-found", "error", "retention-days", "7")},
		),
	}
	merge := ghJob{
		Name: "Merge the shards", Needs: "grade", RunsOn: "ubuntu-latest", TimeoutMinutes: 30, Env: env,
		Steps: append(setup[:2:2],
			build,
			ghStep{Name: "Download the shards' reports", Uses: DownloadArtifactAction, With: mapping(
				"pattern", "class-shard-*", "merge-multiple", "true", "path", ClassReportsDir)},
			ghStep{Name: "Merge the shards' reports", Run: ghCourse + c.mergeScript()},
			ghStep{Name: "Upload grades.csv and report.html", If: "${{ !cancelled() }}", Uses: UploadArtifactAction, With: mapping(
				"name", "class-report",
				"path", ClassReportsDir+"/grades.csv\n"+ClassReportsDir+"/report.html\n",
				"if-no-files-found", "ignore")},
		),
	}
	wf := ghWorkflow{
		Name:        "Grade lab " + c.Lab.Chapter,
		On:          events("workflow_dispatch"),
		Permissions: mapping("contents", "read"),
		Jobs:        map[string]ghJob{"grade": grade, "merge": merge},
	}
	var b bytes.Buffer
	b.WriteString(c.summary("GitHub Actions", "github"))
	if err := encodeYAML(&b, wf); err != nil {
		return nil, err
	}
	return commentPins(b.String()), nil
}
