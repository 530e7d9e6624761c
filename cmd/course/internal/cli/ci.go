package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/autograder"
	"github.com/coursekit/course/grader/lab"
)

// ClassCIOptions are the inputs of `course ci github|gitlab|kubernetes`.
type ClassCIOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)

	Platform    string // github, gitlab or kubernetes
	Dir         string // where the files go: the course's checkout, or a folder of manifests
	Chapter     string
	Shards      int
	Submissions string // the submissions' directory in the checkout (GitHub, GitLab)
	Bonus       bool
	Timeout     time.Duration
	Sandbox     string
	GoVersion   string // the image's Go (GitLab, Kubernetes)
	Claim       string // the volume's claim (Kubernetes)
	Force       bool
}

// NewCmdCI returns `course ci`, whose subcommands write the files that
// grade a whole class in shards on a platform instructors run.
func NewCmdCI(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ci <platform>",
		Short: "Write CI files that grade a whole class in shards: GitHub Actions, GitLab CI, Kubernetes",
		Long: `Write the files that grade every submission of a lab, hidden tests included,
on a platform you run, split into --shards jobs that grade at once: each
runs 'course grade --shard K/N --json' on its part, then one more merges
their reports with 'course grade --from ... --csv --html' into grades.csv
and report.html.

  course ci github --shards N <course>      .github/workflows/grade-lab<chapter>.yml
  course ci gitlab --shards N <course>      grade-lab<chapter>.gitlab-ci.yml
  course ci kubernetes --shards N <dir>     grade-lab<chapter>-volume.yaml, grade-lab<chapter>.yaml
                                            and grade-lab<chapter>-merge.yaml

GitHub and GitLab grade in a checkout of the course itself (your private
repository: it holds the hidden tests), with the submissions in a directory
of it (--submissions). A student's own repository is 'course autograder'.
None replaces an existing file unless told --force. See docs/instructors.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return usageError(fmt.Errorf("unknown platform %q (known: github, gitlab, kubernetes)", args[0]))
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdClassCI(f, "github"), newCmdClassCI(f, "gitlab"), newCmdClassCI(f, "kubernetes"))
	return cmd
}

// classCIHelp is each platform's Short and Long.
var classCIHelp = map[string][2]string{
	"github": {"Write a GitHub Actions workflow that grades a class in shards", `Write .github/workflows/grade-lab<chapter>.yml into <course>, the course's
checkout. Started by hand (Actions, Run workflow), it runs a matrix of
--shards jobs, each checking out the course, setting up Go (with its module
cache) and bubblewrap, building the course tool and grading its shard of
--submissions, its report kept as an artifact; then a job that downloads
them, merges them, and keeps grades.csv and report.html as the artifact
class-report. Every action is pinned to a full commit SHA, and the token may
only read the repository.`},
	"gitlab": {"Write a GitLab CI pipeline that grades a class in shards", `Write grade-lab<chapter>.gitlab-ci.yml into <course>, the course's checkout:
make it the project's CI/CD configuration file (or include it). Run by hand
(Run pipeline) or through the API, its job grade-shard runs --shards times
(parallel: N; the shard is CI_NODE_INDEX of CI_NODE_TOTAL) in Go's official
image, installing bubblewrap, building the course tool and grading its shard
of --submissions, its report kept as an artifact; then merge-shards, which
needs them all, merges them and keeps grades.csv and report.html.`},
	"kubernetes": {"Write Kubernetes Jobs that grade a class in shards", `Write three manifests into <dir>: grade-lab<chapter>-volume.yaml (the claim
the jobs share, --claim, and a pod that holds it open to copy through),
grade-lab<chapter>.yaml (an Indexed Job of --shards pods: pod K grades shard
JOB_COMPLETION_INDEX+1, its report written to the volume) and
grade-lab<chapter>-merge.yaml (a Job that merges the reports there into
grades.csv and report.html, once the first is complete). Each pod runs in
Go's official image, installs bubblewrap and builds the course tool from
the course on the volume (/work/course); the submissions are
/work/submissions, the reports /work/reports.`},
}

func newCmdClassCI(f *Factory, platform string) *cobra.Command {
	opts := &ClassCIOptions{IO: f.IO, Catalog: f.Catalog, Platform: platform}
	arg := "<course>"
	if platform == "kubernetes" {
		arg = "<dir>"
	}
	cmd := &cobra.Command{
		Use:     platform + " [flags] " + arg,
		Short:   classCIHelp[platform][0],
		Long:    classCIHelp[platform][1] + "\n\nSee docs/instructors.md.",
		Example: "  course ci " + platform + " --chapter {chapter} --shards 4 .",
		Args:    positional(arg),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runClassCI(opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Shards, "shards", 4, "grade in `N` jobs at once, a shard of the class each")
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (required when the course has several labs)")
	if platform != "kubernetes" {
		fl.StringVar(&opts.Submissions, "submissions", "submissions", "the submissions' `DIR` in the course's checkout: every entry of it is one")
	}
	fl.BoolVar(&opts.Bonus, "bonus", false, "also grade the bonus exercises (see course list)")
	fl.DurationVar(&opts.Timeout, "timeout", grader.DefaultTimeout, "time limit of one run of the tests")
	fl.StringVar(&opts.Sandbox, "sandbox", "strict", "the `MODE` the jobs grade with: strict, or best to accept a weaker sandbox where the platform refuses the full one (see docs/grading.md)")
	if platform != "github" {
		fl.StringVar(&opts.GoVersion, "go-version", autograder.DefaultGoVersion(), "the Go `RELEASE` of the jobs' image (golang:VERSION)")
	}
	if platform == "kubernetes" {
		fl.StringVar(&opts.Claim, "claim", "course-grading", "the `NAME` of the PersistentVolumeClaim the jobs share")
	}
	fl.BoolVar(&opts.Force, "force", false, "replace existing files")
	return cmd
}

func runClassCI(opts *ClassCIOptions) error {
	if opts.Timeout <= 0 {
		return usageError(fmt.Errorf("--timeout %s: must be positive", opts.Timeout))
	}
	// A new directory inside one that exists is made, as `course ci
	// kubernetes --chapter 10 k8s` expects.
	if _, err := os.Lstat(opts.Dir); !isDir(opts.Dir) && (err == nil || !isDir(filepath.Dir(filepath.Clean(opts.Dir)))) {
		return usageError(fmt.Errorf("%s: not a directory, nor a new one inside a directory that exists", opts.Dir))
	}
	l, err := labOf(opts.Catalog, opts.Chapter, nil)
	if err != nil {
		return err
	}
	c := &autograder.ClassCI{Lab: l, Shards: opts.Shards, Submissions: opts.Submissions, Bonus: opts.Bonus,
		Sandbox: opts.Sandbox, GoVersion: opts.GoVersion, Claim: opts.Claim}
	if opts.Timeout != grader.DefaultTimeout {
		c.Timeout = opts.Timeout
	}
	files, err := classCIFiles(c, opts.Platform)
	if err != nil {
		return usageError(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(opts.Dir, filepath.FromSlash(f.name)))
	}
	if err := refuseOverwrite(opts.Force, paths...); err != nil {
		return err
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return failure(err)
		}
		if err := writeFileAtomic(paths[i], func(w io.Writer) error { _, err := w.Write(f.data); return err }); err != nil {
			return failure(err)
		}
		fmt.Fprintf(opts.IO.Out, "Wrote %s\n", paths[i])
	}
	fmt.Fprintf(opts.IO.Out, "They grade lab %s in %d shards, then merge the shards' reports into grades.csv and report.html.\n", l.Chapter, opts.Shards)
	fmt.Fprintln(opts.IO.Out, "See docs/instructors.md for how to run them.")
	return nil
}

type classCIFile struct {
	name string // relative to the directory given
	data []byte
}

// classCIFiles makes the files of one platform.
func classCIFiles(c *autograder.ClassCI, platform string) ([]classCIFile, error) {
	switch platform {
	case "github":
		data, err := c.GitHubWorkflow()
		return []classCIFile{{autograder.ClassGitHubWorkflowPath(c.Lab.Chapter), data}}, err
	case "gitlab":
		data, err := c.GitLabCI()
		return []classCIFile{{autograder.ClassGitLabCIPath(c.Lab.Chapter), data}}, err
	case "kubernetes":
		k, err := c.Kubernetes()
		if err != nil {
			return nil, err
		}
		volume, grade, merge := autograder.KubernetesNames(c.Lab.Chapter)
		return []classCIFile{{volume, k.Volume}, {grade, k.Grade}, {merge, k.Merge}}, nil
	}
	return nil, errors.New("unknown platform " + platform)
}
