package lab

import (
	"errors"
	"fmt"
	"strings"
)

// UnknownChapterError reports a chapter that no lab has.
type UnknownChapterError struct {
	Chapter string
	Known   []string
}

func (e *UnknownChapterError) Error() string {
	return fmt.Sprintf("unknown chapter %q (known: %s)", e.Chapter, strings.Join(e.Known, ", "))
}

// UnknownExerciseError reports an exercise id that a lab does not have.
type UnknownExerciseError struct {
	Chapter string
	ID      string
	Known   []string
}

func (e *UnknownExerciseError) Error() string {
	return fmt.Sprintf("chapter %s has no exercise %q (known: %s)", e.Chapter, e.ID, strings.Join(e.Known, ", "))
}

// ManifestError reports a lab whose manifest or files are unusable. Path is
// inside the labs module.
type ManifestError struct {
	Path string
	Err  error
}

func (e *ManifestError) Error() string { return "labs/" + e.Path + ": " + e.Err.Error() }

func (e *ManifestError) Unwrap() error { return e.Err }

// ErrNoSolution reports a lab whose reference solution the course does not
// carry: in a student release (`course release`) the solutions module is
// empty on purpose, so the self-check and the tests that need the solution
// cannot run there.
var ErrNoSolution = errors.New("no reference solution")

// Reasons a directory cannot receive a workspace; a *TargetError wraps one.
var (
	ErrTargetNotEmpty = errors.New("directory is not empty")
	ErrTargetNotDir   = errors.New("exists and is not a directory")
	ErrTargetNoParent = errors.New("parent directory does not exist")
	ErrTargetEmpty    = errors.New("empty path")
	ErrTargetSymlink  = errors.New("is a symbolic link")
	// ErrTargetWorkingDir refuses the current directory: replacing it
	// would leave the shell that ran the tool in a deleted directory.
	ErrTargetWorkingDir = errors.New("is the current directory; name a new directory instead")
)

// TargetError reports a target directory that WriteWorkspace or
// WriteGradingDir refused before touching anything. Err is one of the
// ErrTarget* reasons or the error that checking the path gave.
type TargetError struct {
	Path string
	Err  error
}

func (e *TargetError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *TargetError) Unwrap() error { return e.Err }
