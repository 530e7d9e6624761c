package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	classpkg "github.com/coursekit/course/grader/class"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
)

// runGradeFrom makes the reports of a class from saved --json reports
// instead of grading: the table and summary, --csv, --html, --format
// junit or json. Several are the reports of a class's shards, merged.
func runGradeFrom(opts *GradeOptions) error {
	from := strings.Join(opts.From, ", ")
	if len(opts.Paths) > 0 {
		return usageError(fmt.Errorf("--from %s reads a saved report: give no submissions (got %s)", from, strings.Join(opts.Paths, " ")))
	}
	if opts.Shard != "" {
		return usageError(errors.New("--shard grades part of the submissions, and --from grades nothing: merge the shards' reports with --from alone"))
	}
	if opts.Format == formatGradescope || opts.Late != "" || opts.Due != "" || opts.Times != "" || opts.Update {
		return usageError(fmt.Errorf("--from %s: only --format text, json or junit, --csv (with --roster), --html and --feedback take a saved report", from))
	}
	if err := checkOutputs(opts, nil); err != nil {
		return inputError(err)
	}
	if err := checkCSVFlags(opts); err != nil {
		return usageError(err)
	}
	saved, err := readFrom(opts.From)
	if err != nil {
		return err
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	chapter := saved.Lab
	if chapter == "" {
		chapter = opts.Chapter
	}
	if opts.Chapter != "" && chapter != opts.Chapter {
		return usageError(fmt.Errorf("--from %s holds reports of lab %s, not --chapter %s", from, chapter, opts.Chapter))
	}
	l, err := catalog.Lookup(chapter)
	if err != nil {
		return inputError(fmt.Errorf("--from %s: %w", from, err))
	}
	results := saved.Results
	var names []string
	for _, r := range results {
		names = append(names, r.Name)
	}
	fb, err := planFeedback(opts, nil, names)
	if err != nil {
		return inputError(err)
	}
	ids := savedExercises(l, results)
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
	failed, notGraded := classpkg.Outcomes(results)
	switch {
	case notGraded > 0:
		return cannotGrade(fmt.Errorf("%d of %d submissions in %s could not be graded", notGraded, len(results), from))
	case failed > 0:
		return failure(fmt.Errorf("%d of %d submissions in %s failed some exercise", failed, len(results), from))
	}
	return nil
}

// readFrom reads the saved reports, and merges them when there are
// several (the shards of a class).
func readFrom(paths []string) (*classpkg.Saved, error) {
	var files []classpkg.SavedFile
	for _, p := range paths {
		saved, err := classpkg.ReadSavedFile(p)
		var je *classpkg.JSONError
		switch {
		case errors.As(err, &je):
			return nil, cannotGrade(fmt.Errorf("--from %s: %w", p, err))
		case err != nil:
			return nil, cannotGrade(fmt.Errorf("--from: %w", err))
		}
		files = append(files, classpkg.SavedFile{Path: p, Saved: saved})
	}
	if len(files) == 1 {
		return files[0].Saved, nil
	}
	merged, err := classpkg.Merge(files)
	if err != nil {
		return nil, cannotGrade(fmt.Errorf("--from: %w", err))
	}
	return merged, nil
}

// savedExercises are the exercises the saved reports graded, in the lab's
// order; the lab's own (without bonus) when no report says (a shard
// that had nothing to grade).
func savedExercises(l *lab.Lab, results []classpkg.Result) []string {
	reports, _ := classpkg.Split(results)
	if len(reports) == 0 {
		ids, _ := exerciseIDs(l, nil, false)
		return ids
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
	return ids
}
