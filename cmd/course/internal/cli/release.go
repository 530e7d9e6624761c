package cli

import (
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release"
)

// ReleaseOptions are the inputs of `course release`.
type ReleaseOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getwd finds where to look for the source tree when Source is empty.
	Getwd func() (string, error)

	Source string
	Dir    string
}

// NewCmdRelease returns the `course release <dir>` command.
func NewCmdRelease(f *Factory) *cobra.Command {
	opts := &ReleaseOptions{IO: f.IO, Catalog: f.Catalog, Getwd: os.Getwd}
	cmd := &cobra.Command{
		Use:   "release <dir>",
		Short: "Write a student release of the course: everything but the answers",
		Long: `Write, in <dir>, a student release of the course: a copy of the course's
source tree with the course tool, the lab templates with their public tests,
the handouts, hints and guides, and without the reference and alternative
solutions, the mutants, the hidden tests and the instructors' documents.
The release builds, its own 'go test ./...' passes, and 'course practice'
works from it; 'course grade' there runs the public tests only.

The source is the course's source tree on disk: --source, or the nearest
directory from the working directory up whose go.mod declares
github.com/coursekit/course. What is copied is decided by an explicit list
(docs/release.md); anything not on it is left out. Before the release is put
in place, every file of it is searched for the hidden tests' names and for
the code of the solutions, hidden tests and mutants: anything found fails
the release, and nothing is written.

<dir> must not exist yet (its parent must) or be an empty directory, outside
the source tree. Nothing is written unless the whole release is, and the
source tree is only read.`,
		Example: "  course release ../course-student\n  course release --source ~/course /tmp/course-student",
		Args:    positional("<dir>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runRelease(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Source, "source", "", "the course's source tree (default: found from the working directory up)")
	return cmd
}

func runRelease(opts *ReleaseOptions) error {
	source := opts.Source
	if source == "" {
		wd, err := opts.Getwd()
		if err != nil {
			return failure(err)
		}
		if source, err = release.FindSource(wd); err != nil {
			return inputError(fmt.Errorf("%w; run it inside the course's source tree or pass --source", err))
		}
	}
	res, err := release.Make(source, opts.Dir)
	if err != nil {
		var te *lab.TargetError
		var se *release.SourceError
		switch {
		case errors.As(err, &te):
			return inputError(fmt.Errorf("cannot create the release: %w", err))
		case errors.As(err, &se) && opts.Source != "":
			return inputError(fmt.Errorf("--source %w", err))
		case errors.As(err, &se):
			return inputError(fmt.Errorf("the source found from the working directory, %w", err))
		}
		var le *release.LeakError
		if errors.As(err, &le) {
			// The whole list: the first line alone would not say what to fix.
			fmt.Fprintln(opts.IO.ErrOut, le.Error())
			return failure(fmt.Errorf("the release would hold what students must not see (%d findings above); nothing was written", len(le.Leaks)))
		}
		return failure(err)
	}

	out := opts.IO.Out
	fmt.Fprintf(out, "Created the student release %s: %d files from %s.\n\nLeft out:\n", opts.Dir, len(res.Files), res.Source)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, lo := range res.LeftOut {
		fmt.Fprintf(tw, "  %s\t%s\n", lo.Path, lo.Why)
	}
	if err := tw.Flush(); err != nil {
		return failure(err)
	}
	fmt.Fprintf(out, "\nMade for the release:\n")
	for _, g := range res.Generated {
		fmt.Fprintf(out, "  %s\n", g)
	}
	chapter := "<chapter>"
	if opts.Catalog != nil {
		if c, err := opts.Catalog(); err == nil && len(c.Chapters()) > 0 {
			chapter = c.Chapters()[0]
		}
	}
	fmt.Fprintf(out, "\nNo hidden test name and no code of a solution, hidden test or mutant is in it.\n"+
		"Check it: cd %s && go test ./... && go run ./cmd/course practice %s mylab\n", shellQuote(opts.Dir), chapter)
	return nil
}
