package main

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// notePath is where the agent writes its note: in its own runtime
// directory, which git ignores.
const notePath = ".teaching-agent/note.md"

// scripted is the agent's model: no network, no randomness. Like a real
// model it sees only the context, and answers it: a user message asks for a
// tool, a tool result is put into words. The same context gives the same
// answer, every time.
type scripted struct{}

// next is the model's answer to ctx, made at the time at.
func (scripted) next(ctx []agentstore.Message, at time.Time) (assistantMessage, error) {
	if len(ctx) == 0 {
		return assistantMessage{}, fmt.Errorf("the model was given an empty context")
	}
	last := parse(ctx[len(ctx)-1])
	var content []block
	switch last.Role {
	case "user":
		content = ask(last.text(), ctx)
	case "toolResult":
		content = []block{{Type: "text", Text: answer(last)}}
	default:
		return assistantMessage{}, fmt.Errorf("the context ends with a %q message; the model answers a user message or a tool result", last.Role)
	}
	m := assistantMessage{
		Role: "assistant", Content: content, API: modelAPI, Provider: modelProvider, Model: modelName,
		StopReason: "stop", Timestamp: at.UnixMilli(),
	}
	if len(content) > 1 {
		m.StopReason = "toolUse"
		m.Content[1].ID = callID(ctx)
	}
	in := max(agentstore.EstimateTokens(ctx), 0)
	out := (len(encode(content)) + 3) / 4
	m.Usage = usage{Input: in, Output: out, TotalTokens: in + out}
	return m, nil
}

// callID names a tool call by the context that asked for it.
func callID(ctx []agentstore.Message) string {
	h := fnv.New32a()
	for _, m := range ctx {
		h.Write(m)
	}
	return fmt.Sprintf("call_%08x", h.Sum32())
}

// ask turns a request into a tool call, or into a reply when no tool fits.
func ask(request string, ctx []agentstore.Message) []block {
	words := strings.Fields(strings.ToLower(request))
	has := func(w ...string) bool {
		for _, x := range words {
			for _, y := range w {
				if strings.Trim(x, ".,:;!?'\"") == y {
					return true
				}
			}
		}
		return false
	}
	call := func(say, name string, args map[string]any) []block {
		return []block{{Type: "text", Text: say}, {Type: "toolCall", Name: name, Arguments: args}}
	}
	switch {
	case has("write", "note"):
		return call("I'll write a note of what I found.", "write", map[string]any{"path": notePath, "content": note(ctx)})
	case has("read", "open", "show"):
		file := fileIn(request)
		return call("I'll read "+file+".", "read", map[string]any{"path": file})
	case has("list", "ls", "files"):
		return call("I'll list the workspace's files.", "ls", map[string]any{"path": "."})
	}
	return []block{{Type: "text", Text: "I am the course's scripted model: I can list the workspace's files, read a file, or write a note."}}
}

// fileIn finds the file a request names: its first word with a dot or a
// slash in it (README.md by default).
func fileIn(request string) string {
	for _, w := range strings.Fields(request) {
		w = strings.Trim(w, ",:;!?'\"`")
		if strings.ContainsAny(strings.TrimSuffix(w, "."), "./") {
			return strings.TrimSuffix(w, ".")
		}
	}
	return "README.md"
}

// note is what the agent learned in this context: the summary of a
// compaction it begins with, and every answer it gave.
func note(ctx []agentstore.Message) string {
	var b strings.Builder
	b.WriteString("# Notes of the teaching agent\n\n")
	for _, m := range ctx {
		p := parse(m)
		_, calls := p.toolCall()
		switch {
		case p.Role == agentstore.RoleCompactionSummary:
			fmt.Fprintf(&b, "- Before that, compacted:\n%s\n", indent(p.Summary))
		case p.Role == "assistant" && !calls:
			fmt.Fprintf(&b, "- %s\n", firstLine(p.text()))
		}
	}
	return b.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// answer puts a tool's result into words.
func answer(r parsed) string {
	out := r.text()
	if r.IsError {
		return fmt.Sprintf("The %s tool failed: %s", r.ToolName, firstLine(out))
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	switch r.ToolName {
	case "ls":
		shown := lines
		if len(shown) > 8 {
			shown = append(shown[:8:8], "…")
		}
		return fmt.Sprintf("The workspace holds %d entries: %s.", len(lines), strings.Join(shown, ", "))
	case "read":
		return fmt.Sprintf("I read %d lines; the file begins: %q.", len(lines), firstLine(out))
	case "write":
		return fmt.Sprintf("I wrote the note: %s.", firstLine(out))
	}
	return "The tool said: " + firstLine(out)
}
