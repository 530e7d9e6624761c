package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/selfcheck"
)

// SelfcheckOptions are the inputs of `course selfcheck`.
type SelfcheckOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Run does the self-check; selfcheck.Run unless a test replaces it.
	Run func(context.Context, selfcheck.Options) (*selfcheck.Summary, error)

	Chapter string
	Jobs    int
	Timeout time.Duration
	NoRace  bool
	Kinds   []string
}

// NewCmdSelfcheck returns the `course selfcheck` command.
func NewCmdSelfcheck(f *Factory) *cobra.Command {
	opts := &SelfcheckOptions{IO: f.IO, Catalog: f.Catalog, Run: selfcheck.Run}
	cmd := &cobra.Command{
		Use:   "selfcheck [chapter]",
		Short: "Prove that a lab's tests tell right from wrong",
		Long: `selfcheck grades, with the public and hidden tests, a lab's stub (every
test must fail), its reference and alternative solutions (every test must
pass, under the race detector, and their fuzz seeds too) and every mutant
kept in solutions/<lab>/mutants (each must fail a test of the exercise it
names, which is the only exercise it is graded on). For every exercise but
the last it also grades the reference solution with the later exercises
stubbed out, which must pass every test of that exercise: a test may use
only its own and earlier exercises. Without a chapter it
checks every lab of the course, one after the other.
It exits 1 if anything does not behave, 2 if it cannot run.`,
		Example: "  course selfcheck\n  course selfcheck {chapter}\n  course selfcheck --no-race {chapter}",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Chapter = args[0]
			}
			return runSelfcheck(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Jobs, "jobs", 0, "implementations graded at once (default: the number of cores)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "limit for one exercise's run (default 60s)")
	cmd.Flags().BoolVar(&opts.NoRace, "no-race", false, "grade the solutions without the race detector (no C compiler)")
	cmd.Flags().StringSliceVar(&opts.Kinds, "kind", nil, "grade only these `kinds`: stub, solution, alternative, prefix, mutant (default: all)")
	return cmd
}

func runSelfcheck(ctx context.Context, opts *SelfcheckOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	catalog, err := opts.Catalog()
	if err != nil {
		return failure(err)
	}
	labs := catalog.Labs()
	if opts.Chapter != "" {
		l, err := catalog.Lookup(opts.Chapter)
		if err != nil {
			return usageError(err)
		}
		labs = []*lab.Lab{l}
	}
	for _, l := range labs {
		if _, err := l.Solution(); errors.Is(err, lab.ErrNoSolution) {
			// A student release (course release) has no solutions on purpose.
			return &ExitError{Code: ExitUsage, NoHelp: true, Err: fmt.Errorf(
				"not available in a student release: lab %s has no reference solution to check its tests against", l.Chapter)}
		}
	}
	var kinds []selfcheck.Kind
	for _, k := range opts.Kinds {
		switch kind := selfcheck.Kind(k); kind {
		case selfcheck.KindStub, selfcheck.KindSolution, selfcheck.KindAlternative, selfcheck.KindPrefix, selfcheck.KindMutant:
			kinds = append(kinds, kind)
		default:
			return usageError(fmt.Errorf("--kind %q: must be stub, solution, alternative, prefix or mutant", k))
		}
	}
	allOK := true
	for _, l := range labs {
		fmt.Fprintf(opts.IO.ErrOut, "self-check of lab %s: grading the stub, the solutions, each exercise without the later ones and every mutant...\n", l.Chapter)
		sum, err := opts.Run(ctx, selfcheck.Options{Lab: l, Jobs: opts.Jobs, Timeout: opts.Timeout, NoRace: opts.NoRace, Kinds: kinds,
			Progress: func(done, total int, r selfcheck.Result) {
				verdict := "ok"
				if !r.OK {
					verdict = "PROBLEM"
				}
				fmt.Fprintf(opts.IO.ErrOut, "  [%d/%d] %s %s: %s\n", done, total, r.Kind, r.Name, verdict)
			}})
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return &ExitError{Code: ExitUsage, Err: errors.New("interrupted"), NoHelp: true}
			}
			return &ExitError{Code: ExitUsage, Err: err, NoHelp: true}
		}
		if err := writeSelfcheck(opts.IO, sum); err != nil {
			return failure(err)
		}
		allOK = allOK && sum.OK()
	}
	if !allOK {
		return failure(errors.New("the self-check found problems (see the table)"))
	}
	return nil
}

// writeSelfcheck prints the table (kind, name, exercise, result, detail)
// and the summary line.
func writeSelfcheck(io IOStreams, sum *selfcheck.Summary) error {
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tEXERCISE\tRESULT\tDETAIL")
	for _, r := range sum.Results {
		result := "ok"
		if !r.OK {
			result = "PROBLEM"
		}
		detail := r.Detail
		if r.Kind == selfcheck.KindMutant && r.OK {
			detail = fmt.Sprintf("killed by %s", r.KilledBy[0])
			if n := len(r.KilledBy) - 1; n > 0 {
				detail += fmt.Sprintf(" and %d more", n)
			}
		}
		ex := r.Exercise
		if ex == "" {
			ex = "all"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Kind, r.Name, ex, result, strings.ReplaceAll(detail, "\n", " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	killed, mutants := sum.Counts(selfcheck.KindMutant)
	alts, altTotal := sum.Counts(selfcheck.KindAlternative)
	alone, prefixes := sum.Counts(selfcheck.KindPrefix)
	failing, total := sum.StubTests()
	_, err := fmt.Fprintf(io.Out, "\nlab %s: mutants killed %d/%d, alternatives accepted %d/%d, exercises passing without the later ones %d/%d, stub tests failing %d/%d (%.0fs)\n",
		sum.Lab, killed, mutants, alts, altTotal, alone, prefixes, failing, total, sum.Seconds)
	return err
}
