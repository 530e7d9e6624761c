package autograder_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/report"
)

// The class's files run here as each platform runs them, offline: every
// shard's job for k = 1..N, then the merge, on a small class in a checkout
// of the course; the class's table they make is the one a single run of
// course grade makes. What needs root and the network (installing
// bubblewrap, a kernel setting) goes to stand-ins that log what they were
// asked; the platforms' own actions (checkout, artifacts) are played by
// the test, with the paths the files name.

// classLayout is a checkout of the course as the platforms' jobs see it,
// with a class in submissions/: alice and bob, files the static check
// rejects (graded in no time, each its own), and carol, a folder without
// session.go (not graded). Of 2 shards, bob and carol are 1/2, alice 2/2.
type classLayout struct {
	checkout string
	env      []string // the jobs' environment, the stand-ins first on PATH
	log      string   // what the stand-ins were asked
	course   string   // a course tool built from the checkout, for one run of the whole class
}

func newClassLayout(t *testing.T) classLayout {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds the course tool and grades a class")
	}
	releasetest.SkipInRelease(t, "the class's files grade with the hidden tests, which a release has not")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	lay := classLayout{checkout: courseCheckout(t), log: filepath.Join(t.TempDir(), "stand-ins.log")}
	subs := filepath.Join(lay.checkout, "submissions")
	require.NoError(t, os.Mkdir(subs, 0o755))
	stub, err := os.ReadFile(filepath.Join(lay.checkout, "labs", "10-session", "session.go"))
	require.NoError(t, err)
	rejected := strings.Replace(string(stub), "\nimport \"fmt\"\n", "\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n", 1) + "\nfunc init() { _ = os.Args }\n"
	require.NotEqual(t, string(stub), rejected)
	for _, name := range []string{"alice", "bob"} {
		require.NoError(t, os.WriteFile(filepath.Join(subs, name+".go"), []byte("// "+name+"\n"+rejected), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(subs, "carol"), 0o755))

	bin := t.TempDir()
	for name, script := range map[string]string{
		"sudo":    "#!/bin/sh\nexec \"$@\"\n",
		"apt-get": "#!/bin/sh\necho \"apt-get $*\" >>\"$STAND_INS_LOG\"\n",
		"sysctl":  "#!/bin/sh\necho \"sysctl $*\" >>\"$STAND_INS_LOG\"\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	// The jobs' module cache is empty at first, filled from a proxy made of
	// this machine's module cache, offline.
	lay.env = offline.Env(append(freshModules(t), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "STAND_INS_LOG="+lay.log)...)
	lay.course = filepath.Join(t.TempDir(), "course")
	code, out := bashScript(t, lay.checkout, append(slices.Clone(lay.env), "COURSE="+lay.course), `go build -trimpath -o "$COURSE" ./cmd/course`)
	require.Equal(t, 0, code, "building the course tool:\n%s", out)
	return lay
}

// reset makes the checkout and the log what they were before any job ran.
func (lay classLayout) reset(t *testing.T) {
	t.Helper()
	require.NoError(t, os.RemoveAll(filepath.Join(lay.checkout, autograder.ClassReportsDir)))
	require.NoError(t, os.WriteFile(lay.log, nil, 0o644))
}

// copyFile copies src to the directory dst, under its own name.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dst, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dst, filepath.Base(src)), data, 0o644))
}

// matrix replaces the job's matrix expression with shard k.
func matrix(s string, k int) string {
	return strings.ReplaceAll(s, "${{ matrix.shard }}", strconv.Itoa(k))
}

