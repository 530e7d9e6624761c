package sessionview

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Equal(t, []Entry{
		{Line: 1, Type: "message", ID: "a", Role: "user", Text: "list files"},
		{Line: 2, Type: "message", ID: "b", ParentID: "a", Role: "assistant", Tools: []string{"ls"}},
		{Line: 3, Type: "message", ID: "r", ParentID: "b", Role: "toolResult", Text: "README.md", Tools: []string{"ls"}},
		{Line: 4, Type: "message", ID: "d", ParentID: "a", Role: "assistant", Text: "nothing to list"},
		{Line: 5, Type: "metadata", ID: "m", ParentID: "d", Key: "title"},
	}, s.Entries)
}

func TestReadFollowsTheCommitRules(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		ids  []string
		tail *Tail
		bad  int
	}{
		"empty":                  {text: ""},
		"tail not parsed":        {text: file(lineA) + `{"type":"mess`, ids: []string{"a"}, tail: &Tail{Line: 2, Bytes: 13}},
		"blank lines counted":    {text: "\n \t\n" + file(lineA) + "\n" + `{"x`, ids: []string{"a"}, tail: &Tail{Line: 5, Bytes: 3}},
		"whitespace-only tail":   {text: file(lineA) + " \r", ids: []string{"a"}}, // blank: no tail (lab 10.4.5)
		"CRLF":                   {text: lineA + "\r\n" + lineB + "\r\n", ids: []string{"a", "b"}},
		"bad line stops reading": {text: file(lineA, "not json", lineB) + `{"x`, ids: []string{"a"}, bad: 2},
		"BOM is not stripped":    {text: "\uFEFF" + file(lineA), bad: 1},
		"not an object":          {text: file(lineA, `[1,2]`), ids: []string{"a"}, bad: 2},
		"null":                   {text: file(`null`), bad: 1},
		"unknown type":           {text: file(`{"type":"note","id":"x","parentId":null}`), bad: 1},
		"no id":                  {text: file(`{"type":"metadata","parentId":null,"key":"k"}`), bad: 1},
		"no parentId":            {text: file(`{"type":"metadata","id":"x","key":"k"}`), bad: 1},
		"empty parentId":         {text: file(`{"type":"metadata","id":"x","parentId":"","key":"k"}`), bad: 1},
		"numeric parentId":       {text: file(`{"type":"metadata","id":"x","parentId":3,"key":"k"}`), bad: 1},
		"metadata without key":   {text: file(`{"type":"metadata","id":"x","parentId":null}`), bad: 1},
		"message without role":   {text: file(`{"type":"message","id":"x","parentId":null,"message":{"content":[]}}`), bad: 1},
		"message null":           {text: file(`{"type":"message","id":"x","parentId":null,"message":null}`), bad: 1},
	} {
		t.Run(name, func(t *testing.T) {
			s := Read([]byte(tc.text))
			assert.Equal(t, tc.ids, ids(s))
			assert.Equal(t, tc.tail, s.Tail)
			if tc.bad == 0 {
				assert.Nil(t, s.Bad)
				return
			}
			require.NotNil(t, s.Bad)
			assert.Equal(t, tc.bad, s.Bad.Line)
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
		"   m  meta title\n", got)
}

func TestDrawMarksTheLeafAndItsBranch(t *testing.T) {
	text := file(lineA, lineB, lineR, lineD, lineM)
	got := draw(t, text, DrawOptions{Leaf: "r"})
	assert.Equal(t, ""+
		"· a  user  \"list files\"  ◆ 2 branches\n"+
		"· ├─ b  assistant  → ls\n"+
		"* │  r  toolResult ls  \"README.md\"\n"+
		"  └─ d  assistant  \"nothing to list\"\n"+
		"     m  meta title\n", got)

	got = draw(t, text, DrawOptions{Leaf: "m", Color: true})
	assert.Contains(t, got, "· \x1b[32ma  user", "the marker stays outside the colour")
	assert.Contains(t, got, "*    \x1b[1;32mm  meta title\x1b[0m\n", "the leaf in bold green")
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
		"a  meta k\n"+
		"\"evil\\x1b[2J\"  meta \"with space\"\n"+
		"\n"+
		"z  user  \"a very long text th…\"\n"+
		"a  meta k  ! duplicate id, first on line 1\n"+
		"\n"+
		"entries whose parent is not in the file:\n"+
		"o  toolResult rm (error)  ! parent gone is not in the file\n"+
		"\n"+
		"entries on a cycle (their parent chain comes round again), in file order:\n"+
		"c1  meta k\n"+
		"c2  meta k\n", got)
}
