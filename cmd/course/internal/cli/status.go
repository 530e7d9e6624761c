package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/textcol"
)

// StatusOptions are the inputs of `course status`.
type StatusOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getenv reads the environment (NO_COLOR).
	Getenv func(string) string
	// GoTest runs go test in the workspace; execGoTest unless a test replaces it.
	GoTest GoTestFunc

	Dir string // where to look for the workspace
}

// NewCmdStatus returns the `course status` command.
func NewCmdStatus(f *Factory) *cobra.Command {
	return newCmdStatus(&StatusOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv, GoTest: execGoTest})
}

func newCmdStatus(opts *StatusOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show which exercises of your workspace pass, and what to do next",
		Long: `Run the public tests of your practice workspace, as 'go test' would, and
show each exercise: pass or FAIL (todo for an optional one that does not
pass yet), its tests passed of all, its points, how far up the tutor's
ladder of hints you have climbed (course hint), and the exercise to work on
next.

Run it inside a workspace (or name one with --dir). It exits 0 whenever it
could run the tests, 2 when it could not.`,
		Example: "  cd mylab && course status",
		Args:    positional(),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runStatus(ctx, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "the practice workspace, or a directory inside it")
	return cmd
}

func runStatus(ctx context.Context, opts *StatusOptions) error {
	ws, err := openWorkspace(opts.Dir, opts.Catalog)
	if err != nil {
		return err
	}
	live := newLiveLine(opts.IO.ErrOut)
	res, err := ws.testExercises(ctx, opts.GoTest, orderedExercises(ws.Lab), live.progress)
	live.clear()
	if ctx.Err() != nil {
		return cannotGrade(errors.New("interrupted"))
	}
	if err != nil {
		return cannotGrade(err)
	}
	return writeStatus(opts.IO.Out, ws, res, styleFor(opts.IO.Out, opts.Getenv))
}

// writeStatus writes the table of exercises, the points and what to do next.
func writeStatus(w io.Writer, ws *Workspace, res *runOutcome, st format.Style) error {
	fmt.Fprintf(w, "Lab %s: %s  (%s)\n\n", ws.Lab.Chapter, ws.Lab.Title, ws.Dir)
	if res.Broken {
		writeBroken(w, res, st)
		fmt.Fprintln(w)
	}
	plain := func(s string) string { return s }
	climbed := hintsClimbed(ws)
	rows := [][]textcol.Cell{{textcol.Plain("EXERCISE"), textcol.Plain("NAME"), textcol.Plain("RESULT"), textcol.Plain("TESTS"), textcol.Plain("POINTS")}}
	if len(climbed) > 0 {
		rows[0] = append(rows[0], textcol.Plain(""), textcol.Plain("HINTS"))
	}
	var points, maxPoints, bonusPoints, bonusMax, passed, graded int
	for _, eo := range res.Exercises {
		name, verdict, paint, pts := eo.Exercise.Name, "FAIL", st.Fail, 0
		if eo.Passed {
			verdict, paint, pts = "pass", st.Pass, eo.Exercise.Points
		}
		if eo.Exercise.Bonus {
			name += " (bonus)"
			if !eo.Passed {
				verdict, paint = "todo", st.Dim // optional work is offered, never failed
			}
			bonusPoints += pts
			bonusMax += eo.Exercise.Points
		} else {
			graded++
			points += pts
			maxPoints += eo.Exercise.Points
			if eo.Passed {
				passed++
			}
		}
		barPaint := plain
		if eo.Passed {
			barPaint = st.Pass
		}
		row := []textcol.Cell{
			textcol.Plain(eo.Exercise.ID),
			textcol.Plain(name),
			{Text: verdict, Paint: paint},
			textcol.Plain(fmt.Sprintf("%d/%d", eo.passedTests(), len(eo.Tests))),
			textcol.Plain(fmt.Sprintf("%d/%d", pts, eo.Exercise.Points)),
			{Text: progressBar(eo.passedTests(), len(eo.Tests), 8), Paint: barPaint},
		}
		if c, ok := climbed[eo.Exercise.ID]; ok {
			row = append(row, textcol.Cell{Text: c, Paint: st.Dim})
		}
		rows = append(rows, row)
	}
	if err := textcol.Write(w, rows); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nPoints: %d/%d", points, maxPoints)
	if bonusMax > 0 {
		fmt.Fprintf(w, " (bonus %d/%d)", bonusPoints, bonusMax)
	}
	fmt.Fprintf(w, "   %s %d of %d exercises pass\n", progressBar(passed, graded, 20), passed, graded)
	_, err := fmt.Fprintln(w, nextStep(res, st))
	return err
}

// nextStep is the closing line: the first exercise that fails (the graded
// ones come before the bonus ones), or the news that all pass.
func nextStep(res *runOutcome, st format.Style) string {
	next := firstFailing(res)
	switch {
	case next == nil:
		return st.Pass("All exercises pass!")
	case next.Exercise.Bonus: // after every graded one
		return st.Pass("Every graded exercise passes!") + " Bonus: " + nextLine(next.Exercise)
	}
	return "Next: " + nextLine(next.Exercise)
}

func nextLine(e lab.Exercise) string {
	return fmt.Sprintf("%s %s — go test -run %s (course hint %s for a nudge)", e.ID, e.Name, runPattern(e), e.ID)
}

// hintsClimbed says, for each exercise of the workspace's lab that has
// hints, how far up its ladder the student has climbed (course hint keeps
// count in HintStatePath): "none yet", or the rungs seen of all and the
// last one's name, "2/4 signature". It is empty when the lab has no hints;
// an unreadable count or hints file counts as none climbed.
func hintsClimbed(ws *Workspace) map[string]string {
	state, _ := readHintState(filepath.Join(ws.Dir, filepath.FromSlash(HintStatePath)))
	out := map[string]string{}
	for _, e := range ws.Lab.Exercises {
		hints, err := ws.Lab.Hints(e.ID)
		if err != nil || len(hints) == 0 {
			continue
		}
		seen := min(max(state.Seen[e.ID], 0), len(hints))
		switch {
		case seen == 0:
			out[e.ID] = "none yet"
		case hints[seen-1].Rung.Key == "":
			out[e.ID] = fmt.Sprintf("%d/%d seen", seen, len(hints))
		default:
			out[e.ID] = fmt.Sprintf("%d/%d %s", seen, len(hints), hints[seen-1].Rung.EN)
		}
	}
	return out
}

// firstFailing returns the first exercise that fails, or nil.
func firstFailing(res *runOutcome) *exerciseOutcome {
	for _, eo := range res.Exercises {
		if !eo.Passed {
			return eo
		}
	}
	return nil
}

// writeBroken shows, once, why go test ran no test.
func writeBroken(w io.Writer, res *runOutcome, st format.Style) {
	what := "go test ran no test; it printed:"
	if res.BuildFailed {
		what = "The code does not compile, so every exercise fails:"
	}
	fmt.Fprintf(w, "%s\n%s", st.Fail(what), indentLines(trimOutput(res.BrokenOutput), "    "))
}
