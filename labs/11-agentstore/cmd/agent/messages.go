package main

import (
	"encoding/json"
	"strings"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// The agent's messages have pi's shapes, so that pi could read its session
// file: a user message, an assistant message (text and tool calls, with
// the model that wrote it and its usage), a tool result.

type block struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

type usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        cost `json:"cost"`
}

type cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

type userMessage struct {
	Role      string  `json:"role"`
	Content   []block `json:"content"`
	Timestamp int64   `json:"timestamp"`
}

type assistantMessage struct {
	Role       string  `json:"role"`
	Content    []block `json:"content"`
	API        string  `json:"api"`
	Provider   string  `json:"provider"`
	Model      string  `json:"model"`
	Usage      usage   `json:"usage"`
	StopReason string  `json:"stopReason"`
	Timestamp  int64   `json:"timestamp"`
}

type toolResultMessage struct {
	Role       string         `json:"role"`
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Content    []block        `json:"content"`
	Details    map[string]any `json:"details,omitempty"`
	IsError    bool           `json:"isError"`
	Timestamp  int64          `json:"timestamp"`
}

// The model this agent says wrote its answers: the scripted one.
const (
	modelAPI      = "scripted"
	modelProvider = "course"
	modelName     = "scripted-teaching-model"
)

// encode makes m a Message: compact JSON, as the store keeps it.
func encode(m any) agentstore.Message {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // strings, numbers and maps of them always encode
	}
	return agentstore.Message(b)
}

func newUser(text string, at time.Time) agentstore.Message {
	return encode(userMessage{Role: "user", Content: []block{{Type: "text", Text: text}}, Timestamp: at.UnixMilli()})
}

func newToolResult(call block, r result, at time.Time) agentstore.Message {
	return encode(toolResultMessage{
		Role: "toolResult", ToolCallID: call.ID, ToolName: call.Name,
		Content: []block{{Type: "text", Text: r.text}}, Details: r.details, IsError: r.isError,
		Timestamp: at.UnixMilli(),
	})
}

// parsed is what the agent reads back from a message of its context.
type parsed struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolName   string          `json:"toolName"`
	IsError    bool            `json:"isError"`
	Summary    string          `json:"summary"`
	StopReason string          `json:"stopReason"`
}

func parse(m agentstore.Message) parsed {
	var p parsed
	_ = json.Unmarshal(m, &p) // a message the store gave back is JSON; an unknown shape reads as empty
	return p
}

// blocks returns the content's blocks; a content that is a string is one
// text block.
func (p parsed) blocks() []block {
	var s string
	if json.Unmarshal(p.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(p.Content, &bs)
	return bs
}

// text joins the content's text blocks.
func (p parsed) text() string {
	var parts []string
	for _, b := range p.blocks() {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolCall returns the content's tool call, if it has one.
func (p parsed) toolCall() (block, bool) {
	for _, b := range p.blocks() {
		if b.Type == "toolCall" {
			return b, true
		}
	}
	return block{}, false
}
