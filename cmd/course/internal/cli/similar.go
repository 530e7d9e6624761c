package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/similarity"
	"github.com/coursekit/course/grader/submission"
	"github.com/coursekit/course/grader/textcol"
)

// SimilarOptions are the inputs of `course similar`.
type SimilarOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)

	Paths   []string // the submissions, as given
	Chapter string   // the lab they are of
	JSON    bool     // --json: the ranked pairs as JSON
	HTML    string   // --html: the pairs side by side, one page
	Force   bool     // overwrite an existing --html file
	Top     int      // show the N best pairs; 0 all
	Min     string   // show pairs scoring at least this ("0.4" or "40%")
	Common  float64  // the share of the class above which code is common
}

// NewCmdSimilar returns the `course similar [flags] <submission>...` command.
func NewCmdSimilar(f *Factory) *cobra.Command {
	opts := &SimilarOptions{IO: f.IO, Catalog: f.Catalog}
	cmd := &cobra.Command{
		Use:   "similar [flags] <submission>...",
		Short: "Rank the pairs of a class's submissions that share code",
		Long: `Find code that submissions of a lab share, as MOSS and JPlag do, and rank the
pairs by how much. Submissions are read as course grade reads them (a
workspace, the lone file, a .zip, .tar.gz or .tgz), and only the lab's
file is compared, never run or built. The file of each
lab: {files}.

The lab is --chapter, or else the one the submissions say, as for course
grade.

Each file is read as Go tokens: comments and layout are dropped, every
identifier counts as the same token and every literal as its kind, so that
renaming, recommenting and reformatting hide nothing. Runs of tokens are
fingerprinted (k-grams, winnowed): any shared run of 19 tokens or more,
a line or three of code, is found. The stub's code is in every
submission and never counts. Nor does common code: what more than a
share of the class has (--common, and at least 3 submissions), a way to
write the exercise that many found.

A pair's score is the share of the two files' tokens that count (neither
the stub's nor common) that the other file has too: 100% for the same
code, near 0 for files written apart. Each side's share is shown as
well: a small file copied into a large one has a high share on its side.
A high score says where to look, not what happened: read both files
(--html puts them side by side with the shared code marked).

A file that is not Go (it does not tokenize) is reported in one line and
the others are compared.

Exit status: 0 the submissions were compared; 2 bad flags, fewer than two
submissions, or some submission could not be read (the others are still
compared and reported).`,
		Example: `  course similar submissions/*
  course similar --chapter {chapter} --top 20 alice.go bob.zip carol/
  course similar --min 50% --html similar.html submissions/*
  course similar --json submissions/* > similar.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return runSimilar(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Chapter, "chapter", "", "the lab's `CHAPTER` (default: the only one, or what the submissions say)")
	fl.BoolVar(&opts.JSON, "json", false, "print the ranked pairs, their scores and shared regions as JSON")
	fl.StringVar(&opts.HTML, "html", "", "also write the pairs side by side, the shared code marked, to `FILE`: one self-contained page")
	fl.BoolVar(&opts.Force, "force", false, "overwrite an existing --html file")
	fl.IntVar(&opts.Top, "top", 50, "show the `N` best pairs (0: every pair that shares code)")
	fl.StringVar(&opts.Min, "min", "0", "show only pairs scoring at least `SCORE`: 0.4 or 40%")
	fl.Float64Var(&opts.Common, "common", similarity.DefaultCommon, "ignore code that more than this `SHARE` of the submissions have (0 to 1)")
	return cmd
}

// notCompared is a submission left out: unreadable, or not Go.
type notCompared struct {
	Name   string `json:"submission"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func runSimilar(opts *SimilarOptions) error {
	minScore, err := parseScore(opts.Min)
	if err != nil {
		return usageError(fmt.Errorf("--min %q: %w", opts.Min, err))
	}
	switch {
	case opts.Top < 0:
		return usageError(fmt.Errorf("--top %d: must be 0 (all) or more", opts.Top))
	case !(opts.Common > 0 && opts.Common <= 1):
		return usageError(fmt.Errorf("--common %g: a share of the class, more than 0 and at most 1", opts.Common))
	}
	paths := uniquePaths(opts.Paths)
	if len(paths) < 2 {
		return usageError(fmt.Errorf("give two submissions or more to compare (got %d)", len(paths)))
	}
	if err := checkSimilarHTML(opts, paths); err != nil {
		return inputError(err)
	}
	catalog, err := opts.Catalog()
	if err != nil {
		return cannotGrade(err)
	}
	l, err := pickLab(catalog, opts.Chapter, paths)
	if errors.Is(err, submission.ErrBad) {
		return cannotGrade(err)
	}
	if err != nil {
		return usageError(err)
	}
	stub, err := l.Stub()
	if err != nil {
		return cannotGrade(err)
	}
	x, err := similarity.NewIndex(similarity.Options{Stub: stub, Common: opts.Common})
	if err != nil {
		return cannotGrade(err)
	}
	skipped := indexSubmissions(x, l, paths)
	for _, s := range skipped {
		fmt.Fprintf(opts.IO.ErrOut, "%s: not compared: %s\n", safetext.Line(s.Name), safetext.Line(s.Reason))
	}
	if x.Len() < 2 {
		return cannotGrade(fmt.Errorf("%d of %d submissions could be read: nothing to compare", x.Len(), len(paths)))
	}
	r := x.Compare()
	shown := pickPairs(r.Pairs, minScore, opts.Top)
	if err := writeSimilar(opts, l, r, shown, skipped); err != nil {
		return cannotGrade(err)
	}
	if len(skipped) > 0 {
		return cannotGrade(fmt.Errorf("%d of %d submissions could not be compared", len(skipped), len(paths)))
	}
	return nil
}

// indexSubmissions reads each submission's file of lab l, as grading does,
// and adds it to x; it returns those it could not read or tokenize.
func indexSubmissions(x *similarity.Index, l *lab.Lab, paths []string) []notCompared {
	var subs []*submission.Submission
	var skipped []notCompared
	for _, p := range paths {
		sub, err := submission.Read(p, l.Editable)
		if err != nil {
			skipped = append(skipped, notCompared{Name: submission.Name(p), Path: p, Reason: reason(err)})
			continue
		}
		subs = append(subs, sub)
	}
	nameSubmissions(subs, nil)
	for _, sub := range subs {
		file := l.Editable[0] // the stub's file
		if err := x.Add(sub.Name, sub.Files[file]); err != nil {
			skipped = append(skipped, notCompared{Name: sub.Name, Path: sub.Path, Reason: fmt.Sprintf("%s: %v", sub.Found[file], err)})
		}
	}
	return skipped
}

// reason is why a submission could not be read, without its path, which
// the report names anyway.
func reason(err error) string {
	var se *submission.Error
	if errors.As(err, &se) {
		return se.Reason
	}
	return err.Error()
}

// parseScore reads a score: a share such as 0.4, or a percentage such as 40%.
func parseScore(s string) (float64, error) {
	scale := 1.0
	if t, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		s, scale = t, 100
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f/scale > 1 {
		return 0, errors.New("want a score from 0 to 1, such as 0.4, or a percentage such as 40%")
	}
	return f / scale, nil
}

// pickPairs keeps the ranked pairs scoring at least minScore, at most top of
// them (0: all).
func pickPairs(pairs []similarity.Pair, minScore float64, top int) []similarity.Pair {
	var out []similarity.Pair
	for _, p := range pairs {
		if p.Score < minScore || (top > 0 && len(out) == top) {
			break
		}
		out = append(out, p)
	}
	return out
}

// checkSimilarHTML refuses an --html file that cannot be written, or that
// would overwrite a submission or an existing file without --force: the
// rules course grade keeps for every file it writes.
func checkSimilarHTML(opts *SimilarOptions, paths []string) error {
	if opts.HTML == "" {
		return nil
	}
	if fi, err := os.Stat(opts.HTML); err == nil && fi.IsDir() {
		return fmt.Errorf("--html %s: is a directory", opts.HTML)
	}
	parent := filepath.Dir(filepath.Clean(opts.HTML))
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return fmt.Errorf("--html %s: directory %s does not exist", opts.HTML, parent)
	}
	out, err := filepath.Abs(opts.HTML)
	if err != nil {
		return fmt.Errorf("--html %s: %w", opts.HTML, err)
	}
	for _, p := range paths {
		sub, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if out == sub || strings.HasPrefix(out, sub+string(filepath.Separator)) {
			return fmt.Errorf("--html %s: is inside submission %s, and course similar never writes a submission", opts.HTML, p)
		}
	}
	if _, err := os.Lstat(opts.HTML); err == nil && !opts.Force {
		return fmt.Errorf("--html %s: the file exists; use --force to overwrite it", opts.HTML)
	}
	return nil
}

// writeSimilar writes the report: the table or --json on standard output,
// and the --html page.
func writeSimilar(opts *SimilarOptions, l *lab.Lab, r *similarity.Result, shown []similarity.Pair, skipped []notCompared) error {
	regions := make([][]similarity.Region, len(shown))
	for i, p := range shown {
		regions[i] = r.Regions(p)
	}
	var err error
	if opts.JSON {
		err = writeSimilarJSON(opts.IO.Out, l, r, shown, regions, skipped)
	} else {
		err = writeSimilarText(opts.IO.Out, opts.Min, l, r, shown, regions)
	}
	if err != nil || opts.HTML == "" {
		return err
	}
	notes := make([]string, len(skipped))
	for i, s := range skipped {
		notes[i] = fmt.Sprintf("Not compared: %s: %s", s.Name, s.Reason)
	}
	return atomicfile.WriteFunc(opts.HTML, 0o644, func(w io.Writer, _ string) error {
		title := fmt.Sprintf("Lab %s: similar code", l.Chapter)
		if err := similarity.WriteHTML(w, r, shown, similarity.HTMLOptions{Title: title, Notes: notes}); err != nil {
			return fmt.Errorf("--html %s: %w", opts.HTML, err)
		}
		return nil
	})
}

// writeSimilarText writes the ranked pairs as an aligned table, then how
// to read it.
func writeSimilarText(w io.Writer, minFlag string, l *lab.Lab, r *similarity.Result, shown []similarity.Pair, regions [][]similarity.Region) error {
	fmt.Fprintf(w, "lab %s: %d submissions compared, %d pairs share code", l.Chapter, r.Len(), len(r.Pairs))
	switch {
	case len(r.Pairs) == 0:
		_, err := fmt.Fprintln(w, " beyond the stub's and the common code")
		return err
	case len(shown) == 0:
		_, err := fmt.Fprintf(w, "; none scores --min %s\n", minFlag)
		return err
	case len(shown) < len(r.Pairs):
		fmt.Fprintf(w, "; the %d best:\n\n", len(shown))
	default:
		fmt.Fprintf(w, ":\n\n")
	}
	rows := [][]textcol.Cell{{
		textcol.Plain("#"), textcol.Plain("SCORE"), textcol.Plain("A"), textcol.Plain("B"),
		textcol.Plain("OF A"), textcol.Plain("OF B"), textcol.Plain("LONGEST SHARED RUN"),
	}}
	for i, p := range shown {
		rows = append(rows, []textcol.Cell{
			textcol.Plain(strconv.Itoa(i + 1)), textcol.Plain(similarity.Percent(p.Score)),
			textcol.Plain(safetext.Line(r.Name(p.A))), textcol.Plain(safetext.Line(r.Name(p.B))),
			textcol.Plain(similarity.Percent(p.CoverA)), textcol.Plain(similarity.Percent(p.CoverB)),
			textcol.Plain(longest(regions[i])),
		})
	}
	if err := textcol.Write(w, rows); err != nil {
		return err
	}
	o := r.Options()
	_, err := fmt.Fprintf(w, "\nSCORE: the share of both files' code that the other has; OF A, OF B: of each alone. Shared runs of\n"+
		"%d tokens or more are always found. The stub's code does not count, nor code in more than %d submissions (common).\n",
		o.W+o.K-1, r.CommonLimit)
	return err
}

// longest describes the longest region: its lines in both files.
func longest(regions []similarity.Region) string {
	if len(regions) == 0 {
		return "-"
	}
	best := regions[0]
	for _, g := range regions[1:] {
		if g.Tokens > best.Tokens {
			best = g
		}
	}
	return fmt.Sprintf("lines %d-%d ~ %d-%d (%d tokens)", best.A.StartLine, best.A.EndLine, best.B.StartLine, best.B.EndLine, best.Tokens)
}

// similarJSON is what --json prints; its field names are stable.
type similarJSON struct {
	Lab         string        `json:"lab"`
	Submissions int           `json:"submissions"`   // compared
	Sharing     int           `json:"pairs_sharing"` // pairs that share code, before --min and --top
	K           int           `json:"k"`
	W           int           `json:"w"`
	CommonLimit int           `json:"common_limit"`
	Pairs       []pairJSON    `json:"pairs"`
	NotCompared []notCompared `json:"not_compared"`
}

type pairJSON struct {
	A        string              `json:"a"`
	B        string              `json:"b"`
	Score    float64             `json:"score"`
	ShareA   float64             `json:"share_a"`
	ShareB   float64             `json:"share_b"`
	TokensA  int                 `json:"tokens_a"`
	TokensB  int                 `json:"tokens_b"`
	MatchedA int                 `json:"matched_a"`
	MatchedB int                 `json:"matched_b"`
	Regions  []similarity.Region `json:"regions"`
}

func writeSimilarJSON(w io.Writer, l *lab.Lab, r *similarity.Result, shown []similarity.Pair, regions [][]similarity.Region, skipped []notCompared) error {
	o := r.Options()
	out := similarJSON{
		Lab: l.Chapter, Submissions: r.Len(), Sharing: len(r.Pairs),
		K: o.K, W: o.W, CommonLimit: r.CommonLimit,
		Pairs: []pairJSON{}, NotCompared: skipped,
	}
	if out.NotCompared == nil {
		out.NotCompared = []notCompared{}
	}
	for i, p := range shown {
		out.Pairs = append(out.Pairs, pairJSON{
			A: r.Name(p.A), B: r.Name(p.B), Score: p.Score, ShareA: p.CoverA, ShareB: p.CoverB,
			TokensA: r.Tokens(p.A), TokensB: r.Tokens(p.B), MatchedA: p.MatchedA, MatchedB: p.MatchedB,
			Regions: append([]similarity.Region{}, regions[i]...),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
