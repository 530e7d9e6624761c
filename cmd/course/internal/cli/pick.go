package cli

// Which lab a command works on, when the command line does not say: the
// only lab of the catalog, or what the submissions themselves say (a
// workspace's .course/workspace.json, or the name and the package clause of
// the file a student edits: labs that share a file name have packages of
// their own).

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/submission"
)

// WhichLabError says that a command needs a lab and could not tell which:
// the course has several and neither --chapter nor the submissions say.
type WhichLabError struct {
	Reason string   // why the lab could not be told
	Known  []string // the course's chapters
}

func (e *WhichLabError) Error() string {
	return e.Reason + ": name the lab with --chapter (known: " + strings.Join(e.Known, ", ") + ")"
}

// labOf loads the catalog and picks the lab (pickLab) for a command that
// grades nothing: a catalog that cannot be read is the tool's trouble, a
// lab that cannot be picked is the command line's.
func labOf(catalog func() (*lab.Catalog, error), chapter string, paths []string) (*lab.Lab, error) {
	c, err := catalog()
	if err != nil {
		return nil, cannotGrade(err)
	}
	l, err := pickLab(c, chapter, paths)
	if err != nil {
		return nil, usageError(err)
	}
	return l, nil
}

// pickLab returns the lab of chapter, or, when none is named, the only lab
// of the catalog, or the one that the submissions at paths agree on. A
// submission that no lab could read is reported first (its error matches
// grader.ErrBadSubmission), as it is the likelier mistake; only then is
// the user asked for --chapter, with a *WhichLabError.
func pickLab(catalog *lab.Catalog, chapter string, paths []string) (*lab.Lab, error) {
	if chapter != "" {
		return catalog.Lookup(chapter)
	}
	all := catalog.Labs()
	if len(all) == 1 {
		return all[0], nil
	}
	whichLab := func(format string, args ...any) error {
		return &WhichLabError{Reason: fmt.Sprintf(format, args...), Known: catalog.Chapters()}
	}
	if len(paths) == 0 {
		return nil, whichLab("the course has %d labs", len(all))
	}
	found := map[*lab.Lab][]string{} // lab -> the paths that say it
	var order []*lab.Lab
	var unreadable, untold []error
	for _, p := range paths {
		l, err := labOfSubmission(catalog, p)
		switch {
		case errors.Is(err, submission.ErrBad):
			unreadable = append(unreadable, err)
		case err != nil:
			untold = append(untold, err)
		default:
			if _, ok := found[l]; !ok {
				order = append(order, l)
			}
			found[l] = append(found[l], p)
		}
	}
	switch {
	case len(order) == 1:
		// The others are graded against it too, and their trouble (an
		// unreadable path, a file of no lab) is reported with their grade.
		return order[0], nil
	case len(unreadable) > 0:
		err := unreadable[0]
		if n := len(unreadable) - 1; n > 0 {
			err = fmt.Errorf("%w (and %d more submissions that no lab could read)", err, n)
		}
		return nil, err
	case len(order) > 1:
		var says []string
		for _, l := range order {
			says = append(says, fmt.Sprintf("chapter %s: %s", l.Chapter, strings.Join(found[l], ", ")))
		}
		return nil, whichLab("the submissions are of different labs (%s), so grade each lab apart", strings.Join(says, "; "))
	}
	if n := len(untold) - 1; n > 0 {
		return nil, whichLab("%s (and %d more submissions whose lab cannot be told)", untold[0], n)
	}
	return nil, whichLab("%s", untold[0])
}

// labOfSubmission tells the lab of the submission at p: the chapter its
// workspace file names, or else the lab whose editable files it holds in
// that lab's package. The error matches grader.ErrBadSubmission when no lab
// could read the submission at all.
func labOfSubmission(catalog *lab.Catalog, p string) (*lab.Lab, error) {
	// Only a directory, not a link to one, has a workspace file of its own.
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		if info, err := lab.ReadWorkspaceInfo(p); err == nil {
			if l, err := catalog.Lookup(info.Chapter); err == nil {
				return l, nil
			}
		}
	}
	// What a lab would take as its file: "it" for a lone .go file, which
	// every lab with one editable file takes whatever its name.
	what := func(sub *submission.Submission, file string) string {
		if strings.HasSuffix(strings.ToLower(p), ".go") {
			return "it"
		}
		return "its " + sub.Found[file]
	}
	var readErrs []error
	var said []string // what the package clauses said, for the error
	var seen [][]string
	for _, l := range catalog.Labs() {
		if slices.ContainsFunc(seen, func(e []string) bool { return slices.Equal(e, l.Editable) }) {
			continue // the same files: read them once
		}
		seen = append(seen, l.Editable)
		sub, err := submission.Read(p, l.Editable)
		if err != nil {
			readErrs = append(readErrs, err)
			continue
		}
		file := l.Editable[0]
		var says string
		pkg, err := lab.PackageName(sub.Files[file])
		switch labs := catalog.ByPackage(l.Editable, pkg); {
		case err != nil:
			says = what(sub, file) + " has no package clause"
		case len(labs) == 1:
			return labs[0], nil
		case len(labs) == 0:
			says = what(sub, file) + " is package " + pkg + ", which is no lab's"
		default:
			var chs []string
			for _, m := range labs {
				chs = append(chs, m.Chapter)
			}
			says = fmt.Sprintf("%s is package %s, which chapters %s share", what(sub, file), pkg, strings.Join(chs, ", "))
		}
		if !slices.Contains(said, says) {
			said = append(said, says)
		}
	}
	if len(said) == 0 {
		return nil, unreadableError(p, readErrs, catalog.EditableNames())
	}
	var pkgs []string
	for _, l := range catalog.Labs() {
		pkgs = append(pkgs, fmt.Sprintf("%s %s in package %s", l.Chapter, strings.Join(l.Editable, " and "), l.Package))
	}
	return nil, fmt.Errorf("cannot tell the lab of %s: %s (the labs: %s)", p, strings.Join(said, "; "), strings.Join(pkgs, ", "))
}

// unreadableError sums up why no lab could read the submission at p, from
// the errors errs that the labs' reads gave: the one reason when they all
// gave the same, else one that names every file a lab looks for.
func unreadableError(p string, errs []error, names []string) error {
	var reasons []string
	missing := true // every lab found no file of its own
	for _, err := range errs {
		var se *submission.Error
		if !errors.As(err, &se) {
			return err
		}
		if !slices.Contains(reasons, se.Reason) {
			reasons = append(reasons, se.Reason)
		}
		missing = missing && se.Kind == submission.Missing
	}
	switch {
	case len(reasons) == 1:
		return errs[0]
	case missing:
		return &submission.Error{Path: p, Reason: "holds no " + strings.Join(names, " or "), Kind: submission.Missing}
	}
	// Not a directory, an archive or a .go file: the grader says so,
	// naming every file, when asked for all of them at once.
	if _, err := submission.Read(p, names); err != nil {
		var se *submission.Error
		if errors.As(err, &se) && se.Kind == submission.Unreadable {
			return err
		}
	}
	return &submission.Error{Path: p, Reason: strings.Join(reasons, "; ")}
}