// runGitHubJob runs the steps of a job of the class's workflow for matrix
// shard k (0: no matrix), artifacts kept in the directory artifacts. It
// returns the exit status of each step that ran a script.
func runGitHubJob(t *testing.T, lay classLayout, job ghClassJob, k int, artifacts string) []int {
	t.Helper()
	env := append(slices.Clone(lay.env), "RUNNER_TEMP="+t.TempDir(), "GITHUB_WORKSPACE="+lay.checkout)
	for name, v := range job.Env {
		env = append(env, name+"="+v)
	}
	var codes []int
	failed := false
	for _, s := range job.Steps {
		if failed && !strings.Contains(s.If, "!cancelled()") {
			continue // a step after a failure runs only when it says so
		}
		switch {
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			for _, p := range strings.Fields(matrix(s.With["path"], k)) {
				src := filepath.Join(lay.checkout, p)
				if s.With["if-no-files-found"] == "error" {
					require.FileExists(t, src, "%s: the artifact's file", s.Name)
				}
				if _, err := os.Stat(src); err == nil {
					copyFile(t, src, filepath.Join(artifacts, matrix(s.With["name"], k)))
				}
			}
		case strings.HasPrefix(s.Uses, "actions/download-artifact@"):
			require.Equal(t, "true", s.With["merge-multiple"])
			found, err := filepath.Glob(filepath.Join(artifacts, s.With["pattern"], "*"))
			require.NoError(t, err)
			for _, f := range found {
				copyFile(t, f, filepath.Join(lay.checkout, s.With["path"]))
			}
		case s.Uses != "":
			// checkout and setup-go: the layout stands in for them
		default:
			stepEnv := slices.Clone(env)
			for name, v := range s.Env {
				stepEnv = append(stepEnv, name+"="+matrix(v, k))
			}
			started := time.Now()
			code, out := bashScript(t, lay.checkout, stepEnv, s.Run)
			t.Logf("step %q (shard %d): exit status %d in %s\n%s", s.Name, k, code, time.Since(started).Round(time.Millisecond), out)
			codes = append(codes, code)
			failed = code != 0
		}
	}
	return codes
}

// classRun is what a platform's jobs left, the shards' reports and the
// directory of grades.csv and report.html, and where and how they ran:
// the directory and the environment (with $SUBMISSIONS) of their scripts.
type classRun struct {
	shards  []string
	reports string
	dir     string
	env     []string
}

func TestClassCIJobsGradeAClassInShardsAsOneRunDoes(t *testing.T) {
	c := &autograder.ClassCI{Lab: lab10(t), Shards: 2}
	lay := newClassLayout(t) // one checkout for the three, one after the other
	for _, p := range []struct {
		name string
		run  func(*testing.T, classLayout, *autograder.ClassCI) classRun
	}{{"github", runGitHubJobs}, {"gitlab", runGitLabJobs}, {"kubernetes", runKubernetesJobs}} {
		t.Run(p.name, func(t *testing.T) {
			lay.reset(t)
			checkClassRun(t, lay, p.run(t, lay, c))
		})
	}
}

// runGitHubJobs runs the workflow's jobs: the matrix, then the merge.
func runGitHubJobs(t *testing.T, lay classLayout, c *autograder.ClassCI) classRun {
	_, wf := classWorkflow(t, c)
	artifacts := t.TempDir()
	for _, k := range wf.Jobs["grade"].Strategy.Matrix.Shard {
		codes := runGitHubJob(t, lay, wf.Jobs["grade"], k, artifacts)
		assert.Equal(t, []int{0, 0, 0}, codes, "shard %d: the sandbox, the build and the grade pass (a shard with carol's row too)", k)
	}
	require.NoError(t, os.RemoveAll(filepath.Join(lay.checkout, autograder.ClassReportsDir)), "the merge job starts from a fresh checkout")
	codes := runGitHubJob(t, lay, wf.Jobs["merge"], 0, artifacts)
	assert.Equal(t, []int{0, 2}, codes, "the merge fails, after writing, since carol could not be graded")
	for _, f := range []string{"grades.csv", "report.html"} {
		assert.FileExists(t, filepath.Join(artifacts, "class-report", f), "the class-report artifact")
	}
	return classRun{
		shards:  []string{filepath.Join(artifacts, "class-shard-1", "shard-1.json"), filepath.Join(artifacts, "class-shard-2", "shard-2.json")},
		reports: filepath.Join(artifacts, "class-report"), dir: lay.checkout,
		env: append(slices.Clone(lay.env), "SUBMISSIONS="+wf.Jobs["grade"].Env["SUBMISSIONS"]),
	}
}

