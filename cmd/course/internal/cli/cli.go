// Package cli is the course tool's command line: one constructor per
// command, each taking what it needs through a Factory, so that tests run
// commands in-process with their own streams and catalog.
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/safetext"
)

// Exit statuses, as go test uses them.
const (
	ExitOK      = 0 // the command did what was asked
	ExitFailure = 1 // it ran, but something failed (grading: a test failed)
	ExitUsage   = 2 // it could not run: bad command line, chapter or path
)

// ExitError carries the exit status a command ends with.
type ExitError struct {
	Code int
	Err  error
	// NoHelp leaves out the pointer to --help after an exit status 2 whose
	// cause is not the command line (an interrupted or ungradable run).
	NoHelp bool
}

func (e *ExitError) Error() string { return e.Err.Error() }

func (e *ExitError) Unwrap() error { return e.Err }

// usageError is an error in the form of the command line (an unknown
// flag, a bad value, an argument missing or too many): exit status 2, and
// a pointer to --help.
func usageError(err error) *ExitError { return &ExitError{Code: ExitUsage, Err: err} }

// inputError is exit status 2 for a command line of the right form that
// names something that cannot be used: a file that exists (or does not),
// a directory that is not a workspace, a report that is not one. Its one
// line says what to change; a pointer to --help would add nothing.
func inputError(err error) *ExitError { return &ExitError{Code: ExitUsage, Err: err, NoHelp: true} }

// failure is an error while running: exit status 1.
func failure(err error) *ExitError { return &ExitError{Code: ExitFailure, Err: err} }

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Factory provides what commands need from the outside world.
type Factory struct {
	IO IOStreams
	// Catalog loads the course's labs.
	Catalog func() (*lab.Catalog, error)
	// BuildInfo reports how the tool was built, like debug.ReadBuildInfo.
	BuildInfo func() (*debug.BuildInfo, bool)
}

// Main runs the course tool with args (without the program name) and
// returns its exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Run(&Factory{
		IO:        IOStreams{In: stdin, Out: stdout, ErrOut: stderr},
		Catalog:   lab.Load,
		BuildInfo: debug.ReadBuildInfo,
	}, args)
}

// Run runs the command line args with f and returns the exit status. An
// error is reported on f.IO.ErrOut in one line, followed by a pointer to
// the help of the command when the command line was at fault.
func Run(f *Factory, args []string) int {
	root := NewCmdRoot(f)
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)

	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		// Every error of ours is an *ExitError; the rest are cobra's own,
		// about the command line.
		ee = usageError(err)
	}
	path := root.CommandPath()
	if cmd != nil {
		path = cmd.CommandPath()
	}
	// Errors name paths and archive members that a submission chose.
	fmt.Fprintf(f.IO.ErrOut, "%s: %s\n", path, safetext.Line(safetext.FirstLine(ee.Error())))
	if ee.Code == ExitUsage && !ee.NoHelp {
		fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", path)
	}
	return ee.Code
}

// NewCmdRoot returns the course command with all its subcommands.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "course",
		Short: "Practise and grade the course's Go labs",
		Long: `course makes practice workspaces for the course's labs, helps a student
through one (status, test, hint, watch), and grades what students hand in.

'course list' shows every chapter's exercises. Start a lab with
'course practice {chapter} mylab', then 'cd mylab' and 'go test -run {run}';
the handout, mylab/README.md, says the rest.`,
		SilenceUsage:  true, // a usage error gets one line, not the whole usage
		SilenceErrors: true, // Run prints errors itself
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return usageError(errors.New(msg))
		},
		// Runnable only so that Args above sees an unknown command.
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SuggestionsMinimumDistance = 2
	root.SetHelpFunc(fillHelp(root.HelpFunc(), f.Catalog))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError(err)
	})
	root.AddCommand(
		NewCmdPractice(f),
		NewCmdList(f),
		NewCmdGrade(f),
		NewCmdSelfcheck(f),
		NewCmdAutograder(f),
		NewCmdCI(f),
		NewCmdSimilar(f),
		NewCmdTree(f),
		NewCmdStatus(f),
		NewCmdTest(f),
		NewCmdWatch(f),
		NewCmdHint(f),
		NewCmdRelease(f),
		NewCmdVersion(f),
	)
	return root
}

// positional returns an Args validator requiring exactly the named
// arguments, whose errors name what is missing or extra.
func positional(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) > len(names):
			return usageError(fmt.Errorf("unexpected argument %q", args[len(names)]))
		case len(args) < len(names):
			missing := names[len(args):]
			s := ""
			if len(missing) > 1 {
				s = "s"
			}
			return usageError(fmt.Errorf("missing argument%s %s", s, strings.Join(missing, " and ")))
		}
		return nil
	}
}
