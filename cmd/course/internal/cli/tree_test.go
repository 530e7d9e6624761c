package cli_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/sessionview"
	"github.com/coursekit/course/labs"
)

// treeExample is the chapter's example session, as lab 10 writes it.
var treeExample = []string{
	`{"type":"message","id":"a","parentId":null,"timestamp":1,"message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1}}`,
	`{"type":"message","id":"b","parentId":"a","timestamp":2,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}],"model":"m","usage":{"input":3,"output":5,"totalTokens":8},"stopReason":"toolUse","timestamp":2}}`,
	`{"type":"message","id":"r","parentId":"b","timestamp":3,"message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"README.md"}],"details":{"count":1},"isError":false,"timestamp":3}}`,
	`{"type":"message","id":"d","parentId":"a","timestamp":4,"message":{"role":"assistant","content":[{"type":"text","text":"nothing to list"}],"timestamp":4}}`,
	`{"type":"metadata","id":"m","parentId":"d","timestamp":5,"key":"title","value":{"text":"demo"}}`,
}

// sessionFile writes text to a session file in a new temporary directory.
func sessionFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestTreeDrawsTheChaptersExample(t *testing.T) {
	p := sessionFile(t, strings.Join(treeExample, "\n")+"\n")
	r := run(t, nil, "tree", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Equal(t, p+": 5 entries, 1 root, 1 branch point\n"+
		"\n"+
		"a  user  \"list files\"  ◆ 2 branches\n"+
		"├─ b  assistant  → ls\n"+
		"│  r  toolResult ls  \"README.md\"\n"+
		"└─ d  assistant  \"nothing to list\"\n"+
		"   m  metadata  \"title\"\n", r.stdout)
}

func TestTreeHighlightsTheLeaf(t *testing.T) {
	p := sessionFile(t, strings.Join(treeExample, "\n")+"\n")
	r := run(t, nil, "tree", "--leaf", "r", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\n· a  user  \"list files\"  ◆ 2 branches\n· ├─ b  assistant  → ls\n* │  r  toolResult ls")
	assert.Contains(t, r.stdout, "\n  └─ d  assistant")
	assert.NotContains(t, r.stdout, "\x1b[", "no colour off a terminal")

	t.Setenv("NO_COLOR", "")
	code, stdout, _ := runTTY(t, "tree", "--leaf", "m", p)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "*    \x1b[1;32mm  metadata  \"title\"\x1b[0m\n", "the leaf in colour on a terminal, * always")
	t.Setenv("NO_COLOR", "1")
	code, stdout, _ = runTTY(t, "tree", "--leaf", "m", p)
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "\x1b[", "NO_COLOR")
	assert.Contains(t, stdout, "*    m  metadata  \"title\"\n")

	r = run(t, nil, "tree", "--leaf", "nope", p)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--leaf nope: no committed entry of "+p+" has this id")
	assert.Empty(t, r.stdout)
}

func TestTreeReportsTheUnterminatedTail(t *testing.T) {
	p := sessionFile(t, strings.Join(treeExample[:2], "\n")+"\n"+`{"type":"message","id":"r","pare`)
	r := run(t, nil, "tree", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, p+": 2 entries, 1 root, 0 branch points\n")
	assert.Contains(t, r.stdout, "a  user  \"list files\"\nb  assistant  → ls\n")
	assert.Contains(t, r.stdout, "\nline 3: an unterminated tail of 32 bytes: a write that never finished, so never committed,\n"+
		"and not drawn. A writer must not append after it until it is cut off.\n")
	assert.NotContains(t, r.stdout, "\nr  ", "the tail is not drawn")
}

func TestTreeStopsAtABadLine(t *testing.T) {
	p := sessionFile(t, treeExample[0]+"\n\n"+`{"type":"message","id":"b"`+"\n"+strings.Join(treeExample[1:], "\n")+"\n")
	r := run(t, nil, "tree", p)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, p+": 1 entry, 1 root, 0 branch points\n\na  user  \"list files\"\n",
		"what came before the bad line is drawn")
	assert.NotContains(t, r.stdout, "toolResult", "nothing after the bad line")
	assert.True(t, strings.HasPrefix(r.stderr, "course tree: "+p+": line 3: "), r.stderr)
	assert.NotContains(t, r.stderr, "--help")
}

func TestTreeFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	r := run(t, nil, "tree", missing)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "course tree: "+missing+": no such file\n", r.stderr)
	assert.Empty(t, r.stdout)

	r = run(t, nil, "tree")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing argument <file.jsonl>")

	empty := sessionFile(t, "")
	r = run(t, nil, "tree", empty)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, empty+": no committed entries\n", r.stdout)
}