// runGitLabJobs runs the pipeline's jobs: grade-shard once per node, then
// merge-shards with their artifacts.
func runGitLabJobs(t *testing.T, lay classLayout, c *autograder.ClassCI) classRun {
	_, ci := classPipeline(t, c)
	shard, merge := ci.Jobs[autograder.GitLabShardJob], ci.Jobs[autograder.GitLabMergeJob]
	jobEnv := func(job glClassJob, more ...string) []string {
		env := append(slices.Clone(lay.env), "CI_PROJECT_DIR="+lay.checkout)
		for name, v := range job.Variables {
			env = append(env, name+"="+strings.ReplaceAll(v, "$CI_PROJECT_DIR", lay.checkout))
		}
		return append(env, more...)
	}
	artifacts := t.TempDir()
	var shards []string
	require.Equal(t, []string{autograder.ClassReportsDir + "/"}, shard.Artifacts.Paths)
	for k := 1; k <= shard.Parallel; k++ {
		code, out := bashScript(t, lay.checkout, jobEnv(shard, "CI_NODE_INDEX="+strconv.Itoa(k), "CI_NODE_TOTAL="+strconv.Itoa(shard.Parallel)),
			strings.Join(shard.Script, "\n"))
		require.Equal(t, 0, code, "grade-shard %d/%d:\n%s", k, shard.Parallel, out)
		copyFile(t, filepath.Join(lay.checkout, autograder.ClassReportsDir, autograder.ShardReport(k)), filepath.Join(artifacts, strconv.Itoa(k)))
		shards = append(shards, filepath.Join(artifacts, strconv.Itoa(k), autograder.ShardReport(k)))
		require.NoError(t, os.RemoveAll(filepath.Join(lay.checkout, autograder.ClassReportsDir)), "the next job starts from a fresh checkout")
	}
	for _, p := range shards { // the merge job gets the artifacts of the jobs it needs
		copyFile(t, p, filepath.Join(lay.checkout, autograder.ClassReportsDir))
	}
	code, out := bashScript(t, lay.checkout, jobEnv(merge), strings.Join(merge.Script, "\n"))
	assert.Equal(t, 2, code, "the merge fails, after writing, since carol could not be graded:\n%s", out)
	for _, p := range merge.Artifacts.Paths {
		assert.FileExists(t, filepath.Join(lay.checkout, p), "artifact %s", p)
	}
	return classRun{shards: shards, reports: filepath.Join(lay.checkout, autograder.ClassReportsDir), dir: lay.checkout, env: jobEnv(merge)}
}

