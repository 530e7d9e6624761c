package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/report"

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/submission"
)

// writeClassReport writes a class's report in format: the JSON array, one
// JUnit document, or the table, the summary and the closing line. whole,
// after --update, is the whole table the class was regraded into.
func writeClassReport(w io.Writer, st format.Style, reportFormat string, results []classpkg.Result, l *lab.Lab, ids []string, closing string, whole *classpkg.Whole) error {
	switch reportFormat {
	case formatJSON:
		return classpkg.WriteJSON(w, results)
	case formatJUnit:
		reports, notGraded := classpkg.Split(results)
		data, err := format.JUnitClass("lab "+l.Chapter, reports, notGraded)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	if err := classpkg.WriteTable(w, results, ids, st); err != nil {
		return err
	}
	if err := writeSummary(w, results, l, whole); err != nil {
		return err
	}
	if closing == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s\n", closing)
	return err
}

// summarize sums up the results, saying after --update what whole table
// they were regraded into.
func summarize(results []classpkg.Result, l *lab.Lab, whole *classpkg.Whole) (*classpkg.Summary, error) {
	reports, notGraded := classpkg.Split(results)
	s, err := classpkg.Summarize(reports, notGraded, l)
	if err == nil {
		s.Whole = whole
	}
	return s, err
}

// writeSummary writes the class's gist (mean, median, pass rates, the test
// most failed) after a blank line.
func writeSummary(w io.Writer, results []classpkg.Result, l *lab.Lab, whole *classpkg.Whole) error {
	s, err := summarize(results, l, whole)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	return classpkg.WriteSummaryText(w, s)
}

// writeHTML writes the class report page to --html, if asked for.
func writeHTML(opts *GradeOptions, results []classpkg.Result, l *lab.Lab, whole *classpkg.Whole) error {
	if opts.HTML == "" {
		return nil
	}
	s, err := summarize(results, l, whole)
	if err != nil {
		return fmt.Errorf("--html %s: %w", opts.HTML, err)
	}
	return atomicfile.WriteFunc(opts.HTML, 0o644, func(w io.Writer, _ string) error {
		if err := classpkg.WriteHTML(w, s, classpkg.Options{RulesURL: opts.RulesURL}); err != nil {
			return fmt.Errorf("--html %s: %w", opts.HTML, err)
		}
		return nil
	})
}

// checkOutputs refuses output files that cannot be written, or that would
// overwrite a submission or each other, before anything is graded.
// absPath is p made absolute, or "" if it cannot be.
func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return a
}

// resolvedPath is p made absolute with every link in it followed, as far as
// it exists; "" if it cannot be made absolute.
func resolvedPath(p string) string {
	a := absPath(p)
	if a == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

func checkOutputs(opts *GradeOptions, paths []string) error {
	outputs := []struct{ flag, path string }{{"-o", opts.Output}, {"--csv", opts.CSV}, {"--html", opts.HTML}}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		for _, from := range opts.From {
			if a, _ := filepath.Abs(o.path); a != "" {
				if b, _ := filepath.Abs(from); a == b {
					return fmt.Errorf("%s %s: is the --from file", o.flag, o.path)
				}
			}
		}
		parent := filepath.Dir(filepath.Clean(o.path))
		if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %s: directory %s does not exist", o.flag, o.path, parent)
		}
		out, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		// Where the file really lands: a link in its directory's path
		// (lnk/x.csv, lnk a link to a submission) must not take it there.
		real := filepath.Join(resolvedPath(filepath.Dir(out)), filepath.Base(out))
		if p := submissionHolding([]string{out, real}, paths); p != "" {
			return fmt.Errorf("%s %s: is inside submission %s, and grading never writes a submission", o.flag, o.path, p)
		}
		if _, err := os.Lstat(o.path); err == nil && !opts.Force && (o.flag != "--csv" || !opts.Update) {
			// One rule for every file the course tool writes.
			return fmt.Errorf("%s %s: the file exists; use --force to overwrite it", o.flag, o.path)
		}
	}
	seen := map[string]string{}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		a, _ := filepath.Abs(o.path)
		if other, ok := seen[a]; ok {
			return fmt.Errorf("%s and %s name the same file %s", other, o.flag, o.path)
		}
		seen[a] = o.flag
	}
	return nil
}

// submissionHolding returns the first submission of paths that is, or
// holds, one of the absolute paths at (links in the submission's path
// followed too); "" when none does.
func submissionHolding(at, paths []string) string {
	for _, p := range paths {
		for _, sub := range []string{absPath(p), resolvedPath(p)} {
			if sub == "" {
				continue
			}
			for _, a := range at {
				if a == sub || strings.HasPrefix(a, sub+string(filepath.Separator)) {
					return p
				}
			}
		}
	}
	return ""
}

// writeReport writes the report with write to -o FILE (atomically: the
// file is whole or untouched) or to standard output, in colour only on a
// terminal without NO_COLOR.
func writeReport(opts *GradeOptions, write func(io.Writer, format.Style) error) error {
	if opts.Output != "" {
		return writeFileAtomic(opts.Output, func(w io.Writer) error { return write(w, format.Style{}) })
	}
	color := isTerminal(opts.IO.Out) && opts.Getenv("NO_COLOR") == ""
	return write(opts.IO.Out, format.Style{Color: color})
}

// gradescopeError is the results.json of a submission that could not be
// read: no points, and the reason for the student to see. files names what
// to upload, as the lab's manifest names it.
func gradescopeError(err error, files string) format.GradescopeResults {
	msg := err.Error()
	var se *submission.Error
	if errors.As(err, &se) {
		msg = "Your submission " + se.Reason + "."
	}
	return format.GradescopeResults{
		Score: 0, Output: msg + "\nUpload your " + files + ", or a .zip holding it.", OutputFormat: "text",
		Visibility: "visible", Tests: []format.GradescopeTest{},
	}
}

// writeOne writes one submission's report in the format asked for.
func writeOne(w io.Writer, st format.Style, opts *GradeOptions, r *report.Report) error {
	switch opts.Format {
	case formatJSON:
		return format.WriteJSON(w, r)
	case formatGradescope:
		return format.WriteJSON(w, format.Gradescope(r))
	case formatClassroom50:
		res, err := format.Classroom50(r, opts.Getenv, time.Now())
		if err != nil {
			return err
		}
		return format.WriteJSON(w, res)
	case formatJUnit:
		data, err := format.JUnit(r)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	return format.WriteText(w, r, st)
}
