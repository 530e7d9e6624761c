package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
)

// Placeholders that help texts (Long and Example) use instead of
// naming a lab: help fills them in from the catalog when it is shown, so
// that the examples are always of a lab the course has, and a new chapter
// needs no change here.
const (
	phChapter  = "{chapter}"  // a chapter of the course
	phExercise = "{exercise}" // an exercise of it
	phBonus    = "{bonus}"    // an optional exercise of it, if it has one
	phRun      = "{run}"      // the go test -run pattern of {exercise}
	phFile     = "{file}"     // the file its students edit
	phFiles    = "{files}"    // every lab's file, with the chapters that edit it
)

// helpExamples is what the placeholders stand for: the first lab of the
// catalog and its first graded exercise, or words that say what goes there
// when there is no catalog.
func helpExamples(catalog func() (*lab.Catalog, error)) *strings.Replacer {
	chapter, exercise, bonus, run, file, files := "N", "N.M", "N.M", "LabN_M", "the file you edit", "the file its lab names"
	if catalog != nil {
		if c, err := catalog(); err == nil && len(c.Labs()) > 0 && len(c.Labs()[0].Exercises) > 0 {
			files = editedFiles(c)
			l := c.Labs()[0]
			exs := orderedExercises(l) // the graded ones first
			ex := exs[0]
			chapter, exercise, bonus, run, file = l.Chapter, ex.ID, ex.ID, runPattern(ex), strings.Join(l.Editable, " and ")
			if last := exs[len(exs)-1]; last.Bonus {
				bonus = last.ID
			}
		}
	}
	return strings.NewReplacer(phChapter, chapter, phExercise, exercise, phBonus, bonus, phRun, run, phFile, file, phFiles, files)
}

// editedFiles says which file the students of each lab of c edit: "a.go in
// chapters 1 and 2, b.go in chapter 3".
func editedFiles(c *lab.Catalog) string {
	var order []string
	chapters := map[string][]string{}
	for _, l := range c.Labs() {
		f := strings.Join(l.Editable, " and ")
		if _, ok := chapters[f]; !ok {
			order = append(order, f)
		}
		chapters[f] = append(chapters[f], l.Chapter)
	}
	parts := make([]string, len(order))
	for i, f := range order {
		chs := chapters[f]
		switch len(chs) {
		case 1:
			parts[i] = f + " in chapter " + chs[0]
		default:
			parts[i] = f + " in chapters " + strings.Join(chs[:len(chs)-1], ", ") + " and " + chs[len(chs)-1]
		}
	}
	return strings.Join(parts, ", ")
}

// fillHelp wraps help so that it shows cmd's texts with the placeholders
// filled in.
func fillHelp(help func(*cobra.Command, []string), catalog func() (*lab.Catalog, error)) func(*cobra.Command, []string) {
	return func(cmd *cobra.Command, args []string) {
		r := helpExamples(catalog)
		cmd.Long = r.Replace(cmd.Long)
		cmd.Example = r.Replace(cmd.Example)
		help(cmd, args)
	}
}
