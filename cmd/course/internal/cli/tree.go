package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/sessionview"
)

// TreeOptions are the inputs of `course tree`.
type TreeOptions struct {
	IO IOStreams
	// Getenv reads the environment (NO_COLOR).
	Getenv func(string) string

	Path string // the history file
	Leaf string // --leaf: the entry to highlight with its branch
}

// NewCmdTree returns the `course tree <file.jsonl> [--leaf ID]` command.
func NewCmdTree(f *Factory) *cobra.Command {
	opts := &TreeOptions{IO: f.IO, Getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:   "tree [--leaf ID] <file.jsonl>",
		Short: "Draw a JSONL history file (a session, a fact log) as a tree of entries",
		Long: fmt.Sprintf(`Draw a history file that a lab writes, one JSON object per line, as the tree
that its ids and parentIds make: roots and children in file order. Every
line with an "id" and a "parentId" (null for a root) is an entry; a line
without a parentId, such as a file's header, is shown above the tree.

A line below another at the same indent is its child, so a chain of replies
stays in one column. An entry with several children is a branch point,
marked "◆ n branches"; each branch starts with ├─ or └─, one indent in.
Each entry shows its type (a message: its role), the start of its text,
and a message's tool calls (→ ls). With --leaf ID the entry ID is marked
with * and every entry on its branch with ·, in colour on a terminal
(unless NO_COLOR is set).

No line is more than %[1]d indents in. A branch point that deep is marked
"⋮ drawn below": its branches come after the tree it is in, from the left
margin again, under a line "⋮ the branches of ID (line L, %[1]d levels in)".

The file is read by the labs' commit rule: a line counts once it ends in a
newline, and a last line without one is an unterminated tail, reported at
the end and not drawn. Entries whose parent is not in the file are listed
after the roots.

The file must be a regular file of at most %[2]d MiB and %[3]d lines: a
symbolic link, a named pipe or a device is not opened.

Exit status: 0 the file was drawn; 1 a committed line is bad (what came
before it is drawn, then the error); 2 the file cannot be read, or no entry
has the --leaf id.`, sessionview.MaxDepth, maxHistory>>20, maxHistoryLines),
		Example: `  course tree session.jsonl
  course tree --leaf r session.jsonl`,
		Args: positional("<file.jsonl>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			return runTree(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Leaf, "leaf", "", "highlight the entry `ID` and its branch")
	return cmd
}

func runTree(opts *TreeOptions) error {
	data, err := readHistory(opts.Path)
	if err != nil {
		return inputError(err)
	}
	s := sessionview.Read(data)
	if opts.Leaf != "" {
		if _, ok := s.Branch(opts.Leaf); !ok {
			msg := fmt.Sprintf("--leaf %s: no committed entry of %s has this id", opts.Leaf, opts.Path)
			if s.Bad != nil {
				msg += fmt.Sprintf(" before its bad line %d", s.Bad.Line)
			}
			return usageError(errors.New(msg))
		}
	}

	out := opts.IO.Out
	fmt.Fprintln(out, treeSummary(opts.Path, s))
	if len(s.Entries) > 0 || len(s.Headers) > 0 {
		fmt.Fprintln(out)
	}
	color := isTerminal(out) && opts.Getenv("NO_COLOR") == ""
	if err := sessionview.Draw(out, s, sessionview.DrawOptions{Leaf: opts.Leaf, Color: color}); err != nil {
		return failure(err)
	}
	if s.Bad != nil {
		return failure(fmt.Errorf("%s: %w (not an entry; reading stops at the first bad committed line, so nothing after it is shown)",
			opts.Path, s.Bad))
	}
	if s.Tail != nil {
		fmt.Fprintf(out, "\nline %d: an unterminated tail of %d bytes: a write that never finished, so never committed,\n"+
			"and not drawn. A writer must not append after it until it is cut off.\n", s.Tail.Line, s.Tail.Bytes)
	}
	return nil
}

// maxHistory and maxHistoryLines bound the file course tree reads, and so
// its memory: within both it stays under about 200 MiB (the most is taken
// by 250,000 of the shortest entries), and a lab's history is far smaller.
const (
	maxHistory      = 16 << 20
	maxHistoryLines = 250_000
)

// readHistory reads the history file p, which may be a student's: a link,
// a FIFO, a device or a file over maxHistory or maxHistoryLines is refused,
// never followed, waited on or read whole.
func readHistory(p string) ([]byte, error) {
	data, err := lab.ReadRegular(p, maxHistory)
	var tl *lab.TooLargeError
	var ft *lab.FileTypeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file", p)
	case errors.As(err, &ft):
		return nil, fmt.Errorf("%w: course tree follows no link and opens nothing else", err)
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%s is larger than %d MiB, the most course tree reads: draw a part of it "+
			"(head -c %d FILE > part.jsonl; a line cut in two shows as a tail)", p, maxHistory>>20, (maxHistory>>20)*1000000)
	case err != nil:
		return nil, err // *fs.PathError names the path
	}
	if n := bytes.Count(data, []byte("\n")); n > maxHistoryLines {
		return nil, fmt.Errorf("%s has %d lines, more than the %d course tree reads: draw a part of it "+
			"(head -n %d FILE > part.jsonl)", p, n, maxHistoryLines, maxHistoryLines)
	}
	return data, nil
}

// treeSummary is the first line: how many entries, roots and branch points.
func treeSummary(path string, s *sessionview.Session) string {
	if len(s.Entries) == 0 && len(s.Headers) == 0 {
		return safetext.Line(path) + ": no committed entries"
	}
	t := s.Tree()
	branches := 0
	for _, kids := range t.Children {
		if len(kids) > 1 {
			branches++
		}
	}
	parts := []string{treePlural(len(s.Entries), "entry", "entries")}
	if n := len(s.Headers); n > 0 {
		parts = append(parts, treePlural(n, "header line", "header lines"))
	}
	parts = append(parts,
		treePlural(len(t.Roots), "root", "roots"),
		treePlural(branches, "branch point", "branch points"))
	if n := len(t.Orphans); n > 0 {
		parts = append(parts, treePlural(n, "orphan", "orphans"))
	}
	if n := len(t.Cycles); n > 0 {
		parts = append(parts, treePlural(n, "entry on a cycle", "entries on a cycle"))
	}
	// The file's name is the student's to choose: shown escaped.
	return fmt.Sprintf("%s: %s", safetext.Line(path), strings.Join(parts, ", "))
}

func treePlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
