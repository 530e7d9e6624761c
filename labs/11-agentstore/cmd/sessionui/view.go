package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// line is one committed entry line of the session file, as the file has
// it: the ids to draw come from here, since the store has no method that
// lists them; everything else is asked of the store.
type line struct {
	n      int // 1-based line number
	id     string
	parent string
	raw    []byte
}

// entryLines returns the committed entry lines of a session file's text,
// in file order: a last line without "\n" is not committed, blank lines
// and the header are not entries, and a line that does not decode as an
// entry is left out (the store says what is wrong with it).
func entryLines(data []byte) []line {
	var out []line
	header := true
	for n := 1; len(data) > 0; n++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			break
		}
		raw := data[:end]
		data = data[end+1:]
		if len(bytes.Trim(raw, " \t\r")) == 0 {
			continue
		}
		if header {
			header = false
			continue
		}
		if e, err := agentstore.DecodeEntry(raw); err == nil {
			out = append(out, line{n: n, id: e.ID, parent: e.ParentID, raw: raw})
		}
	}
	return out
}

// placed is an entry in the order the tree is drawn, with the graph that
// joins it to its parent, the branch it is on (0: no fork above it; else
// 1, 2, …, numbered fork by fork as the forks are drawn), and, on the
// first entry of a branch, which of its fork's branches it is ("2/4").
type placed struct {
	id     string
	graph  string
	branch int
	fork   string
}

// layout orders ids for drawing: depth first from each root, children in
// file order. A chain stays in its column; where an entry has several
// children, each starts a branch of its own, with ├─ (└─ for the last) and
// its own line of descent, and a number. An entry whose parent is not
// among ids is drawn as a root; several roots are branches too.
func layout(ids []string, parentOf map[string]string) []placed {
	known := make(map[string]bool, len(ids))
	for _, id := range ids {
		known[id] = true
	}
	children := map[string][]string{}
	var roots []string
	for _, id := range ids {
		if p := parentOf[id]; p != "" && known[p] && p != id {
			children[p] = append(children[p], id)
		} else {
			roots = append(roots, id)
		}
	}
	type item struct {
		id, lead, next string
		branch         int
		fork           string
	}
	branches := 0
	branch := func(kids []string, next string, on int) []item {
		if len(kids) == 1 {
			return []item{{kids[0], next, next, on, ""}}
		}
		out := make([]item, len(kids))
		for i, k := range kids {
			branches++
			out[i] = item{k, next + "├─ ", next + "│  ", branches, fmt.Sprintf("%d/%d", i+1, len(kids))}
			if i == len(kids)-1 {
				out[i].lead, out[i].next = next+"└─ ", next+"   "
			}
		}
		return out
	}
	stack := branch(roots, "", 0)
	for i, j := 0, len(stack)-1; i < j; i, j = i+1, j-1 {
		stack[i], stack[j] = stack[j], stack[i]
	}
	out := make([]placed, 0, len(ids))
	seen := map[string]bool{}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		out = append(out, placed{it.id, it.lead, it.branch, it.fork})
		kids := branch(children[it.id], it.next, it.branch)
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, kids[k])
		}
	}
	return out
}

// fields is what a line says beyond an entry's base fields, for display.
type fields struct {
	Provider      string          `json:"provider"`
	ModelID       string          `json:"modelId"`
	ThinkingLevel string          `json:"thinkingLevel"`
	TargetID      string          `json:"targetId"`
	Label         *string         `json:"label"`
	Name          string          `json:"name"`
	Summary       string          `json:"summary"`
	FromID        string          `json:"fromId"`
	CustomType    string          `json:"customType"`
	Content       json.RawMessage `json:"content"`
}

// describe says in a few words what an entry is.
func describe(e agentstore.Entry, raw []byte) (badge, text string) {
	var f fields
	_ = json.Unmarshal(raw, &f) // the store accepted the line; a field of another shape only shows less
	switch e.Type {
	case agentstore.TypeMessage:
		m := readMessage(e.Message)
		return m.Role, m.Text
	case agentstore.TypeCompaction:
		return "compaction", e.Summary
	case "model_change":
		return "model", f.Provider + "/" + f.ModelID
	case "thinking_level_change":
		return "thinking", f.ThinkingLevel
	case "label":
		if f.Label == nil || *f.Label == "" {
			return "label", "cleared on " + f.TargetID
		}
		return "label", fmt.Sprintf("%q on %s", *f.Label, f.TargetID)
	case "session_info":
		return "name", f.Name
	case "branch_summary":
		if f.Summary == "" {
			return "branch summary", "(empty)"
		}
		return "branch summary", f.Summary
	case "custom", "custom_message":
		return strings.ReplaceAll(e.Type, "_", " "), strings.TrimSpace(f.CustomType + " " + contentText(f.Content))
	}
	return e.Type, ""
}

// message is what the page shows of a message.
type message struct {
	Role    string
	Text    string
	IsError bool
}

// readMessage reads a message's role and text: its text blocks, tool calls
// as → name(arguments), a compaction's summary.
func readMessage(m agentstore.Message) message {
	var v struct {
		Role     string          `json:"role"`
		Content  json.RawMessage `json:"content"`
		Summary  string          `json:"summary"`
		ToolName string          `json:"toolName"`
		IsError  bool            `json:"isError"`
		Command  string          `json:"command"`
	}
	_ = json.Unmarshal(m, &v) // the store gave it back: JSON with a role
	out := message{Role: v.Role, Text: contentText(v.Content), IsError: v.IsError}
	switch v.Role {
	case agentstore.RoleCompactionSummary, "branchSummary":
		out.Text = v.Summary
	case "toolResult":
		out.Text = v.ToolName + ": " + out.Text
	case "bashExecution":
		out.Text = "$ " + v.Command
	}
	return out
}

// contentText reads a content: a string, or blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "toolCall":
			parts = append(parts, "→ "+b.Name+string(b.Arguments))
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, " ")
}

// clip shortens s to n characters, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

// clock shows an entry's time of day, in UTC as the file has it.
func clock(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("15:04:05.000")
}
