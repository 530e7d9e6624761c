package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// options are a store's options with a clock and ids that are the same on
// every run.
func options(path, cwd string) agentstore.Options {
	at := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	n := 0
	return agentstore.Options{
		FS: agentstore.OSFileSystem{}, Path: path, Cwd: cwd,
		Now:          func() time.Time { at = at.Add(time.Second); return at },
		NewEntryID:   func() string { n++; return fmt.Sprintf("e%07d", n) },
		NewSessionID: func() string { return "s-test" },
		Summarize:    agentstore.SimpleSummary,
	}
}

// clock is the messages' clock: a second a call.
func clock() func() time.Time {
	at := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	return func() time.Time { at = at.Add(time.Second); return at }
}

// needStore skips t, saying which exercise to finish, unless the store of
// this workspace does what the agent needs.
func needStore(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	s, err := agentstore.Open(options(filepath.Join(dir, "probe.jsonl"), dir))
	if err == nil {
		_, err = s.AppendMessage(newUser("probe", time.Unix(0, 0)))
	}
	if err == nil && len(s.BuildContext()) != 1 {
		err = errors.New("BuildContext (exercise 11.3) is not written yet")
	}
	if err == nil {
		_, err = s.CompactIfNeeded(0, 1)
	}
	if err == nil {
		err = s.SwitchLeaf(s.Leaf())
	}
	if err != nil {
		t.Skipf("the agent needs a store that works up to exercise 11.5: %v", err)
	}
}

