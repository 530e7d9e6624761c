package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	classpkg "github.com/coursekit/course/grader/class"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/report"
)

// runGradeFrom makes the reports of a class from a saved --json report
// instead of grading: the table and summary, --csv, --html, --format junit.
func runGradeFrom(opts *GradeOptions) error {
	if len(opts.Paths) > 0 {
		return usageError(fmt.Errorf("--from %s reads a saved report: give no submissions (got %s)", opts.From, strings.Join(opts.Paths, " ")))
	}
	if opts.Format == formatGradescope || opts.Late != "" || opts.Due != "" || opts.Times != "" || opts.Update {
		return usageError(fmt.Errorf("--from %s: only --format text, json or junit, --csv (with --roster), --html and --feedback take a saved report", opts.From))
	}
	if err := checkOutputs(opts, nil); err != nil {
		return inputError(err)
	}
	if err := checkCSVFlags(opts); err != nil {
		return usageError(err)
	}
	f, err := os.Open(opts.From)
	if err != nil {
		return cannotGrade(fmt.Errorf("--from: %w", err))
	}
	defer f.Close()
	reports, notGraded, err := classpkg.ReadJSON(f)
	if err != nil {
		return cannotGrade(fmt.Errorf("--from %s: %w", opts.From, err))
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	chapter := reports0Lab(reports, opts.Chapter)
	if opts.Chapter != "" && chapter != opts.Chapter {
		return usageError(fmt.Errorf("--from %s holds reports of lab %s, not --chapter %s", opts.From, chapter, opts.Chapter))
	}
	l, err := catalog.Lookup(chapter)
	if err != nil {
		return inputError(fmt.Errorf("--from %s: %w", opts.From, err))
	}
	var results []classpkg.Result
	for _, r := range reports {
		results = append(results, classpkg.Result{Name: r.Submission, Path: r.Path, Report: r})
	}
	for name, why := range notGraded {
		results = append(results, classpkg.Result{Name: name, Err: errors.New(why)})
	}
	classpkg.Sort(results)
	var names []string
	for _, r := range results {
		names = append(names, r.Name)
	}
	fb, err := planFeedback(opts, nil, names)
	if err != nil {
		return inputError(err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, e := range l.Exercises {
		for _, r := range reports {
			for _, ex := range r.Exercises {
				if ex.ID == e.ID && !seen[e.ID] {
					seen[e.ID] = true
					ids = append(ids, e.ID)
				}
			}
		}
	}
	if opts.CSV != "" {
		table, err := openCSV(opts, ids)
		if err != nil {
			return inputError(err)
		}
		for _, r := range results {
			if err := table.add(r); err != nil {
				table.close()
				return cannotGrade(fmt.Errorf("--csv %s: %w", opts.CSV, err))
			}
		}
		if err := table.close(); err != nil {
			return cannotGrade(fmt.Errorf("--csv %s: %w", opts.CSV, err))
		}
	}
	if err := writeReport(opts, func(w io.Writer, st format.Style) error {
		return writeClassReport(w, st, opts.Format, results, l, ids, "", nil)
	}); err != nil {
		return cannotGrade(err)
	}
	if err := writeHTML(opts, results, l, nil); err != nil {
		return cannotGrade(err)
	}
	if err := fb.write(opts, results, l); err != nil {
		return cannotGrade(err)
	}
	// The same exit status as the grading run that made the report.
	failed := 0
	for _, r := range reports {
		if !r.Passed() {
			failed++
		}
	}
	switch {
	case len(notGraded) > 0:
		return cannotGrade(fmt.Errorf("%d of %d submissions in %s could not be graded", len(notGraded), len(results), opts.From))
	case failed > 0:
		return failure(fmt.Errorf("%d of %d submissions in %s failed some exercise", failed, len(results), opts.From))
	}
	return nil
}

// reports0Lab is the chapter of a saved report: ReadJSON has made sure
// every report is of one lab. --chapter, when given, must agree.
func reports0Lab(reports []*report.Report, chapter string) string {
	if len(reports) == 0 {
		return chapter
	}
	return reports[0].Lab
}
