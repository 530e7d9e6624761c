package autograder

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/coursekit/course/grader/lab"
)

// ClassReportsDir is where the files of ClassCI put the shards' reports
// and the class's grades.csv and report.html, in the course's checkout.
const ClassReportsDir = "class-reports"

// MaxShards is the most shards ClassCI splits a class into, a job each:
// GitLab's parallel takes at most 200.
const MaxShards = 200

// ClassCI describes files that grade a whole class of one lab, with the
// hidden tests, on a platform instructors run (GitHub Actions, GitLab CI,
// a Kubernetes cluster), in shards: Shards jobs each grade one part
// (`course grade --shard k/N --json`), then one merges their reports into
// the class's table and page (`course grade --from ... --csv --html`).
// Unlike CI, it runs in a checkout of the course itself, the private one
// with the hidden tests, which builds the course tool; the submissions
// are in a directory of it (GitHub, GitLab) or of a volume (Kubernetes).
type ClassCI struct {
	Lab    *lab.Lab
	Shards int
	// Submissions is the directory of the submissions, relative to the
	// course's checkout ("submissions" if empty): every entry of it is
	// one. Kubernetes takes them from the volume instead.
	Submissions string
	// Bonus grades the lab's bonus exercises too.
	Bonus bool
	// Timeout, if set, is course grade's --timeout.
	Timeout time.Duration
	// Sandbox is course grade's --sandbox: "strict" (the default) or
	// "best" ("off" is never for student code).
	Sandbox string
	// GoVersion is the Go release of GitLab's and Kubernetes' image
	// ("go1.26.2"); DefaultGoVersion() if empty. GitHub's jobs take the Go
	// of the course's go.mod.
	GoVersion string
	// Claim is the PersistentVolumeClaim of Kubernetes' volume
	// ("course-grading" if empty).
	Claim string
}

// The shell variables the scripts of ClassCI read: the course tool, the
// directory of the submissions, where the reports go, and, in a shard's
// job, which shard of how many it grades.
const (
	envCourse      = "COURSE"
	envSubmissions = "SUBMISSIONS"
	envReports     = "REPORTS"
	envShard       = "SHARD"
	envShards      = "SHARDS"
)

var (
	relDir    = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$`)
	k8sName   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	errNoLab  = errors.New("no lab given")
	errShards = fmt.Errorf("the number of shards must be 1 to %d", MaxShards)
)

// check checks what every platform's files take.
func (c *ClassCI) check() error {
	switch {
	case c.Lab == nil:
		return errNoLab
	case !safeWord.MatchString(c.Lab.Chapter):
		return fmt.Errorf("chapter %q: not a plain name", c.Lab.Chapter)
	case c.Shards < 1 || c.Shards > MaxShards:
		return fmt.Errorf("%d shards: %w", c.Shards, errShards)
	case c.Timeout < 0:
		return fmt.Errorf("timeout %s: must be positive", c.Timeout)
	}
	switch c.sandbox() {
	case "strict", "best":
	default:
		return fmt.Errorf("sandbox %q: strict or best (off is never for student code)", c.Sandbox)
	}
	if s := c.submissions(); !relDir.MatchString(s) || path.Clean(s) != s || strings.HasPrefix(s, "..") || s == "." {
		return fmt.Errorf("submissions %q: not a directory inside the course's checkout, such as submissions/lab%s", s, c.Lab.Chapter)
	}
	return nil
}

func (c *ClassCI) sandbox() string {
	if c.Sandbox == "" {
		return "strict"
	}
	return c.Sandbox
}

func (c *ClassCI) submissions() string {
	if c.Submissions == "" {
		return "submissions"
	}
	return c.Submissions
}

func (c *ClassCI) goVersion() (string, error) { return goRelease(c.GoVersion) }

// gradeFlags are course grade's flags for every shard.
func (c *ClassCI) gradeFlags() string { return gradeFlags(c.Lab, c.sandbox(), c.Bonus, c.Timeout) }

// summary is the header comment of a file of ClassCI.
func (c *ClassCI) summary(platform, made string) string {
	return fmt.Sprintf("# %s: grades every submission of lab %s (%s), hidden tests included, in %d shards,\n"+
		"# then merges the shards' reports into grades.csv and report.html. Made by `course ci %s`;\n"+
		"# see docs/instructors.md in the course.\n", platform, c.Lab.Chapter, c.Lab.Title, c.Shards, made)
}

// gradingModulesScript downloads the modules of the course and of its
// labs, which grading builds with offline.
const gradingModulesScript = downloadScript

// buildScript builds the course tool into $COURSE from the checkout (the
// working directory), and leaves both to their owner alone.
const buildScript = `go build -trimpath -o "$COURSE" ./cmd/course
# The checkout holds the hidden tests and the solutions, and the tool embeds
# them: below the full sandbox student code runs as a user of its own, who
# must not be able to read them.
chmod -R go-rwx . "$COURSE"
`

// shardScript grades shard $SHARD of $SHARDS of the submissions in
// $SUBMISSIONS into $REPORTS/shard-$SHARD.json, with extra flags. The
// report is the shard's work whatever the grades say (some failed: 1; a
// submission could not be read: 2, and its row says why): the job fails
// only when it wrote none.
func (c *ClassCI) shardScript(extra ...string) string {
	flags := c.gradeFlags()
	if len(extra) > 0 {
		flags += " " + strings.Join(extra, " ")
	}
	return `mkdir -p "$REPORTS"
report="$REPORTS/shard-$SHARD.json"
rm -f "$report"
status=0
"$COURSE" grade --shard "$SHARD/$SHARDS" ` + flags + ` --json -o "$report" "$SUBMISSIONS"/* || status=$?
echo "course grade --shard $SHARD/$SHARDS: exit status $status (0: every exercise passed, 1: some failed, 2: some submission could not be graded, or none was)"
if [ ! -s "$report" ]; then
  echo "shard $SHARD/$SHARDS wrote no report" >&2
  exit 2
fi
`
}

// mergeScript merges the N shards' reports in $REPORTS into the class's
// table (printed), $REPORTS/grades.csv and $REPORTS/report.html. It fails
// when the reports do not merge or a submission could not be graded,
// after writing what it could.
func (c *ClassCI) mergeScript() string {
	var from []string
	for k := 1; k <= c.Shards; k++ {
		from = append(from, fmt.Sprintf(`--from "$REPORTS/shard-%d.json"`, k))
	}
	return `rm -f "$REPORTS/grades.csv" "$REPORTS/report.html"
status=0
"$COURSE" grade --chapter ` + c.Lab.Chapter + ` \
  ` + strings.Join(from, ` \
  `) + ` \
  --csv "$REPORTS/grades.csv" --html "$REPORTS/report.html" || status=$?
echo "course grade --from: exit status $status (0: every exercise passed, 1: some failed, 2: some submission could not be graded, or the reports do not merge)"
if [ "$status" -gt 1 ]; then exit "$status"; fi
`
}

// ShardReport is the name of shard k's report in ClassReportsDir.
func ShardReport(k int) string { return fmt.Sprintf("shard-%d.json", k) }
