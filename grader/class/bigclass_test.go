package class

import (
	"fmt"
	"time"

	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
)

// bigClassSize is the size of the class an instructor tried the page with.
const bigClassSize = 41

// bigClassStart is when the big class's grading began.
var bigClassStart = time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)

// bigClassNames are names a class really has: scripts other than Latin,
// a long one, and hostile ones.
var bigClassNames = []string{
	"Zoë", "李雷", "<script>alert(1)</script>", "rtl\u202eexe.go", `"><img src=x onerror=alert(1)>`,
	"a-very-long-submission-name-of-a-student-in-section-b-fall-2026",
}

// bigClass is a class of lab 7 of bigClassSize submissions, one of every
// kind of verdict in turn: full marks, a failed test with testify's
// message, a failed hidden test, a time-out, a file the check refused, a
// file that does not build, a late one, one late within the grace period;
// and two that could not be graded. Every failure message names its
// student's number ("student 12"), so a printout can be searched for it.
func bigClass() ([]*report.Report, map[string]string) {
	notGraded := map[string]string{
		"student-39": "submissions/student-39.zip: holds no demo.go",
		"student-40": "submissions/student-40.zip: the archive is larger than 50 MiB",
	}
	policy, err := late.Parse("10%/day, grace 15m")
	if err != nil {
		panic(err)
	}
	due := time.Date(2026, 12, 1, 23, 59, 0, 0, time.UTC)
	var reports []*report.Report
	for i := range bigClassSize - len(notGraded) {
		name := fmt.Sprintf("student-%02d", i)
		if i < len(bigClassNames) {
			name = bigClassNames[i]
		}
		r := bigClassReport(name, i)
		submitted := due.Add(-time.Hour)
		switch i % 8 {
		case 6:
			submitted = due.Add(50 * time.Hour)
		case 7:
			submitted = due.Add(10 * time.Minute)
		}
		policy.Apply(r, due, submitted)
		reports = append(reports, r)
	}
	return reports, notGraded
}

// bigClassReport is the report of student i of the big class.
func bigClassReport(name string, i int) *report.Report {
	r := reportOf(name, 2+float64(i%5), pass71(), pass72())
	r.Isolation = report.Isolation{Level: report.LevelFull, Name: "full (mount, pid, net, ipc, uts, user namespaces; cgroup-v2)"}
	r.Race = true
	r.Settings = &report.Settings{Graded: bigClassStart.Add(time.Duration(i) * 17 * time.Second), Version: "v1.4.0",
		Sandbox: "strict", Timeout: 30 * time.Second, Budget: 2 * time.Minute, Memory: 1 << 30, Hidden: true}
	message := fmt.Sprintf(`    demo_test.go:41: 
        	Error Trace:	demo_test.go:41
        	Error:      	Not equal: 
        	            	expected: "root, a, b"
        	            	actual  : "b, a, root"
        	Messages:   	PathTo(b) of student %d walks the wrong way: the root comes first
`, i)
	switch i % 8 {
	case 1:
		r.Exercises[0] = fail71(report.StatusFail)
		r.Exercises[0].Tests[1].Output = "=== RUN   TestLab7_1_B\n" + message + "--- FAIL: TestLab7_1_B (0.00s)\n"
		r.Exercises[0].Fail(report.CountCause(r.Exercises[0].Tests))
	case 2:
		r.Exercises[1] = fail72()
		r.Exercises[1].Tests[0].Status = report.StatusPass
		r.Exercises[1].Tests[1].Output = "=== RUN   TestLab7_2_HiddenD\n" + message + "--- FAIL: TestLab7_2_HiddenD (0.00s)\n"
		r.Exercises[1].Fail(report.CountCause(r.Exercises[1].Tests))
	case 3:
		r.Exercises[0] = fail71(report.StatusNoEnd)
		r.Exercises[0].Tests[1].Output = fmt.Sprintf("=== RUN   TestLab7_1_B\nwalking the chain of student %d forever\n", i)
		r.Exercises[0].Fail(report.Cause{Kind: report.TimedOut, Limit: int64(30 * time.Second)})
	case 4:
		r.Build = report.Build{Rejected: true, Output: fmt.Sprintf("demo.go:3:2: import \"os\" is not allowed (student %d)", i)}
		r.Exercises = []report.ExerciseReport{fail71(report.StatusNotRun), exercise("7.2", 10, test("TestLab7_2_C", report.StatusNotRun))}
		for j := range r.Exercises {
			r.Exercises[j].Fail(report.Cause{Kind: report.Rejected, Detail: fmt.Sprintf(`demo.go:3:2: import "os" is not allowed (student %d)`, i),
				Hint: "the file may import only the packages the stub imports"})
		}
	case 5:
		r.Build = report.Build{Output: fmt.Sprintf("# example.com/demo\n./demo.go:12:5: undefined: walk (student %d)\n./demo.go:20:1: missing return\n", i)}
		r.Exercises = []report.ExerciseReport{fail71(report.StatusNotRun), exercise("7.2", 10, test("TestLab7_2_C", report.StatusNotRun))}
		for j := range r.Exercises {
			r.Exercises[j].Fail(report.Cause{Kind: report.BuildFailed})
		}
	}
	r.Score, r.MaxScore = 0, 0
	for _, ex := range r.Exercises {
		r.Score += ex.Points
		r.MaxScore += ex.MaxPoints
	}
	return r
}