// workspaceDir makes a small workspace with a README.md.
func workspaceDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	readme := "# A workspace\n\nThis is the README the agent reads.\n" + strings.Repeat("It goes on for a while.\n", 40)
	for name, data := range map[string]string{"README.md": readme, "go.mod": "module example\n\ngo 1.22\n", "store.go": "package example\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runAgent runs the agent in dir and returns what it printed.
func runAgent(t *testing.T, dir string, budget int, from string, turns ...string) string {
	t.Helper()
	if len(turns) == 0 {
		turns = seedTurns
	}
	var out bytes.Buffer
	session := filepath.Join(dir, defaultSession)
	cfg := config{dir: dir, opts: options(session, dir), now: clock(), budget: budget, keep: 8, from: from, turns: turns, out: &out}
	if err := run(cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	return out.String()
}

// line is one entry line of a session file.
type line struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	ParentID         *string         `json:"parentId"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	Message          json.RawMessage `json:"message"`
}

func entries(t *testing.T, dir string) []line {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, defaultSession))
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	for first := true; sc.Scan(); first = false {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("a line of the session: %v", err)
		}
		if !first {
			out = append(out, l)
		}
	}
	return out
}

func count(ls []line, typ string) int {
	n := 0
	for _, l := range ls {
		if l.Type == typ {
			n++
		}
	}
	return n
}

// TestRunCheckKeepsEveryMessage is the chapter's run check: the three
// requests, every message a line of the session, a note written, and at
// the default budget no compaction.
func TestRunCheckKeepsEveryMessage(t *testing.T) {
	needStore(t)
	dir := workspaceDir(t)
	out := runAgent(t, dir, 1200, "")
	for _, want := range []string{"> list the workspace's files", "> read README.md", "> write a note", "assistant calls ls .", "read (ok):", "write (ok):", "0 compactions in this run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	ls := entries(t, dir)
	if m, c := count(ls, agentstore.TypeMessage), count(ls, agentstore.TypeCompaction); m != 12 || c != 0 {
		t.Errorf("the session has %d messages and %d compactions, want 12 (4 a request) and none at budget 1200", m, c)
	}
	note, err := os.ReadFile(filepath.Join(dir, notePath))
	if err != nil {
		t.Fatalf("no note: %v", err)
	}
	if !strings.Contains(string(note), "The workspace holds") || !strings.Contains(string(note), "# A workspace") {
		t.Errorf("the note does not say what the agent found:\n%s", note)
	}
}

// TestRunIsDeterministic: the same workspace, the same clock and ids give
// the same output and the same session file, byte for byte.
func TestRunIsDeterministic(t *testing.T) {
	needStore(t)
	var outs, files []string
	for i := 0; i < 2; i++ {
		dir := workspaceDir(t)
		outs = append(outs, strings.ReplaceAll(runAgent(t, dir, 300, ""), dir, "DIR"))
		data, err := os.ReadFile(filepath.Join(dir, defaultSession))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, strings.ReplaceAll(string(data), dir, "DIR"))
	}
	if outs[0] != outs[1] || files[0] != files[1] {
		t.Errorf("two runs differ:\n%s\n----\n%s", outs[0], outs[1])
	}
}

// TestLowerBudgetMakesACompaction: at budget 300 the same run compacts, and
// the compaction is a line of its own in the file; every message is still
// there.
func TestLowerBudgetMakesACompaction(t *testing.T) {
	needStore(t)
	dir := workspaceDir(t)
	out := runAgent(t, dir, 300, "")
	ls := entries(t, dir)
	if c := count(ls, agentstore.TypeCompaction); c == 0 {
		t.Fatalf("no compaction in the session at budget 300:\n%s", out)
	}
	if m := count(ls, agentstore.TypeMessage); m != 12 {
		t.Errorf("the session has %d messages, want all 12: a compaction deletes nothing", m)
	}
	if !strings.Contains(out, "~ compaction ") {
		t.Errorf("the output does not show the compaction:\n%s", out)
	}
}

// compactionLine reads what a "~ compaction" line of the output says: the
// context's tokens after it.
var compactionLine = regexp.MustCompile(`~ compaction \S+: the context was ~(\d+) tokens.*the last (\d+) messages? (?:is|are) kept.*the context is now ~(\d+) tokens`)

// TestCompactionsGetUnderTheBudget: at budget 300 each compaction brings the
// context under the budget, keeping fewer than 8 messages when 8 would not
// fit, at most one a request; once the summary has grown so long that a
// compaction cannot, the agent says so and compacts no more in that run.
func TestCompactionsGetUnderTheBudget(t *testing.T) {
	needStore(t)
	dir := workspaceDir(t)
	var stopped bool
	for run := 1; run <= 4; run++ {
		out := runAgent(t, dir, 300, "")
		lines := compactionLine.FindAllStringSubmatch(out, -1)
		if run == 1 && len(lines) == 0 {
			t.Fatalf("run 1 at budget 300: no compaction\n%s", out)
		}
		if len(lines) > len(seedTurns) {
			t.Errorf("run %d: %d compactions for %d requests, want at most one a request\n%s", run, len(lines), len(seedTurns), out)
		}
		still := strings.Contains(out, "~ still over the budget")
		stopped = stopped || still
		for i, l := range lines {
			was, kept, now := atoi(l[1]), atoi(l[2]), atoi(l[3])
			if was <= 300 || kept < 1 || kept > 8 {
				t.Errorf("run %d: %q: a compaction over ~%d tokens keeping %d messages", run, l[0], was, kept)
			}
			last := i == len(lines)-1
			if now > 300 && !(last && still) {
				t.Errorf("run %d: %q: the context is still over the budget, and the output does not say why\n%s", run, l[0], out)
			}
		}
		if run == 1 && still {
			t.Errorf("run 1: a fresh session's compactions must get under the budget\n%s", out)
		}
	}
	if !stopped {
		t.Errorf("four runs at budget 300: the summary only grows, so a later run cannot get under the budget any more and must say so")
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestKeepFor: a compaction keeps the last keep messages, or the most
// recent ones that fit in half the budget, at least one, never the summary.
func TestKeepFor(t *testing.T) {
	needStore(t) // keepFor counts with EstimateTokens, exercise 11.5
	// msg is a message of n tokens by EstimateTokens.
	msg := func(n int) agentstore.Message {
		return agentstore.Message(`{"role":"user","c":"` + strings.Repeat("x", 4*n-23) + `"}`)
	}
	summary := agentstore.Message(`{"role":"compactionSummary","summary":"` + strings.Repeat("s", 100) + `","tokensBefore":1,"timestamp":1}`)
	for _, tc := range []struct {
		budget, keep int
		ctx          []agentstore.Message
		want         int
	}{
		{1000, 8, []agentstore.Message{msg(10), msg(10), msg(10)}, 3},
		{1000, 2, []agentstore.Message{msg(10), msg(10), msg(10)}, 2},
		{100, 8, []agentstore.Message{msg(30), msg(30), msg(20), msg(20)}, 2},
		{100, 8, []agentstore.Message{msg(10), msg(90)}, 1},
		{1000, 8, []agentstore.Message{summary, msg(10), msg(10)}, 2},
	} {
		a := &agent{budget: tc.budget, keep: tc.keep}
		if got := a.keepFor(tc.ctx); got != tc.want {
			t.Errorf("keepFor at budget %d, keep %d, over %d messages = %d, want %d", tc.budget, tc.keep, len(tc.ctx), got, tc.want)
		}
	}
}

// TestResetSaysWhereTheOldSessionIs: -reset prints the archive's path, and
// the archive is there.
func TestResetSaysWhereTheOldSessionIs(t *testing.T) {
	needStore(t)
	dir := workspaceDir(t)
	runAgent(t, dir, 1200, "")
	var out bytes.Buffer
	session := filepath.Join(dir, defaultSession)
	cfg := config{dir: dir, opts: options(session, dir), now: clock(), budget: 1200, keep: 8, reset: true, turns: []string{"hello"}, out: &out}
	if err := run(cfg); err != nil {
		t.Fatalf("run -reset: %v\n%s", err, out.String())
	}
	archive := agentstore.ArchivePath(session, "s-test")
	if !strings.Contains(out.String(), "is kept in "+archive) {
		t.Errorf("-reset does not say where the old session is (%s):\n%s", archive, out.String())
	}
	if _, err := os.Stat(archive); err != nil {
		t.Errorf("the archive: %v", err)
	}
}

// TestFromStartsABranch: -from switches the leaf before the run, so the
// run's first message is a child of that entry and the first run's branch
// stays.
func TestFromStartsABranch(t *testing.T) {
	needStore(t)
	dir := workspaceDir(t)
	runAgent(t, dir, 1200, "")
	first := entries(t, dir)
	from := first[1].ID // the first answer, which called ls
	runAgent(t, dir, 1200, from, "read go.mod")
	after := entries(t, dir)
	if len(after) != len(first)+4 {
		t.Fatalf("the second run added %d entries, want 4", len(after)-len(first))
	}
	if p := after[len(first)].ParentID; p == nil || *p != from {
		t.Errorf("the second run's first message has parent %v, want %s", p, from)
	}
}

// TestToolsStayInTheWorkspace: no path leads a tool out of the workspace,
// and no tool writes the session's own file.
func TestToolsStayInTheWorkspace(t *testing.T) {
	dir := workspaceDir(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"out": outside, "nowhere": filepath.Join(outside, "missing", "x")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	w, err := newWorkspace(dir, filepath.Join(dir, defaultSession))
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args ...string) block {
		a := map[string]any{"path": args[0]}
		if len(args) > 1 {
			a["content"] = args[1]
		}
		return block{Type: "toolCall", Name: name, Arguments: a}
	}
	for _, c := range []block{
		call("ls", ".."), call("read", "/etc/passwd"), call("read", "../secret"), call("read", "out/secret"),
		call("write", "out/x", "x"), call("write", "nowhere", "x"), call("write", "../x", "x"),
		call("write", defaultSession, "{}"), call("write", ".teaching-agent/session.jsonl.tmp", "{}"), call("rm", "."),
	} {
		if r := w.run(c); !r.isError {
			t.Errorf("%s %v was allowed: %s", c.Name, c.Arguments, r.text)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a tool wrote outside the workspace")
	}
	for _, c := range []block{call("ls", "."), call("read", "go.mod"), call("write", "notes/a.md", "a")} {
		if r := w.run(c); r.isError {
			t.Errorf("%s %v failed: %s", c.Name, c.Arguments, r.text)
		}
	}
}

// TestModelAnswersTheContext: the scripted model picks its tool from the
// request and words a tool's result, the same each time.
func TestModelAnswersTheContext(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for request, tool := range map[string]string{"list the workspace's files": "ls", "read go.mod": "read", "write a note": "write", "hello": ""} {
		ctx := []agentstore.Message{newUser(request, at)}
		a, err := scripted{}.next(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := scripted{}.next(ctx, at)
		if !bytes.Equal(encode(a), encode(b)) {
			t.Errorf("%q: two answers differ", request)
		}
		call, ok := parse(encode(a)).toolCall()
		switch {
		case tool == "" && ok:
			t.Errorf("%q: a tool call %s, want a reply", request, call.Name)
		case tool != "" && (call.Name != tool || a.StopReason != "toolUse" || call.ID == ""):
			t.Errorf("%q: called %q (stop %s, id %q), want %s", request, call.Name, a.StopReason, call.ID, tool)
		}
	}
	if call, _ := parse(encode(must(scripted{}.next([]agentstore.Message{newUser("read cmd/agent/main.go please", at)}, at)))).toolCall(); call.Arguments["path"] != "cmd/agent/main.go" {
		t.Errorf("read names %v, want cmd/agent/main.go", call.Arguments["path"])
	}
}

func must(m assistantMessage, err error) assistantMessage {
	if err != nil {
		panic(err)
	}
	return m
}

// TestStoreErrorNamesTheExercise: a part of the store that is not written
// yet is named, with the command that tests it.
func TestStoreErrorNamesTheExercise(t *testing.T) {
	err := storeError("SwitchLeaf", fmt.Errorf("Lab 11.4: SwitchLeaf: %w", agentstore.ErrNotImplemented))
	if want := "finish exercise 11.4 first (go test -run Lab11_4)"; !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not say %q", err, want)
	}
	if !errors.Is(err, agentstore.ErrNotImplemented) {
		t.Error("the error no longer matches ErrNotImplemented")
	}
}
