package session_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Hidden tests of exercise 10.2, ParseSessionEntry: other inputs for the
// same rules. They use the lines and helpers of parse_test.go.

// Rule 10.2.3: bad values inside nested lists of tool arguments are found at their full path; deep valid lists are kept.
func TestLab10_2_HiddenNestedListsInArguments(t *testing.T) {
	t.Parallel()
	withArgs := func(args map[string]any) func() any {
		return parseEdit(parseAssistantLine, func(e map[string]any) { parseBlockOf(e, 1)["arguments"] = args })
	}
	cases := []parseBadCase{
		{name: "NaN three lists deep", input: withArgs(map[string]any{"grid": []any{[]any{1.0, []any{math.NaN()}}}}), path: "entry.message.content[1].arguments.grid[0][1][0]"},
		{name: "int inside an object inside a list", input: withArgs(map[string]any{"steps": []any{map[string]any{"n": 1.0}, map[string]any{"n": 2}}}), path: "entry.message.content[1].arguments.steps[1].n"},
		{name: "[]string as a list element", input: withArgs(map[string]any{"files": []any{"a", []string{"b"}}}), path: "entry.message.content[1].arguments.files[1]"},
		{name: "[]any holding a []any holding a struct", input: withArgs(map[string]any{"x": []any{[]any{struct{}{}}}}), path: "entry.message.content[1].arguments.x[0][0]"},
		{name: "second tool call in a message", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			m := parseMessageOf(e)
			m["content"] = append(m["content"].([]any), map[string]any{
				"type": "toolCall", "id": "c2", "name": "cat",
				"arguments": map[string]any{"paths": []any{"a", []any{math.Inf(-1)}}},
			})
		}), path: "entry.message.content[2].arguments.paths[1][0]"},
	}
	parseRunBad(t, cases, "the JSON-safe check recurses into every list and object and carries the path with [index] steps")

	e := parseLine(parseAssistantLine)
	deep := []any{[]any{[]any{[]any{"bottom", 1.5, nil, false}}}, map[string]any{"l": []any{}}}
	parseBlockOf(e, 1)["arguments"] = map[string]any{"deep": deep}
	got := parseMustParse(t, "tool arguments with lists four deep", e)
	call := parseToolCallOf(t, got)
	assert.Equal(t, map[string]any{"deep": []any{[]any{[]any{[]any{"bottom", 1.5, nil, false}}}, map[string]any{"l": []any{}}}}, call.Arguments,
		"ParseSessionEntry changed tool arguments made of nested lists: valid JSON values must come back equal")
}

// Rule 10.2.3, 10.2.4: keys that are not identifiers are quoted with strconv.Quote at every level.
func TestLab10_2_HiddenQuotedKeyPaths(t *testing.T) {
	t.Parallel()
	value := func(key string) func() any {
		return parseEdit(parseMetadataLine, func(e map[string]any) {
			e["value"] = map[string]any{"outer": map[string]any{key: func() {}}}
		})
	}
	cases := []parseBadCase{
		{name: `value key with a double quote`, input: value(`say "hi"`), path: `entry.value.outer["say \"hi\""]`},
		{name: `value key with a backslash`, input: value(`C:\tmp`), path: `entry.value.outer["C:\\tmp"]`},
		{name: `value key with a newline`, input: value("a\nb"), path: `entry.value.outer["a\nb"]`},
		{name: `value key "ключ" (non-ASCII)`, input: value("ключ"), path: `entry.value.outer["ключ"]`},
		{name: `value key "_"`, input: value("_"), path: `entry.value.outer._`},
		{name: `value key "a1$"`, input: value("a1$"), path: `entry.value.outer.a1$`},
		{name: `value key "9"`, input: value("9"), path: `entry.value.outer["9"]`},
		{name: `details key "exit code"`, input: parseEdit(parseToolResultLine, func(e map[string]any) {
			parseMessageOf(e)["details"] = map[string]any{"exit code": 1}
		}), path: `entry.message.details["exit code"]`},
		{name: `unknown message field "tool-call-id"`, input: parseEdit(parseToolResultLine, func(e map[string]any) {
			parseMessageOf(e)["tool-call-id"] = "c1"
		}), path: `entry.message["tool-call-id"]`},
		{name: `unknown block field "x-lang"`, input: parseEdit(parseUserLine, func(e map[string]any) {
			parseBlockOf(e, 0)["x-lang"] = "en"
		}), path: `entry.message.content[0]["x-lang"]`},
		{name: `unknown usage field "cache read"`, input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseMessageOf(e)["usage"].(map[string]any)["cache read"] = 1.0
		}), path: `entry.message.usage["cache read"]`},
	}
	parseRunBad(t, cases, `an identifier key is written .key; every other key is written ["..."] with strconv.Quote`)
}

