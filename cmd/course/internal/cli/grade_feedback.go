package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coursekit/course/grader/atomicfile"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/feedback"
	"github.com/coursekit/course/grader/lab"
)

// feedbackPlan is where --feedback writes: a file per submission, by name,
// in a directory that is in no submission.
type feedbackPlan struct {
	dir   string
	files map[string]string // submission name -> its file
	force bool
}

// planFeedback checks --feedback DIR before anything is graded: DIR is a
// directory or can be made one, in no submission of paths, and none of the
// files of the submissions named names exists there (unless --force) or is
// another file the command reads or writes. nil without --feedback.
func planFeedback(opts *GradeOptions, paths, names []string) (*feedbackPlan, error) {
	dir := opts.Feedback
	if dir == "" {
		return nil, nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("--feedback %s: not a directory", dir)
	} else if err != nil {
		parent := filepath.Dir(filepath.Clean(dir))
		if pfi, perr := os.Stat(parent); perr != nil || !pfi.IsDir() {
			return nil, fmt.Errorf("--feedback %s: directory %s does not exist", dir, parent)
		}
	}
	abs := absPath(dir)
	if abs == "" {
		return nil, fmt.Errorf("--feedback %s: cannot tell where it is", dir)
	}
	// Where files would really land: through a link, DIR's or its parent's.
	at := []string{abs, resolvedPath(dir), filepath.Join(resolvedPath(filepath.Dir(abs)), filepath.Base(abs))}
	if p := submissionHolding(at, paths); p != "" {
		return nil, fmt.Errorf("--feedback %s: is inside submission %s, and grading never writes a submission", dir, p)
	}
	others := map[string]string{}
	outputs := []struct{ flag, path string }{{"-o", opts.Output}, {"--csv", opts.CSV}, {"--html", opts.HTML}}
	for _, from := range opts.From {
		outputs = append(outputs, struct{ flag, path string }{"--from", from})
	}
	for _, o := range outputs {
		if o.path != "" {
			others[absPath(o.path)] = o.flag
		}
	}
	plan := &feedbackPlan{dir: dir, files: map[string]string{}, force: opts.Force}
	var existing []string
	for i, f := range feedback.FileNames(names) {
		p := filepath.Join(dir, f)
		if flag, ok := others[absPath(p)]; ok {
			return nil, fmt.Errorf("--feedback %s: the feedback of %s would be the %s file %s", dir, names[i], flag, p)
		}
		if _, err := os.Lstat(p); err == nil {
			existing = append(existing, p)
		}
		plan.files[names[i]] = p
	}
	if len(existing) > 0 && !opts.Force {
		more := ""
		if n := len(existing) - 1; n > 0 {
			more = fmt.Sprintf(" and %d more files", n)
		}
		return nil, fmt.Errorf("--feedback %s: %s%s exist; use --force to overwrite them", dir, existing[0], more)
	}
	return plan, nil
}

// write writes the feedback of every result, each file whole or not at
// all, and says on stderr where they went.
func (p *feedbackPlan) write(opts *GradeOptions, results []classpkg.Result, l *lab.Lab) error {
	if p == nil {
		return nil
	}
	g, err := feedback.NewGuide(l)
	if err != nil {
		return fmt.Errorf("--feedback: %w", err)
	}
	if err := os.Mkdir(p.dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--feedback %s: %w", p.dir, err)
	}
	written := 0
	for _, r := range results {
		path, ok := p.files[r.Name]
		if !ok {
			return fmt.Errorf("--feedback %s: no file was planned for %s", p.dir, r.Name)
		}
		if _, err := os.Lstat(path); err == nil && !p.force {
			return fmt.Errorf("--feedback %s: %s appeared while grading; use --force to overwrite it", p.dir, path)
		}
		var b bytes.Buffer
		if r.Err != nil {
			err = g.WriteNotGraded(&b, r.Name, r.Err)
		} else {
			rep := *r.Report
			rep.Submission = r.Name // the name the class knows it by
			err = g.Write(&b, &rep)
		}
		if err == nil {
			err = atomicfile.Write(path, b.Bytes(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("--feedback %s: %w", path, err)
		}
		written++
	}
	fmt.Fprintf(opts.IO.ErrOut, "feedback for %d %s in %s\n", written, map[bool]string{true: "submission", false: "submissions"}[written == 1], p.dir)
	return nil
}
