package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
)

// PracticeOptions are the inputs of `course practice`.
type PracticeOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)

	Chapter string
	Dir     string
}

// NewCmdPractice returns the `course practice <chapter> <dir>` command.
func NewCmdPractice(f *Factory) *cobra.Command {
	opts := &PracticeOptions{IO: f.IO, Catalog: f.Catalog}
	return &cobra.Command{
		Use:   "practice <chapter> <dir>",
		Short: "Create a workspace to practise a chapter's lab in",
		Long: `Create, in <dir>, a fresh Go module holding a chapter's lab: the file you
edit, the given code, the public tests and the handout.

<dir> must not exist yet (its parent must), or be an empty directory.
Nothing is written unless the whole workspace is.`,
		Example: "  course practice {chapter} mylab",
		Args:    positional("<chapter>", "<dir>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Chapter, opts.Dir = args[0], args[1]
			return runPractice(opts)
		},
	}
}

func runPractice(opts *PracticeOptions) error {
	catalog, err := opts.Catalog()
	if err != nil {
		return failure(err)
	}
	l, err := catalog.Lookup(opts.Chapter)
	if err != nil {
		return usageError(err)
	}
	if err := l.WriteWorkspace(opts.Dir); err != nil {
		var te *lab.TargetError
		if errors.As(err, &te) {
			err = fmt.Errorf("cannot create the workspace: %w", err)
			if errors.Is(err, lab.ErrTargetNoParent) {
				parent := filepath.Dir(filepath.Clean(te.Path))
				err = fmt.Errorf("%w: make %s first, or name a new directory inside one that exists", err, parent)
			}
			if opts.Dir == "" {
				return usageError(err) // an empty argument: the command line's form
			}
			return inputError(err)
		}
		return failure(err)
	}

	out := opts.IO.Out
	points, graded, bonus := 0, 0, ""
	for _, e := range l.Exercises {
		if e.Bonus {
			bonus += fmt.Sprintf(", optional %s", e.ID)
			continue
		}
		points += e.Points
		graded++
	}
	fmt.Fprintf(out, "Created %s: chapter %s, %q (%d exercises, %d points%s).\n\n",
		opts.Dir, l.Chapter, l.Title, graded, points, bonus)
	for _, name := range l.Editable {
		fmt.Fprintf(out, "  Edit:    %s\n", filepath.Join(opts.Dir, name))
	}
	for _, name := range []string{"README.md", "README.zh.md"} {
		if _, err := os.Stat(filepath.Join(opts.Dir, name)); err == nil {
			fmt.Fprintf(out, "  Read:    %s\n", filepath.Join(opts.Dir, name))
		}
	}
	first := l.Exercises[0]
	run := runPattern(first)
	steps := [][2]string{
		{"cd " + shellQuote(opts.Dir), ""},
		{"go test -run " + run, fmt.Sprintf("exercise %s (%s)", first.ID, first.Name)},
		{"go test -v -run " + run, "the same, with each test's name and output"},
		{"course status", "which exercises pass, and what to do next"},
		{"course watch", "re-run the current exercise on every save"},
		{"course hint " + first.ID, "stuck? the next rung of the tutor's ladder"},
	}
	fmt.Fprintf(out, "\nNext:\n")
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	for _, s := range steps {
		if s[1] == "" {
			fmt.Fprintf(tw, "  %s\n", s[0])
		} else {
			fmt.Fprintf(tw, "  %s\t# %s\n", s[0], s[1])
		}
	}
	if err := tw.Flush(); err != nil {
		return failure(err)
	}
	return nil
}

// runPattern is what `go test -run` takes to select exactly exercise e:
// its test prefix without "Test" and the final "_" (TestLabN_M_ is LabN_M).
func runPattern(e lab.Exercise) string {
	return strings.TrimSuffix(strings.TrimPrefix(e.TestPrefix, "Test"), "_")
}

// shellQuote quotes a path for pasting into a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]#~;&|<>(){}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