// Rule 10.2.3: cycles that pass through lists, and shared containers in lists, are told apart by ancestors only.
func TestLab10_2_HiddenCyclesThroughLists(t *testing.T) {
	t.Parallel()
	cases := []parseBadCase{
		{name: "list l whose map holds l", input: func() any {
			l := make([]any, 1)
			l[0] = map[string]any{"back": l}
			e := parseLine(parseMetadataLine)
			e["value"] = l
			return e
		}, path: "entry.value[0].back"},
		{name: "tool arguments whose list holds the arguments", input: func() any {
			e := parseLine(parseAssistantLine)
			args := parseArgsOf(e)
			args["opts"].(map[string]any)["skip"] = []any{".git", args}
			return e
		}, path: "entry.message.content[1].arguments.opts.skip[1]"},
		{name: "details list of lists back to itself", input: func() any {
			outer := make([]any, 2)
			inner := []any{"x", outer}
			outer[0] = "head"
			outer[1] = inner
			e := parseLine(parseToolResultLine)
			parseMessageOf(e)["details"] = outer
			return e
		}, path: "entry.message.details[1][1]"},
	}
	parseRunBad(t, cases, "a container met again while still inside it is a cycle, reported at the path where it is met")

	shared := []any{"s", map[string]any{"n": 1.0}}
	e := parseLine(parseMetadataLine)
	e["value"] = []any{shared, []any{shared, map[string]any{"again": shared}}, shared}
	got, err := session.ParseSessionEntry(e)
	require.NoError(t, err, "ParseSessionEntry(metadata value [s, [s, {again: s}], s] with one list s used four times) error = %v, want no error: s is never inside itself, so this is not a cycle (lab 10.2: ancestors on the current path only)", err)
	want := func() []any { return []any{"s", map[string]any{"n": 1.0}} }
	assert.Equal(t, []any{want(), []any{want(), map[string]any{"again": want()}}, want()}, got.Value,
		"ParseSessionEntry returned the wrong value for a list used several times: sharing is not a cycle (lab 10.2: ancestors on the current path only)")
}

