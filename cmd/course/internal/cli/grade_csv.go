package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	classpkg "github.com/coursekit/course/grader/class"

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/safetext"
)

// csvSink is the --csv file: a row per submission as it is graded.
type csvSink interface {
	add(r classpkg.Result) error
	close() error
	// fullMarks reports whether the earlier table (--update) gave name
	// full marks.
	fullMarks(name string) bool
}

// checkCSVFlags refuses --update, --only-failed and --roster where they
// mean nothing.
func checkCSVFlags(opts *GradeOptions) error {
	switch {
	case opts.Update && opts.CSV == "":
		return errors.New("--update regrades into an earlier --csv file: name it with --csv")
	case opts.OnlyFailed && !opts.Update:
		return errors.New("--only-failed reads what failed from an earlier --csv file: use it with --update --csv FILE")
	case opts.Roster != "" && opts.CSV == "":
		return errors.New("--roster joins the class list to the --csv table: name it with --csv")
	case opts.Update && opts.Force:
		return errors.New("--update keeps the other rows of the --csv file and --force would start it again: use one of them")
	}
	return nil
}

// openCSV opens the --csv file: a new table, or with --update the earlier
// one, read whole (and written back whole when grading ends).
func openCSV(opts *GradeOptions, ids []string) (csvSink, error) {
	var ros *classpkg.Roster
	if opts.Roster != "" {
		f, err := os.Open(opts.Roster)
		if err != nil {
			return nil, fmt.Errorf("--roster: %w", err)
		}
		ros, err = classpkg.ReadRoster(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--roster: %w", err)
		}
	}
	if opts.Update {
		f, err := os.Open(opts.CSV)
		if err != nil {
			return nil, fmt.Errorf("--csv --update: %w", err)
		}
		book, err := classpkg.ReadGradebook(f, ids)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--csv --update: %w", err)
		}
		g, err := classpkg.NewRegrade(book, ids, ros)
		if err != nil {
			return nil, fmt.Errorf("--csv %s --roster %s: %w", opts.CSV, opts.Roster, err)
		}
		return &csvUpdate{path: opts.CSV, Regrade: g}, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if opts.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(opts.CSV, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("--csv %s: the file exists; use --force to overwrite it, or --update to regrade into it", opts.CSV)
	}
	if err != nil {
		return nil, fmt.Errorf("--csv: %w", err)
	}
	t, err := classpkg.NewTable(f, ids, ros)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--csv %s: %w", opts.CSV, err)
	}
	return &csvTable{f: f, Table: t, warn: opts.IO.ErrOut}, nil
}

// csvTable is a new --csv file, written row by row.
type csvTable struct {
	*classpkg.Table
	f    *os.File
	warn io.Writer
}

func (t *csvTable) add(r classpkg.Result) error { return t.Add(r) }

// fullMarks: a new table knows no earlier grade.
func (t *csvTable) fullMarks(string) bool { return false }

// close finishes the table and closes the file once; later calls do nothing.
func (t *csvTable) close() error {
	if t.f == nil {
		return nil
	}
	missing, unknown, err := t.Finish()
	if len(missing) > 0 {
		names := make([]string, len(missing))
		for i, n := range missing {
			names[i] = safetext.Line(n)
		}
		fmt.Fprintf(t.warn, "no submission from %d of the roster (a row each, noted \"no submission\"): %s\n", len(missing), strings.Join(names, ", "))
	}
	if len(unknown) > 0 {
		names := make([]string, len(unknown))
		for i, n := range unknown {
			names[i] = safetext.Line(n)
		}
		fmt.Fprintf(t.warn, "warning: not in the roster, so without a student's id: %s\n", strings.Join(names, ", "))
	}
	err = errors.Join(err, t.f.Close())
	t.f = nil
	return err
}

// csvUpdate is --csv with --update: the earlier table, written back whole,
// atomically, when grading ends, so that an interrupted regrade keeps every
// other row.
type csvUpdate struct {
	*classpkg.Regrade
	path string
	done bool
}

func (u *csvUpdate) add(r classpkg.Result) error { return u.Add(r) }

func (u *csvUpdate) fullMarks(name string) bool { return !u.Failed(name) }

func (u *csvUpdate) close() error {
	if u.done {
		return nil
	}
	u.done = true
	return atomicfile.WriteFunc(u.path, 0o644, func(w io.Writer, _ string) error { return u.Book.Write(w) })
}

// writeFileAtomic writes the report file p atomically (see writeAtomic).
func writeFileAtomic(p string, write func(io.Writer) error) error {
	return atomicfile.WriteFunc(p, 0o644, func(w io.Writer, _ string) error {
		if err := write(w); err != nil {
			return fmt.Errorf("-o %s: %w", p, err)
		}
		return nil
	})
}