// The history file may be a student's (an instructor draws one from a
// submission): a FIFO, a link (to /dev/zero, say) or a file too large to
// be a lab's is refused at once, never waited on, followed or read whole.
func TestTreeRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs, no /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, mkfifo(fifo))
	zero := filepath.Join(dir, "zero.jsonl")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	before := snapshot(t, dir)
	huge := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(16<<20+1)) // sparse: no disk written
	require.NoError(t, f.Close())

	for _, tc := range []struct{ path, want string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file: course tree follows no link and opens nothing else"},
		{zero, zero + " is a symbolic link, not a regular file: course tree follows no link and opens nothing else"},
		{huge, huge + " is larger than 16 MiB, the most course tree reads: draw a part of it (head -c 16000000 FILE > part.jsonl; a line cut in two shows as a tail)"},
	} {
		r := runSoon(t, nil, "tree", tc.path)
		assert.Equal(t, 2, r.code, "course tree %s", tc.path)
		assert.Empty(t, r.stdout, "course tree %s", tc.path)
		assert.Equal(t, "course tree: "+tc.want+"\n", r.stderr, "course tree %s", tc.path)
	}
	assert.Equal(t, before, snapshot(t, dir), "nothing opened is changed")
	fi, err := os.Stat(huge)
	require.NoError(t, err)
	assert.Equal(t, int64(16<<20+1), fi.Size())
}

func TestTreeDrawsAFactLog(t *testing.T) {
	// As the one-day track's SessionLog writes it: type, id, parentId, text;
	// and a write that a crash cut short.
	tail := `{"type":"user","id":"u2","parentId":"a`
	p := sessionFile(t, `{"type":"user","id":"u1","parentId":null,"text":"list the files"}
{"type":"assistant","id":"a1","parentId":"u1","text":"README.md, go.mod"}
{"type":"tool","id":"t1","parentId":"a1","text":"ls: 2 files"}
{"type":"assistant","id":"a2","parentId":"u1","text":"Which directory?"}
`+tail)
	r := run(t, nil, "tree", "--leaf", "t1", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, p+": 4 entries, 1 root, 1 branch point\n"+
		"\n"+
		"· u1  user  \"list the files\"  ◆ 2 branches\n"+
		"· ├─ a1  assistant  \"README.md, go.mod\"\n"+
		"* │  t1  tool  \"ls: 2 files\"\n"+
		"  └─ a2  assistant  \"Which directory?\"\n"+
		"\n"+
		"line 5: an unterminated tail of "+strconv.Itoa(len(tail))+" bytes: a write that never finished, so never committed,\n"+
		"and not drawn. A writer must not append after it until it is cut off.\n", r.stdout)
}

func TestTreeDrawsAnAgentSession(t *testing.T) {
	// The teaching agent's store keeps pi's format. This file pi itself
	// wrote: a header line, then entries of several types, a branch and a
	// compaction.
	data, err := fs.ReadFile(labs.FS, "11-agentstore/testdata/pi/tokenizer.jsonl")
	require.NoError(t, err)
	p := sessionFile(t, string(data))
	r := run(t, nil, "tree", "--leaf", "5f5f7f69", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	assert.Equal(t, p+": 17 entries, 1 header line, 1 root, 1 branch point", lines[0])
	assert.Equal(t, "  line 1: session 019cebab-8995-795a-8c23-654cc9f96c79  (no parentId: a header, not in the tree)", lines[2])
	assert.Equal(t, `· 9cda2c96  model_change  "claude-sonnet-4-5"`, lines[4], "the branch's root")
	assert.Contains(t, r.stdout, "\n· ├─ f131850c  user  ")
	assert.Contains(t, r.stdout, "\n* │  5f5f7f69  assistant  ", "the leaf")
	assert.Contains(t, r.stdout, "\n     6f8beadc  compaction  \"## Goal ", "off the branch: no mark")
}

// combHistory is a history of n branch points b1 … bn under a root b0: each
// b(i-1) has the leaf li and then bi, which carries on, so that every branch
// is drawn one indent further in than the one before.
func combHistory(n int) string {
	var b strings.Builder
	b.WriteString(`{"id":"b0","parentId":null}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"id":"l%d","parentId":"b%d"}`+"\n", i, i-1)
		fmt.Fprintf(&b, `{"id":"b%d","parentId":"b%d"}`+"\n", i, i-1)
	}
	return b.String()
}

