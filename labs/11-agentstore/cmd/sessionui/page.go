package main

import (
	"fmt"
	"strings"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// row is one entry of the drawn tree.
type row struct {
	ID, Parent, Type, Badge, Text, Graph string
	Kind                                 string // for the style: the role of a message, else the type
	Line                                 int
	OnPath, IsLeaf, Summarized, Missing  bool
	KeepsFrom                            string // a compaction's firstKeptEntryId
	TokensBefore                         int
	Branch                               int    // the branch it is on, 0 above every fork
	Fork                                 string // on a branch's first entry: which of its fork's branches ("2/4")
}

// hues is how many colours tell the branches apart; a branch's is
// Branch modulo hues.
const hues = 6

// Hue is the colour of the row's branch, 1 to hues; 0 above every fork.
func (r row) Hue() int {
	if r.Branch == 0 {
		return 0
	}
	return (r.Branch-1)%hues + 1
}

// cell is one column of the row's graph: "pipe" (│), "tee" (├─), "elbow"
// (└─) or "blank"; the tee or elbow that starts a branch has its colour.
type cell struct {
	Kind string
	Hue  int
}

// item is one message of the context.
type item struct {
	Role, Kind, Text string
	IsError          bool
	Tokens           int
}

// event is one line of the timeline: every line of the file is an append.
type event struct {
	Time, ID, What, Text string
	Line                 int
	Compaction           bool
}

// notice says which part of the store is not written yet, as far as the
// page can tell, and how to test it.
type notice struct {
	Exercise, Text string
}

// Cells are the row's graph as the page draws it, one cell a column: the
// graph's ├─ and └─ become a tee and an elbow in the colour of the branch
// they start, │ a pipe, spaces a blank.
func (r row) Cells() []cell {
	var out []cell
	g := []rune(r.Graph)
	for i := 0; i+3 <= len(g); i += 3 {
		switch g[i] {
		case '│':
			out = append(out, cell{"pipe", 0})
		case '├':
			out = append(out, cell{"tee", r.Hue()})
		case '└':
			out = append(out, cell{"elbow", r.Hue()})
		default:
			out = append(out, cell{"blank", 0})
		}
	}
	return out
}

// Run is the go test command of the notice's exercise.
func (n notice) Run() string {
	return "go test -run Lab" + strings.ReplaceAll(n.Exercise, ".", "_")
}

// view is everything the page shows.
type view struct {
	Path      string
	Header    agentstore.Header
	Leaf      string
	Rows      []row
	Context   []item
	Tokens    int
	Timeline  []event
	Notices   []notice
	Settings  string // the model and thinking level of SessionContext (11.7), or why there are none
	Flash     string
	Version   string
	NoSession string // why there is nothing to show yet
}

// build asks the store everything the page shows; lines are the file's
// entry lines, read in the same snapshot the store was opened on.
func build(st *agentstore.Store, lines []line) view {
	v := view{Header: st.Header(), Leaf: st.Leaf()}
	path := st.PathToLeaf()
	ctx := st.BuildContext()
	onPath := make(map[string]bool, len(path))
	for _, e := range path {
		onPath[e.ID] = true
	}
	summarized := summarizedOf(path)
	ids := make([]string, len(lines))
	parentOf := make(map[string]string, len(lines))
	byID := make(map[string]int, len(lines))
	rows := make([]row, len(lines))
	missing := 0
	for i, l := range lines {
		e, ok := st.Entry(l.id)
		if !ok {
			missing++
			e = agentstore.Entry{ID: l.id, ParentID: l.parent, Type: "?"}
		}
		r := row{ID: e.ID, Parent: e.ParentID, Type: e.Type, Line: l.n, Missing: !ok,
			OnPath: onPath[e.ID], IsLeaf: e.ID == v.Leaf, Summarized: summarized[e.ID]}
		r.Badge, r.Text = describe(e, l.raw)
		r.Kind = cssName(e.Type)
		if e.Type == agentstore.TypeMessage {
			r.Kind = cssName(r.Badge)
		}
		r.Text = clip(r.Text, 90)
		if e.Type == agentstore.TypeCompaction {
			r.KeepsFrom, r.TokensBefore = e.FirstKeptEntryID, e.TokensBefore
		}
		rows[i] = r
		ids[i], parentOf[e.ID], byID[e.ID] = e.ID, e.ParentID, i
		v.Timeline = append(v.Timeline, timelineEvent(e, r, l.n))
	}
	for _, p := range layout(ids, parentOf) {
		r := rows[byID[p.id]]
		r.Graph, r.Branch, r.Fork = p.graph, p.branch, p.fork
		v.Rows = append(v.Rows, r)
	}
	for _, m := range ctx {
		rm := readMessage(m)
		v.Context = append(v.Context, item{Role: rm.Role, Kind: cssName(rm.Role), Text: clip(rm.Text, 400), IsError: rm.IsError, Tokens: (len(m) + 3) / 4})
	}
	v.Tokens = agentstore.EstimateTokens(ctx)
	v.Notices = checks(v, len(lines), missing, path, ctx)
	v.Settings = settings(st.SessionContext())
	return v
}

// settings shows the model and the thinking level of the leaf, as pi keeps
// them beside the messages; the stub's SessionContext (the optional 11.7)
// has no thinking level at all.
func settings(sc agentstore.SessionContext) string {
	if sc.ThinkingLevel == "" {
		return "model and thinking level: SessionContext, the optional exercise 11.7"
	}
	model := "none"
	switch m := sc.Model; {
	case m != nil && m.Provider+m.ModelID == "":
		model = "(an assistant message that names none)"
	case m != nil:
		model = m.Provider + "/" + m.ModelID
	}
	return fmt.Sprintf("model %s, thinking %s", model, sc.ThinkingLevel)
}

// summarizedOf returns the entries of path that the latest compaction on it
// stands for: those before its first kept entry.
func summarizedOf(path []agentstore.Entry) map[string]bool {
	out := map[string]bool{}
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type != agentstore.TypeCompaction {
			continue
		}
		for _, e := range path[:i] {
			if e.ID == path[i].FirstKeptEntryID {
				break
			}
			out[e.ID] = true
		}
		break
	}
	return out
}

