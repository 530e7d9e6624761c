package sessionview

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs"
)

// The chapter's example, one line per entry, as lab 10 writes it.
const (
	lineA = `{"type":"message","id":"a","parentId":null,"timestamp":1,"message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1}}`
	lineB = `{"type":"message","id":"b","parentId":"a","timestamp":2,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}],"model":"m","stopReason":"toolUse","timestamp":2}}`
	lineR = `{"type":"message","id":"r","parentId":"b","timestamp":3,"message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"README.md"}],"details":{"count":1},"isError":false,"timestamp":3}}`
	lineD = `{"type":"message","id":"d","parentId":"a","timestamp":4,"message":{"role":"assistant","content":[{"type":"text","text":"nothing\nto list"}],"timestamp":4}}`
	lineM = `{"type":"metadata","id":"m","parentId":"d","timestamp":5,"key":"title","value":{"text":"demo"}}`
)

func file(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func ids(s *Session) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, e.ID)
	}
	return out
}

func TestReadKeepsWhatTheViewNeeds(t *testing.T) {
	s := Read([]byte(file(lineA, lineB, lineR, lineD, lineM)))
	require.Nil(t, s.Bad)
	assert.Nil(t, s.Tail)
	assert.Empty(t, s.Headers)
	assert.Equal(t, []Entry{
		{Line: 1, Type: "message", ID: "a", Role: "user", Text: "list files"},
		{Line: 2, Type: "message", ID: "b", ParentID: "a", Role: "assistant", Tools: []string{"ls"}},
		{Line: 3, Type: "message", ID: "r", ParentID: "b", Role: "toolResult", Text: "README.md", Tool: "ls"},
		{Line: 4, Type: "message", ID: "d", ParentID: "a", Role: "assistant", Text: "nothing to list"},
		{Line: 5, Type: "metadata", ID: "m", ParentID: "d", Text: "title"},
	}, s.Entries)
}

// A fact log as the one-day track (chapter 4) writes it: every fact has a
// type, an id, a parentId and a text, and nothing else.
const factLog = `{"type":"user","id":"u1","parentId":null,"text":"list the files"}
{"type":"assistant","id":"a1","parentId":"u1","text":"README.md, go.mod"}
{"type":"user","id":"u2","parentId":"a1","text":"only the Go files"}
{"type":"assistant","id":"a2","parentId":"a1","text":"go.mod\nand more"}
`

func TestReadAFactLog(t *testing.T) {
	s := Read([]byte(factLog))
	require.Nil(t, s.Bad)
	assert.Empty(t, s.Headers)
	assert.Equal(t, []Entry{
		{Line: 1, Type: "user", ID: "u1", Text: "list the files"},
		{Line: 2, Type: "assistant", ID: "a1", ParentID: "u1", Text: "README.md, go.mod"},
		{Line: 3, Type: "user", ID: "u2", ParentID: "a1", Text: "only the Go files"},
		{Line: 4, Type: "assistant", ID: "a2", ParentID: "a1", Text: "go.mod and more"},
	}, s.Entries)
	assert.Equal(t, ""+
		"u1  user  \"list the files\"\n"+
		"a1  assistant  \"README.md, go.mod\"  ◆ 2 branches\n"+
		"├─ u2  user  \"only the Go files\"\n"+
		"└─ a2  assistant  \"go.mod and more\"\n", draw(t, factLog, DrawOptions{}))
}

// piSession is a session file of the teaching agent's store (chapter 11)
// that pi itself wrote (the lab's testdata/pi/tokenizer.jsonl): a header
// line without a parentId, then entries of several types, a branch and a
// compaction.
func piSession(t *testing.T) []byte {
	t.Helper()
	data, err := fs.ReadFile(labs.FS, "11-agentstore/testdata/pi/tokenizer.jsonl")
	require.NoError(t, err)
	return data
}

func TestReadAnAgentSession(t *testing.T) {
	s := Read(piSession(t))
	require.Nil(t, s.Bad)
	assert.Nil(t, s.Tail)
	assert.Equal(t, []Header{{Line: 1, Type: "session", ID: "019cebab-8995-795a-8c23-654cc9f96c79"}}, s.Headers,
		"the session header has no parentId: shown, not in the tree")
	require.Len(t, s.Entries, 17)
	assert.Equal(t, Entry{Line: 2, Type: "model_change", ID: "9cda2c96", Text: "claude-sonnet-4-5"}, s.Entries[0])
	assert.Equal(t, Entry{Line: 3, Type: "thinking_level_change", ID: "642f4a02", ParentID: "9cda2c96", Text: "medium"}, s.Entries[1])
	last := s.Entries[len(s.Entries)-1]
	assert.Equal(t, Entry{Line: 18, Type: "message", ID: "8af385c5", ParentID: "701edbe6", Role: "user",
		Text: "Now make it handle CRLF input too."}, last, "a message whose content is a string")
	byType := map[string]int{}
	for _, e := range s.Entries {
		byType[e.Type]++
	}
	assert.Equal(t, 1, byType["compaction"])
	assert.Equal(t, 1, byType["session_info"])

	got := draw(t, string(piSession(t)), DrawOptions{})
	lines := strings.Split(got, "\n")
	assert.Equal(t, "line 1: session 019cebab-8995-795a-8c23-654cc9f96c79  (no parentId: a header, not in the tree)", lines[0])
	assert.Equal(t, "", lines[1], "a blank line between the header and the tree")
	assert.Equal(t, `9cda2c96  model_change  "claude-sonnet-4-5"`, lines[2])
	assert.Contains(t, got, "  ◆ 2 branches\n")
	assert.Regexp(t, `(?m)^│? *6f8beadc  compaction  "## Goal Fix tokenize\(\) dropping the las…"$`, got, "a compaction shows its summary")
	assert.Regexp(t, `(?m)^ *440b0ebd  session_info  "tokenizer last line"$`, got)
	assert.Regexp(t, `(?m)^ *0cb38dda  toolResult read  "export function`, got)
}