// A comb of branches draws in a few bytes per byte of the file (4 at most:
// its lines are as short as entries get), and no line of it is wider than
// MaxDepth indents and the entry's own fields, however deep it nests.
func TestTreeDrawsADeepCombLinearly(t *testing.T) {
	n := 3000
	text := combHistory(n)
	p := sessionFile(t, text)
	r := run(t, nil, "tree", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	summary, drawing, _ := strings.Cut(r.stdout, "\n")
	assert.Equal(t, fmt.Sprintf("%s: %d entries, 1 root, %d branch points", p, 2*n+1, n), summary)
	d := sessionview.MaxDepth
	assert.Contains(t, drawing, fmt.Sprintf("\n%s└─ b%d  ◆ 2 branches  ⋮ drawn below\n\n"+
		"⋮ the branches of b%d (line %d, %d levels in)\n├─ l%d\n└─ b%d  ◆ 2 branches\n",
		strings.Repeat("   ", d-1), d, d, 2*d+1, d, d+1, d+1), "the drawing goes on from the left margin")
	assert.LessOrEqual(t, len(drawing), 4*len(text), "a file of %d bytes drew %d bytes, want at most 4 per byte; it starts:\n%s",
		len(text), len(drawing), drawing[:min(len(drawing), 1500)])
	widest := 3*d + len("b3000  ◆ 2 branches  ⋮ drawn below")
	for i, line := range strings.Split(drawing, "\n") {
		if w := utf8.RuneCountInString(line); w > widest {
			t.Fatalf("line %d of the drawing is %d characters wide, want at most %d: %q", i+2, w, widest, line)
		}
	}
}

// The file is a student's: course tree opens a regular file only, follows
// no link and does not wait on a FIFO.
func TestTreeOpensOnlyARegularFile(t *testing.T) {
	good := sessionFile(t, strings.Join(treeExample, "\n")+"\n")
	dir := t.TempDir()
	refused := func(p, what string) {
		t.Helper()
		done := make(chan result, 1)
		go func() { done <- run(t, nil, "tree", p) }()
		select {
		case r := <-done:
			assert.Equal(t, 2, r.code, "course tree %s: %s", what, r.stderr)
			assert.Equal(t, "course tree: "+p+" is "+what+", not a regular file: course tree follows no link and opens nothing else\n", r.stderr)
			assert.Empty(t, r.stdout)
		case <-time.After(10 * time.Second):
			t.Fatalf("course tree on %s did not return within 10 s: it waits for a writer", what)
		}
	}
	refused(dir, "a directory")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(good, link); err == nil {
		refused(link, "a symbolic link")
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := mkfifo(fifo); err == nil {
		refused(fifo, "a named pipe (FIFO)")
	}
}

// The file is read up to 16 MiB and 250,000 lines, and refused beyond,
// with a way to draw a part of it.
func TestTreeReadsAFileUpToItsBounds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.jsonl")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	require.NoError(t, os.Truncate(p, 16<<20+1))
	r := run(t, nil, "tree", p)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, "course tree: "+p+" is larger than 16 MiB, the most course tree reads: draw a part of it "+
		"(head -c 16000000 FILE > part.jsonl; a line cut in two shows as a tail)\n", r.stderr)
	assert.Empty(t, r.stdout)

	require.NoError(t, os.Truncate(p, 16<<20))
	r = run(t, nil, "tree", p)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\nline 1: an unterminated tail of 16777216 bytes:", "16 MiB is read")

	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("\n", 250_001)), 0o644))
	r = run(t, nil, "tree", p)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, "course tree: "+p+" has 250001 lines, more than the 250000 course tree reads: draw a part of it "+
		"(head -n 250000 FILE > part.jsonl)\n", r.stderr)
	assert.Empty(t, r.stdout)

	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("\n", 250_000)), 0o644))
	r = run(t, nil, "tree", p)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, p+": no committed entries\n", r.stdout, "250,000 lines are read")
}

// The history file's name is the student's to choose: an escape sequence
// or a newline in it is shown escaped, never run by the terminal.
func TestTreeEscapesTheFilesName(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x\x1b[2J\nfake.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"message","id":"a","parentId":null}`+"\n"), 0o644))
	r := run(t, nil, "tree", p)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "\x1b", "the escape sequence is shown escaped")
	assert.Contains(t, r.stdout, `x\x1b[2J\x0afake.jsonl: 1 entry`)
}
