package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/atomicfile"
	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
)

// HintStatePath is where a workspace remembers which hints its student has
// seen (slash-separated, relative to the workspace's root).
const HintStatePath = ".course/hints.json"

// Languages of the hints.
const (
	langEN = "en"
	langZH = "zh"
)

// HintOptions are the inputs of `course hint`.
type HintOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getenv reads the environment (NO_COLOR, LC_ALL, LC_MESSAGES, LANG).
	Getenv func(string) string

	Dir      string // where to look for the workspace
	Exercise string // the exercise id, as given
	All      bool   // show every hint
	Lang     string // en or zh; "" picks by the locale
}

// hintState is the content of HintStatePath.
type hintState struct {
	// Seen maps an exercise id to how many of its hints (rungs) were shown.
	Seen map[string]int `json:"seen"`
}

// NewCmdHint returns the `course hint <exercise>` command.
func NewCmdHint(f *Factory) *cobra.Command {
	return newCmdHint(&HintOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv})
}

func newCmdHint(opts *HintOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hint <exercise>",
		Short: "Climb the tutor's ladder for an exercise, one rung at a time",
		Long: `Show the next rung of the tutor's ladder for an exercise of your practice
workspace. A stuck student climbs four rungs, in this order: locate (定位),
where the problem is; signature (签名), the function and the types that
answer it; pseudocode (伪代码), the steps; local code (局部), the code of one
step, never the whole function. Each run shows one more rung, naming it, and
the workspace remembers (in .course/hints.json) how far you climbed; course
status shows it. --all shows the whole ladder at once.

Hints are in English, or in Chinese with --lang zh (the default when LC_ALL,
LC_MESSAGES or LANG starts with zh).`,
		Example: "  course hint {exercise}\n  course hint {exercise} --all\n  course hint {exercise} --lang zh",
		Args:    positional("<exercise>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Exercise = args[0]
			return runHint(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "the practice workspace, or a directory inside it")
	cmd.Flags().BoolVar(&opts.All, "all", false, "show every rung of the exercise's ladder")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "the hints' `language`: en or zh (default: en, or zh when the locale is Chinese)")
	return cmd
}

func runHint(opts *HintOptions) error {
	lang, err := hintLang(opts.Lang, opts.Getenv)
	if err != nil {
		return usageError(err)
	}
	ws, err := openWorkspace(opts.Dir, opts.Catalog)
	if err != nil {
		return err
	}
	ex, err := lookupExercise(ws.Lab, opts.Exercise)
	if err != nil {
		return usageError(err)
	}
	hints, err := ws.Lab.Hints(ex.ID)
	if err != nil {
		return failure(err)
	}
	w := opts.IO.Out
	st := styleFor(w, opts.Getenv)
	m := hintMessages(lang)
	if len(hints) == 0 {
		fmt.Fprintf(w, m.none+"\n", ex.ID, ex.Name, ex.ID)
		return nil
	}

	statePath := filepath.Join(ws.Dir, filepath.FromSlash(HintStatePath))
	state, err := readHintState(statePath)
	if err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "course hint: starting over with the hints seen: %v\n", err)
	}
	seen := min(max(state.Seen[ex.ID], 0), len(hints))
	n := len(hints)
	header := func(i int) string { return hintHeader(m, lang, hints[i], i, n, ex) }
	switch {
	case opts.All:
		for i := range hints {
			if i > 0 {
				fmt.Fprintln(w)
			}
			writeHint(w, st, header(i), hints[i], lang)
		}
		seen = n
	case seen < n:
		writeHint(w, st, header(seen), hints[seen], lang)
		seen++
		switch {
		case seen == n:
			fmt.Fprintf(w, "\n%s\n", st.Dim(fmt.Sprintf(m.wasLast, ex.ID)))
		case hints[seen].Rung.Key != "":
			fmt.Fprintf(w, "\n%s\n", st.Dim(fmt.Sprintf(m.nextRung, rungName(hints[seen].Rung, lang), ex.ID)))
		default:
			fmt.Fprintf(w, "\n%s\n", st.Dim(fmt.Sprintf(m.more, n-seen, ex.ID)))
		}
	default:
		fmt.Fprintf(w, m.allSeen+"\n\n", n, ex.ID)
		writeHint(w, st, header(n-1), hints[n-1], lang)
		fmt.Fprintf(w, "\n%s\n", st.Dim(fmt.Sprintf(m.showAll, ex.ID)))
	}
	if state.Seen[ex.ID] != seen {
		state.Seen[ex.ID] = seen
		if err := writeHintState(statePath, state); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "course hint: could not remember which hints you saw: %v\n", err)
		}
	}
	return nil
}