// Rule 10.2.1, 10.2.2: usage counts must be small whole numbers; non-objects deep in content are caught at their index.
func TestLab10_2_HiddenUsageAndDeepNonObjects(t *testing.T) {
	t.Parallel()
	usage := func(key string, v any) func() any {
		return parseEdit(parseAssistantLine, func(e map[string]any) { parseMessageOf(e)["usage"].(map[string]any)[key] = v })
	}
	cases := []parseBadCase{
		{name: "usage input 1e300 (not a safe integer)", input: usage("input", 1e300), path: "entry.message.usage.input"},
		{name: "usage output NaN", input: usage("output", math.NaN()), path: "entry.message.usage.output"},
		{name: "usage totalTokens +Inf", input: usage("totalTokens", math.Inf(1)), path: "entry.message.usage.totalTokens"},
		{name: "usage input is a Go int", input: usage("input", 3), path: "entry.message.usage.input"},
		{name: "usage is a list", input: parseEdit(parseAssistantLine, func(e map[string]any) { parseMessageOf(e)["usage"] = []any{3.0, 5.0, 8.0} }), path: "entry.message.usage"},
		{name: "third assistant block is null", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			m := parseMessageOf(e)
			m["content"] = append(m["content"].([]any), nil)
		}), path: "entry.message.content[2]"},
		{name: "second tool result block is a list", input: parseEdit(parseToolResultLine, func(e map[string]any) {
			m := parseMessageOf(e)
			m["content"] = append(m["content"].([]any), []any{map[string]any{"type": "text", "text": "x"}})
		}), path: "entry.message.content[1]"},
		{name: "second user block is a map[string]string", input: parseEdit(parseUserLine, func(e map[string]any) {
			m := parseMessageOf(e)
			m["content"] = append(m["content"].([]any), map[string]string{"type": "text", "text": "x"})
		}), path: "entry.message.content[1]"},
		{name: "metadata entry that is a map[string]any inside an any pointer", input: func() any {
			var v any = parseLine(parseMetadataLine)
			return &v
		}, path: "entry"},
	}
	parseRunBad(t, cases, "usage counts are whole numbers from 0 to 2^53; every block must be a map[string]any")

	e := parseLine(parseAssistantLine)
	parseMessageOf(e)["usage"] = map[string]any{"input": 0.0, "output": 1e6, "totalTokens": 1000000.0}
	got := parseMustParse(t, "usage {input: 0, output: 1e6, totalTokens: 1000000}", e)
	want := assistantToolCall("b", "a", "c1")
	want.Message.(*session.AssistantMessage).Usage = &session.Usage{Input: 0, Output: 1000000, TotalTokens: 1000000}
	assert.Equal(t, want, got, "ParseSessionEntry read usage {input: 0, output: 1e6, totalTokens: 1000000} wrong: whole float64 counts become ints")
}

// Rule 10.2.7: other edge numbers in other fields: 2^53 in output, 2^53 - 1, tiny and huge negative timestamps; 2^53 + 2 and 1e16 rejected.
func TestLab10_2_HiddenEdgeNumbersElsewhere(t *testing.T) {
	t.Parallel()
	const top = 1 << 53
	e := parseLine(parseAssistantLine)
	parseMessageOf(e)["usage"] = map[string]any{"input": float64(top - 1), "output": float64(top), "totalTokens": 1.0}
	parseMessageOf(e)["timestamp"] = -1e12
	got := parseMustParse(t, "usage {input: 2^53 - 1, output: 2^53, totalTokens: 1} and message timestamp -1e12", e)
	msg, ok := got.Message.(*session.AssistantMessage)
	require.True(t, ok, "Message is %T, want *AssistantMessage", got.Message)
	assert.Equal(t, &session.Usage{Input: top - 1, Output: top, TotalTokens: 1}, msg.Usage, "usage counts up to and including 2^53 are exact ints")
	assert.Equal(t, -1e12, msg.Timestamp, "a negative message timestamp is kept")

	r := parseLine(parseToolResultLine)
	r["timestamp"] = 1e-9
	parseMessageOf(r)["timestamp"] = -0.001
	got = parseMustParse(t, "tool result with timestamps 1e-9 and -0.001", r)
	assert.Equal(t, 1e-9, got.Timestamp, "a fractional entry timestamp is kept")
	assert.Equal(t, -0.001, got.Message.(*session.ToolResultMessage).Timestamp, "a negative fractional message timestamp is kept")

	u := parseLine(parseUserLine)
	u["timestamp"] = -7.25
	got = parseMustParse(t, "user entry with timestamp -7.25", u)
	assert.Equal(t, -7.25, got.Timestamp)

	usage := func(key string, v float64) func() any {
		return parseEdit(parseAssistantLine, func(e map[string]any) { parseMessageOf(e)["usage"].(map[string]any)[key] = v })
	}
	parseRunBad(t, []parseBadCase{
		{name: "usage totalTokens 2^53 + 2", input: usage("totalTokens", float64(top+2)), path: "entry.message.usage.totalTokens"},
		{name: "usage output 1e16", input: usage("output", 1e16), path: "entry.message.usage.output"},
		{name: "usage input -0.5", input: usage("input", -0.5), path: "entry.message.usage.input"},
	}, "usage counts are whole numbers from 0 to 2^53 inclusive")
}