// runKubernetesJobs runs the pods of the Indexed Job, one per completion
// index, then the merge Job's, on a volume made of the checkout.
func runKubernetesJobs(t *testing.T, lay classLayout, c *autograder.ClassCI) classRun {
	k, err := c.Kubernetes()
	require.NoError(t, err)
	grade, merge := k8sJobs(t, k.Grade)[0], k8sJobs(t, k.Merge)[0]
	// The volume: the course's tree is the checkout, and the submissions in it.
	volume := map[string]string{autograder.K8sCourse: lay.checkout, autograder.K8sSubmissions: filepath.Join(lay.checkout, "submissions"),
		autograder.K8sReports: filepath.Join(t.TempDir(), "reports")}
	pod := func(job k8sJob, more ...string) (code int, out, dir string, env []string) {
		ctr := job.Spec.Template.Spec.Containers[0]
		env = slices.Clone(lay.env)
		for _, e := range ctr.Env {
			v := e.Value
			if local, ok := volume[v]; ok {
				v = local
			}
			if e.Name == "COURSE" {
				require.Equal(t, autograder.K8sTool, v)
				v = filepath.Join(t.TempDir(), "course-tool", "course") // each pod's own
			}
			env = append(env, e.Name+"="+v)
		}
		dir, env = volume[ctr.WorkingDir], append(env, more...)
		code, out = runIn(t, dir, env, ctr.Command[0], ctr.Command[1:]...)
		return code, out, dir, env
	}
	for i := range grade.Spec.Completions {
		code, out, _, _ := pod(grade, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		require.Equal(t, 0, code, "pod %d of the Indexed Job:\n%s", i, out)
	}
	code, out, dir, env := pod(merge)
	assert.Equal(t, 2, code, "the merge fails, after writing, since carol could not be graded:\n%s", out)
	reports := volume[autograder.K8sReports]
	return classRun{shards: []string{filepath.Join(reports, autograder.ShardReport(1)), filepath.Join(reports, autograder.ShardReport(2))},
		reports: reports, dir: dir, env: env}
}

// checkClassRun checks what a platform's jobs left against one run of
// course grade on the whole class: the shards hold bob and carol, then
// alice; the merged table and report are the one run's.
func checkClassRun(t *testing.T, lay classLayout, r classRun) {
	t.Helper()
	log, err := os.ReadFile(lay.log)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(log), "apt-get install -y -q bubblewrap"), "every shard's job installs bubblewrap:\n%s", log)

	var shards []classpkg.SavedFile
	for k, p := range r.shards {
		s := readSaved(t, p)
		require.NotNil(t, s.Head, "%s is a shard's report", p)
		assert.Equal(t, classpkg.Shard{Index: k + 1, Count: 2}, s.Head.Shard)
		shards = append(shards, classpkg.SavedFile{Path: p, Saved: s})
	}
	assert.Equal(t, []string{"bob", "carol"}, shards[0].Saved.Head.Submissions)
	assert.Equal(t, []string{"alice"}, shards[1].Saved.Head.Submissions)
	merged, err := classpkg.Merge(shards)
	require.NoError(t, err)

	// The whole class in one run, as the shards ran, with a course tool
	// built from the same checkout.
	whole := t.TempDir()
	code, out := bashScript(t, r.dir, append(slices.Clone(r.env), "COURSE="+lay.course, "WHOLE="+whole),
		`status=0
"$COURSE" grade --chapter 10 --json -o "$WHOLE/class.json" --csv "$WHOLE/grades.csv" "$SUBMISSIONS"/* || status=$?
exit "$status"`)
	require.Equal(t, 2, code, "carol could not be graded:\n%s", out)
	one := readSaved(t, filepath.Join(whole, "class.json"))
	assert.Equal(t, timeless(one.Results), timeless(merged.Results), "the shards merged are the class graded in one run, times aside")

	got, want := lines(t, filepath.Join(r.reports, "grades.csv")), lines(t, filepath.Join(whole, "grades.csv"))
	slices.Sort(want[1:]) // the run writes each row as it is graded
	assert.Equal(t, want, got, "grades.csv is the one run's table")
	html, err := os.ReadFile(filepath.Join(r.reports, "report.html"))
	require.NoError(t, err)
	for _, name := range []string{"alice", "bob", "carol"} {
		assert.Contains(t, string(html), name, "report.html has every student")
	}
}

func readSaved(t *testing.T, p string) *classpkg.Saved {
	t.Helper()
	s, err := classpkg.ReadSavedFile(p)
	require.NoError(t, err, "ReadSavedFile(%s)", p)
	return s
}

// timeless is results with every time taken out of their reports.
func timeless(results []classpkg.Result) []string {
	var out []string
	for _, r := range results {
		if r.Report == nil {
			out = append(out, fmt.Sprintf("%s %s: %v", r.Name, r.Path, r.Err))
			continue
		}
		rep := *r.Report
		rep.Seconds, rep.Build.Seconds = 0, 0
		rep.Exercises = slices.Clone(rep.Exercises)
		for i := range rep.Exercises {
			rep.Exercises[i].Seconds = 0
		}
		var settings report.Settings
		if rep.Settings != nil {
			settings = *rep.Settings
			settings.Graded = time.Time{} // when each run began
		}
		rep.Settings = nil
		out = append(out, fmt.Sprintf("%s: %+v %+v", r.Name, rep, settings))
	}
	return out
}

// lines are the lines of the file at p.
func lines(t *testing.T, p string) []string {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}