func TestReadFollowsTheCommitRules(t *testing.T) {
	for name, tc := range map[string]struct {
		text    string
		ids     []string
		headers int
		tail    *Tail
		bad     int
	}{
		"empty":                  {text: ""},
		"tail not parsed":        {text: file(lineA) + `{"type":"mess`, ids: []string{"a"}, tail: &Tail{Line: 2, Bytes: 13}},
		"blank lines counted":    {text: "\n \t\n" + file(lineA) + "\n" + `{"x`, ids: []string{"a"}, tail: &Tail{Line: 5, Bytes: 3}},
		"whitespace-only tail":   {text: file(lineA) + " \r", ids: []string{"a"}}, // blank: no tail
		"CRLF":                   {text: lineA + "\r\n" + lineB + "\r\n", ids: []string{"a", "b"}},
		"bad line stops reading": {text: file(lineA, "not json", lineB) + `{"x`, ids: []string{"a"}, bad: 2},
		"BOM is not stripped":    {text: "\uFEFF" + file(lineA), bad: 1},
		"not an object":          {text: file(lineA, `[1,2]`), ids: []string{"a"}, bad: 2},
		"null":                   {text: file(`null`), bad: 1},
		"any type":               {text: file(`{"type":"note","id":"x","parentId":null}`), ids: []string{"x"}},
		"no type":                {text: file(`{"id":"x","parentId":null}`), ids: []string{"x"}},
		"no id":                  {text: file(`{"type":"metadata","parentId":null,"key":"k"}`), bad: 1},
		"numeric id":             {text: file(`{"type":"metadata","id":7,"parentId":null}`), bad: 1},
		"empty id":               {text: file(`{"type":"metadata","id":"","parentId":null}`), bad: 1},
		"no parentId: a header":  {text: file(`{"type":"session","id":"s"}`, lineA), ids: []string{"a"}, headers: 1},
		"header without an id":   {text: file(`{"version":3}`, lineA), ids: []string{"a"}, headers: 1},
		"empty parentId":         {text: file(`{"type":"metadata","id":"x","parentId":"","key":"k"}`), bad: 1},
		"numeric parentId":       {text: file(`{"type":"metadata","id":"x","parentId":3,"key":"k"}`), bad: 1},
		"message without role":   {text: file(`{"type":"message","id":"x","parentId":null,"message":{"content":[]}}`), ids: []string{"x"}},
		"message null":           {text: file(`{"type":"message","id":"x","parentId":null,"message":null}`), ids: []string{"x"}},
	} {
		t.Run(name, func(t *testing.T) {
			s := Read([]byte(tc.text))
			assert.Equal(t, tc.ids, ids(s), "Read(%q): the entries", tc.text)
			assert.Len(t, s.Headers, tc.headers, "Read(%q): the header lines", tc.text)
			assert.Equal(t, tc.tail, s.Tail, "Read(%q): the tail", tc.text)
			if tc.bad == 0 {
				assert.Nil(t, s.Bad, "Read(%q)", tc.text)
				return
			}
			require.NotNil(t, s.Bad, "Read(%q): a bad line", tc.text)
			assert.Equal(t, tc.bad, s.Bad.Line, "Read(%q): the bad line", tc.text)
			assert.True(t, strings.HasPrefix(s.Bad.Error(), "line "), s.Bad.Error())
		})
	}
}