func timelineEvent(e agentstore.Entry, r row, n int) event {
	ev := event{Time: clock(e.Timestamp), ID: e.ID, What: r.Badge, Text: r.Text, Line: n}
	switch e.Type {
	case agentstore.TypeMessage:
		ev.What = "message · " + r.Badge
	case agentstore.TypeCompaction:
		ev.Compaction = true
		ev.Text = fmt.Sprintf("~%d tokens before; keeps from %s", e.TokensBefore, e.FirstKeptEntryID)
	}
	return ev
}

// checks says which exercises the store shows unfinished: the stub's
// answers (an empty leaf, an empty path, an empty context) where the file
// says there must be more.
func checks(v view, entries, missing int, path []agentstore.Entry, ctx []agentstore.Message) []notice {
	var out []notice
	add := func(ex, format string, args ...any) {
		out = append(out, notice{ex, fmt.Sprintf(format, args...)})
	}
	if v.Header.ID == "" {
		add("11.1", "Header() gives a header without an id: the page cannot say which session this is.")
	}
	if missing > 0 {
		add("11.1", "Entry(id) finds %d of the file's %d entries: the others are drawn from the file, marked “not in your store”.", entries-missing, entries)
	}
	if v.Leaf == "" && entries > 0 {
		add("11.1", "Leaf() is empty, but the file has %d entries: after Open the leaf is the last one.", entries)
	}
	if v.Leaf != "" && len(path) == 0 {
		add("11.3", "PathToLeaf() is empty, but the leaf is %s: the current branch cannot be shown.", v.Leaf)
	}
	messages, compacted := 0, false
	for _, e := range path {
		messages += btoi(e.Type == agentstore.TypeMessage)
		compacted = compacted || e.Type == agentstore.TypeCompaction
	}
	if messages > 0 && len(ctx) == 0 {
		add("11.3", "BuildContext() is empty, but the branch has %d messages.", messages)
	}
	if compacted && len(ctx) > 0 && ctx[0].Role() != agentstore.RoleCompactionSummary {
		add("11.5", "A compaction is on the branch, but the context does not begin with its summary.")
	}
	if v.Tokens < 0 {
		add("11.5", "EstimateTokens gives %d.", v.Tokens)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cssName keeps of s what a class name may hold.
func cssName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}