// hintWords are the few sentences around the hints.
type hintWords struct{ header, rungHeader, nextRung, more, wasLast, allSeen, showAll, none string }

// hintMessages returns the sentences around the hints in lang.
func hintMessages(lang string) hintWords {
	if lang == langZH {
		return hintWords{
			header:     "提示 %d/%d（%s %s）：",
			rungHeader: "第 %d/%d 级（%s %s）：%s",
			nextRung:   "下一级是%s：course hint %s",
			more:       "还有 %d 条：course hint %s",
			wasLast:    "这是最后一级：剩下的代码由你来写。course hint %s --all 可查看整个阶梯。",
			allSeen:    "%d 级提示（%s）你都看过了。最后一级：",
			showAll:    "course hint %s --all 可查看整个阶梯。",
			none:       "%s %s 还没有提示。请阅读讲义（README.zh.md），并运行 course test %s。",
		}
	}
	return hintWords{
		header:     "Hint %d of %d for %s %s:",
		rungHeader: "Rung %d of %d for %s %s: %s",
		nextRung:   "Next rung, %s: course hint %s",
		more:       "%d more: course hint %s",
		wasLast:    "That was the last rung: the rest of the code is yours. course hint %s --all shows the whole ladder.",
		allSeen:    "You have climbed all %d rungs for %s. The last one again:",
		showAll:    "course hint %s --all shows the whole ladder.",
		none:       "There are no hints for %s %s yet. Read the handout (README.md), and run course test %s.",
	}
}

// rungName is a rung's name in lang, with its name in the other language
// beside it: "locate (定位)", "定位（locate）".
func rungName(r lab.Rung, lang string) string {
	if lang == langZH {
		return r.ZH + "（" + r.EN + "）"
	}
	return r.EN + " (" + r.ZH + ")"
}

// hintHeader is the line above hint i of n: its rung, named, or for a hint
// of the older unnamed list, its number.
func hintHeader(m hintWords, lang string, h lab.Hint, i, n int, ex lab.Exercise) string {
	if h.Rung.Key == "" {
		return fmt.Sprintf(m.header, i+1, n, ex.ID, ex.Name)
	}
	return fmt.Sprintf(m.rungHeader, i+1, n, ex.ID, ex.Name, rungName(h.Rung, lang))
}

// writeHint writes a hint under its header, indented, in lang (English
// when it has no text in lang).
func writeHint(w io.Writer, st format.Style, header string, h lab.Hint, lang string) {
	text := h.EN
	if lang == langZH && strings.TrimSpace(h.ZH) != "" {
		text = h.ZH
	}
	fmt.Fprintf(w, "%s\n\n%s", st.Pass(header), indentLines(strings.TrimSpace(text), "  "))
}

// hintLang is the --lang value, checked, or when it is empty the locale's:
// zh when the first of LC_ALL, LC_MESSAGES and LANG that is set starts
// with zh, en otherwise.
func hintLang(flag string, getenv func(string) string) (string, error) {
	switch flag {
	case langEN, langZH:
		return flag, nil
	case "":
	default:
		return "", fmt.Errorf("--lang %q: must be en or zh", flag)
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := getenv(v); loc != "" {
			if strings.HasPrefix(strings.ToLower(loc), "zh") {
				return langZH, nil
			}
			return langEN, nil
		}
	}
	return langEN, nil
}

// readHintState reads the hints seen; a missing file is none seen. An
// unreadable file is none seen too, with the error to report.
func readHintState(p string) (hintState, error) {
	state := hintState{Seen: map[string]int{}}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return state, nil
	}
	if err != nil {
		return state, err
	}
	if err := json.Unmarshal(data, &state); err != nil {
		return hintState{Seen: map[string]int{}}, fmt.Errorf("%s: %w", p, err)
	}
	if state.Seen == nil {
		state.Seen = map[string]int{}
	}
	return state, nil
}

// writeHintState writes the state atomically: to a file beside p, renamed
// over p, so that an interrupted write leaves the old state whole.
func writeHintState(p string, state hintState) error {
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFunc(p, 0o644, func(w io.Writer, _ string) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}