func TestTreeRootsOrphansCyclesDuplicates(t *testing.T) {
	meta := func(id, parent string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"metadata","id":"` + id + `","parentId":` + p + `,"key":"k"}`
	}
	s := Read([]byte(file(meta("a", ""), meta("b", "a"), meta("x", "ghost"), meta("c1", "c2"), meta("c2", "c1"),
		meta("z", ""), meta("b", "z"), meta("y", "x"))))
	require.Nil(t, s.Bad)
	tr := s.Tree()
	assert.Equal(t, []int{0, 5}, tr.Roots)
	assert.Equal(t, []int{2}, tr.Orphans)
	assert.Equal(t, []int{3, 4}, tr.Cycles)
	assert.Equal(t, []int{1}, tr.Children[0])
	assert.Equal(t, []int{6}, tr.Children[5])
	assert.Equal(t, []int{7}, tr.Children[2])
	assert.Equal(t, 1, tr.FirstOf["b"], "the first entry with a repeated id")

	path, ok := s.Branch("c1")
	assert.True(t, ok)
	assert.Equal(t, []int{3, 4}, path, "a cycle ends the branch where it comes round")
	path, ok = s.Branch("y")
	assert.True(t, ok)
	assert.Equal(t, []int{7, 2}, path, "a missing parent ends the branch")
	_, ok = s.Branch("nope")
	assert.False(t, ok)
}

func draw(t *testing.T, text string, opts DrawOptions) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, Draw(&b, Read([]byte(text)), opts))
	return b.String()
}

func TestDrawTheChaptersExample(t *testing.T) {
	got := draw(t, file(lineA, lineB, lineR, lineD, lineM), DrawOptions{})
	assert.Equal(t, ""+
		"a  user  \"list files\"  ◆ 2 branches\n"+
		"├─ b  assistant  → ls\n"+
		"│  r  toolResult ls  \"README.md\"\n"+
		"└─ d  assistant  \"nothing to list\"\n"+
		"   m  metadata  \"title\"\n", got)
}

func TestDrawMarksTheLeafAndItsBranch(t *testing.T) {
	text := file(lineA, lineB, lineR, lineD, lineM)
	got := draw(t, text, DrawOptions{Leaf: "r"})
	assert.Equal(t, ""+
		"· a  user  \"list files\"  ◆ 2 branches\n"+
		"· ├─ b  assistant  → ls\n"+
		"* │  r  toolResult ls  \"README.md\"\n"+
		"  └─ d  assistant  \"nothing to list\"\n"+
		"     m  metadata  \"title\"\n", got)

	got = draw(t, text, DrawOptions{Leaf: "m", Color: true})
	assert.Contains(t, got, "· \x1b[32ma  user", "the marker stays outside the colour")
	assert.Contains(t, got, "*    \x1b[1;32mm  metadata  \"title\"\x1b[0m\n", "the leaf in bold green")
	assert.Contains(t, got, "· └─ \x1b[32md  assistant", "its ancestors in green")
	assert.Contains(t, got, "  ├─ b  assistant  → ls\n", "off the branch: no colour")
}

func TestDrawRootsOrphansAndProblems(t *testing.T) {
	text := file(
		`{"type":"metadata","id":"a","parentId":null,"key":"k"}`,
		`{"type":"message","id":"z","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"a very long text that goes on and on and on past the width"}]}}`,
		`{"type":"message","id":"o","parentId":"gone","message":{"role":"toolResult","toolName":"rm","isError":true,"content":[]}}`,
		`{"type":"metadata","id":"a","parentId":"z","key":"k"}`,
		`{"type":"metadata","id":"c1","parentId":"c2","key":"k"}`,
		`{"type":"metadata","id":"c2","parentId":"c1","key":"k"}`,
		`{"type":"metadata","id":"evil\u001b[2J","parentId":"a","key":"with space"}`,
	)
	got := draw(t, text, DrawOptions{TextWidth: 20})
	assert.Equal(t, ""+
		"a  metadata  \"k\"\n"+
		"\"evil\\x1b[2J\"  metadata  \"with space\"\n"+
		"\n"+
		"z  user  \"a very long text th…\"\n"+
		"a  metadata  \"k\"  ! duplicate id, first on line 1\n"+
		"\n"+
		"entries whose parent is not in the file:\n"+
		"o  toolResult rm (error)  ! parent gone is not in the file\n"+
		"\n"+
		"entries on a cycle (their parent chain comes round again), in file order:\n"+
		"c1  metadata  \"k\"\n"+
		"c2  metadata  \"k\"\n", got)
}

func TestDrawHeadersAboveTheTree(t *testing.T) {
	text := file(`{"type":"session","version":3,"id":"s1"}`, `{"version":3}`, `{"type":"session"}`, lineA)
	assert.Equal(t, ""+
		"line 1: session s1  (no parentId: a header, not in the tree)\n"+
		"line 2: a line  (no parentId: a header, not in the tree)\n"+
		"line 3: session  (no parentId: a header, not in the tree)\n"+
		"\n"+
		"a  user  \"list files\"\n", draw(t, text, DrawOptions{}))
	assert.Equal(t, ""+
		"  line 1: session s1  (no parentId: a header, not in the tree)\n"+
		"  line 2: a line  (no parentId: a header, not in the tree)\n"+
		"  line 3: session  (no parentId: a header, not in the tree)\n"+
		"\n"+
		"* a  user  \"list files\"\n", draw(t, text, DrawOptions{Leaf: "a"}), "headers keep the column of the leaf's marks")
}
