package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
)

// ListOptions are the inputs of `course list`.
type ListOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
}

// NewCmdList returns the `course list` command.
func NewCmdList(f *Factory) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Catalog: f.Catalog}
	return &cobra.Command{
		Use:   "list",
		Short: "List the labs' exercises, their points and tests",
		Long: `List every exercise of every lab: its points, how many public and hidden
tests it has, and whether it is always graded or a bonus exercise, which
course grade grades only with --bonus.`,
		Args: positional(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runList(opts)
		},
	}
}

func runList(opts *ListOptions) error {
	catalog, err := opts.Catalog()
	if err != nil {
		return failure(err)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAPTER\tEXERCISE\tNAME\tPOINTS\tPUBLIC TESTS\tHIDDEN TESTS\tGRADED")
	for _, l := range catalog.Labs() {
		// A student release carries no solution and no hidden tests: the
		// instructor's copy grades with hidden tests this copy cannot count.
		_, err := l.Solution()
		release := errors.Is(err, lab.ErrNoSolution)
		for _, e := range l.Exercises {
			graded := "always"
			if e.Bonus {
				graded = "bonus" // only with course grade --bonus
			}
			hidden := fmt.Sprint(len(l.HiddenTests(e.ID)))
			if release {
				hidden = "-" // not in this copy
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", l.Chapter, e.ID, e.Name, e.Points,
				len(l.PublicTests(e.ID)), hidden, graded)
		}
	}
	if err := tw.Flush(); err != nil {
		return failure(err)
	}
	return nil
}
