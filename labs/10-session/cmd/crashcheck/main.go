// Command crashcheck is the chapter's real test: write a session, crash in
// the middle, recover, and see that the half-written line is dropped and
// every earlier fact is intact.
//
//	go run ./cmd/crashcheck            # in your lab directory
//	go run ./cmd/crashcheck -keep      # and keep the session file to look at
//
// It runs twice. The parent starts this same program again as a child (the
// CRASHCHECK_CHILD environment variable names the session file). The child
// opens a JSONLSessionStore over the real file system and appends entries as
// fast as it can, printing each id once its append has returned. It writes
// every line in two pieces with a short pause between them, as a slow disk
// or a full pipe may, so that a kill can land inside a line. The parent reads
// the ids until it has seen -n of them, kills the child (SIGKILL: no clean-up
// runs), then opens the file again with your OpenJSONLSessionStore and
// RecoverJSONL and checks:
//
//   - no committed line is bad: the kill can cut a line, never corrupt one;
//   - every id the child reported as committed is in the file, in order, and
//     every entry's parent is an earlier entry: every earlier fact is intact;
//   - if the kill cut a line, recovery reports it as an unterminated tail and
//     appending is refused as needing repair, without touching the file; if
//     it did not, appending works. Which one happens depends on where the
//     kill lands: the report says which it was.
//   - if a tail was found and you have done the optional 10.7, a copy of the
//     file is repaired and must then take appends again.
//
// Exit status 0: every check held; 1: one did not (the report says which);
// 2: the check itself could not run.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	session "github.com/coursekit/course/labs/10-session"
)

// childEnv marks the child and names its session file.
const childEnv = "CRASHCHECK_CHILD"

func main() {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	n := flag.Int("n", 200, "kill the child after it has reported `N` committed entries")
	keep := flag.Bool("keep", false, "keep the session file (and its repaired copy) and print where it is")
	timeout := flag.Duration("timeout", time.Minute, "give up if the child has not reported -n entries by then")
	flag.Parse()
	if *n < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(parent(*n, *keep, *timeout))
}

// ---- the child: append as fast as possible ---------------------------------

// pieceIO is a FileIO that writes each line in two AppendFile calls with a
// pause between them: a kill during the pause leaves half a line on disk.
type pieceIO struct {
	session.FileIO
	pause time.Duration
}

func (p pieceIO) AppendFile(path string, data []byte) error {
	half := len(data) / 2
	if err := p.FileIO.AppendFile(path, data[:half]); err != nil {
		return err
	}
	time.Sleep(p.pause)
	return p.FileIO.AppendFile(path, data[half:])
}

// window is how many appends the child keeps in flight: Append returns at
// once, and the store commits in call order.
const window = 8

func child(path string) int {
	store, err := session.OpenJSONLSessionStore(pieceIO{session.OSFileIO{}, 300 * time.Microsecond}, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: OpenJSONLSessionStore:", err)
		return 1
	}
	type inFlight struct {
		id string
		p  *session.Pending
	}
	var queue []inFlight
	var g generator
	for k := 1; k <= 1_000_000; k++ { // the parent kills us long before
		e := g.next(k)
		queue = append(queue, inFlight{e.ID, store.Append(e)})
		if len(queue) < window {
			continue
		}
		if err := queue[0].p.Wait(); err != nil {
			fmt.Fprintf(os.Stderr, "child: Append(%s): %v\n", queue[0].id, err)
			return 1
		}
		// Unbuffered: the parent sees the id as soon as the append returned.
		if _, err := fmt.Fprintln(os.Stdout, "committed", queue[0].id); err != nil {
			return 1 // the parent is gone
		}
		queue = queue[1:]
	}
	return 0
}

// generator makes a realistic session: user turns with a tool round trip,
// a title, progress notes, and now and then a retried reply (a branch).
type generator struct {
	leaf, lastUser, call string
	turn                 int
}

func (g *generator) next(k int) session.SessionEntry {
	id := fmt.Sprintf("e%05d", k)
	e := session.SessionEntry{Type: session.EntryMessage, ID: id, ParentID: g.leaf, Timestamp: float64(k)}
	text := fmt.Sprintf("entry %d of the crash check: %s", k, strings.Repeat("the quick brown fox ", 4))
	switch {
	case k == 1:
		e.Message = &session.UserMessage{Content: []session.TextContent{{Text: "start " + text}}, Timestamp: float64(k)}
		g.leaf, g.lastUser = id, id
		return e
	case k == 2:
		e.Type, e.Key, e.Value = session.EntryMetadata, "title", map[string]any{"text": "crash check"}
		g.leaf = id // metadata is part of the branch, like the chapter's m
		return e
	}
	switch (k - 3) % 5 {
	case 0:
		g.turn++
		e.Message = &session.UserMessage{Content: []session.TextContent{{Text: text}}, Timestamp: float64(k)}
		g.lastUser = id
	case 1:
		g.call = fmt.Sprintf("call%d", k)
		e.Message = &session.AssistantMessage{
			Content: []session.AssistantContent{session.ToolCall{ID: g.call, Name: "ls",
				Arguments: map[string]any{"path": ".", "turn": float64(g.turn)}}},
			Model: "m", Usage: &session.Usage{Input: k, Output: 5, TotalTokens: k + 5},
			StopReason: session.StopReasonToolUse, Timestamp: float64(k),
		}
	case 2:
		e.Message = &session.ToolResultMessage{ToolCallID: g.call, ToolName: "ls",
			Content: []session.TextContent{{Text: "README.md\nsession.go"}}, Details: map[string]any{"count": 2.0},
			Timestamp: float64(k)}
	case 3:
		e.Message = &session.AssistantMessage{Content: []session.AssistantContent{session.TextContent{Text: text}},
			Model: "m", StopReason: session.StopReasonStop, Timestamp: float64(k)}
	case 4:
		if g.turn%4 == 0 { // retry the reply to the last user message: a second branch under it
			e.ParentID = g.lastUser
			e.Message = &session.AssistantMessage{Content: []session.AssistantContent{session.TextContent{Text: "retry: " + text}},
				Model: "m", StopReason: session.StopReasonStop, Timestamp: float64(k)}
			break
		}
		e.Type, e.Key, e.Value = session.EntryMetadata, "progress", map[string]any{"entries": float64(k)}
	}
	g.leaf = id
	return e
}

// ---- the parent: kill the child, then check --------------------------------

// report collects the checks and their outcome.
type report struct {
	failed bool
}

func (r *report) ok(format string, args ...any) {
	fmt.Printf("  ok    "+format+"\n", args...)
}

func (r *report) fail(format string, args ...any) {
	r.failed = true
	fmt.Printf("  FAIL  "+format+"\n", args...)
}

func (r *report) note(format string, args ...any) {
	fmt.Printf("        "+format+"\n", args...)
}

func parent(n int, keep bool, timeout time.Duration) int {
	dir, err := os.MkdirTemp("", "crashcheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, "session.jsonl")

	fmt.Printf("crashcheck: a child appends to %s; it is killed after %d committed entries\n", path, n)
	reported, childErr, err := runChild(path, n, timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}
	var r report
	if len(reported) < n {
		r.fail("the child stopped after %d committed entries, before it was killed: %s", len(reported), strings.TrimSpace(childErr))
		return 1
	}
	r.ok("the child reported %d committed entries, then was killed mid-stream", len(reported))
	check(&r, path, reported)
	if keep {
		fmt.Printf("\nkept %s\n  look at it with: course tree %s\n", dir, path)
	}
	if r.failed {
		fmt.Println("\ncrashcheck: FAIL")
		return 1
	}
	fmt.Println("\ncrashcheck: ok: the half line (if any) was dropped and every earlier fact is intact")
	return 0
}

// runChild starts the child, reads the ids it reports until it has n, kills
// it, and returns every id it reported (those printed before the kill
// included) and what it wrote to stderr.
func runChild(path string, n int, timeout time.Duration) (reported []string, stderr string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start the child: %w", err)
	}
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	killed := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		id, ok := strings.CutPrefix(sc.Text(), "committed ")
		if !ok {
			continue
		}
		reported = append(reported, id)
		if len(reported) == n && !killed {
			// Kill, then keep reading: ids already in the pipe were
			// committed before the kill.
			_ = cmd.Process.Kill()
			killed = true
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
		return nil, "", fmt.Errorf("read the child's output: %w", err)
	}
	_ = cmd.Wait() // killed, or it stopped on its own: errBuf says why
	return reported, errBuf.String(), nil
}

// check reopens the file the killed child left and checks what the chapter
// promises.
func check(r *report, path string, reported []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		r.fail("read the session file: %v", err)
		return
	}
	rec, err := session.RecoverJSONL(string(data))
	if err != nil {
		r.fail("RecoverJSONL: %v (a kill may cut a line, but must never leave a committed bad one)", err)
		return
	}
	r.ok("RecoverJSONL: %d committed entries, no committed bad line", len(rec.Entries))

	store, err := session.OpenJSONLSessionStore(session.OSFileIO{}, path)
	if err != nil {
		r.fail("OpenJSONLSessionStore: %v", err)
		return
	}
	entries, err := store.Entries()
	if err != nil {
		r.fail("Entries of the reopened store: %v", err)
		return
	}
	if len(entries) != len(rec.Entries) {
		r.fail("the reopened store holds %d entries, RecoverJSONL found %d", len(entries), len(rec.Entries))
	}
	checkFacts(r, entries, reported)

	var tail *session.Warning
	for i, w := range rec.Warnings {
		if w.Code == session.WarnUnterminatedTail {
			tail = &rec.Warnings[i]
		}
	}
	next := session.SessionEntry{Type: session.EntryMessage, ID: "after-crash", ParentID: lastMessageID(entries),
		Timestamp: 1e9, Message: &session.UserMessage{Content: []session.TextContent{{Text: "after the crash"}}, Timestamp: 1e9}}
	if next.ParentID == "" {
		r.fail("no message was committed before the kill")
		return
	}
	if tail == nil {
		r.ok("the kill landed between two lines: no unterminated tail this time (run again for a half line)")
		if err := store.Append(next).Wait(); err != nil {
			r.fail("Append after the crash on a file without a tail: %v", err)
		} else {
			r.ok("appending to the recovered file works")
		}
		return
	}
	cut := len(data) - (strings.LastIndexByte(string(data), '\n') + 1)
	r.ok("the kill cut line %d: an unterminated tail of %d bytes, which recovery did not parse", tail.Line, cut)
	err = store.Append(next).Wait()
	var nr *session.NeedsRepairError
	switch {
	case errors.As(err, &nr) && errors.Is(err, session.ErrNeedsRepair):
		r.ok("appending is refused as needing repair: %v", err)
	case err == nil:
		r.fail("Append succeeded on a file ending in half a line: the new line is now glued onto it")
	default:
		r.fail("Append on a file ending in half a line = %v; want a *NeedsRepairError", err)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(data) {
		r.fail("the file changed after the refused append: nothing may be truncated or rewritten automatically")
	} else {
		r.ok("the file is unchanged: nothing was truncated or rewritten automatically")
	}
	checkRepair(r, path, data, next)
}

// checkFacts checks that every reported id is committed, in order, and that
// every entry's parent is an earlier entry.
func checkFacts(r *report, entries []session.SessionEntry, reported []string) {
	if len(entries) < len(reported) {
		r.fail("the child reported %d committed entries, the file holds only %d", len(reported), len(entries))
		return
	}
	for i, id := range reported {
		if entries[i].ID != id {
			r.fail("entry %d is %q, but the child's %d-th committed entry was %q", i+1, entries[i].ID, i+1, id)
			return
		}
	}
	r.ok("all %d reported ids are in the file, in the order they were committed", len(reported))
	if extra := len(entries) - len(reported); extra > 0 {
		r.note("(%d more entries were committed but killed before the child could report them)", extra)
	}
	seen := map[string]bool{}
	for i, e := range entries {
		if !e.IsRoot() && !seen[e.ParentID] {
			r.fail("line of entry %q (%d): its parent %q is not an earlier entry", e.ID, i+1, e.ParentID)
			return
		}
		seen[e.ID] = true
	}
	r.ok("every entry's parent is an earlier entry: the tree is intact")
	if last := lastMessageID(entries); last != "" {
		if _, err := session.PathTo(entries, last); err != nil {
			r.fail("PathTo(%q) on the recovered entries: %v", last, err)
		}
	}
}

// lastMessageID returns the id of the last message entry, or "".
func lastMessageID(entries []session.SessionEntry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == session.EntryMessage {
			return entries[i].ID
		}
	}
	return ""
}

// checkRepair repairs a copy of the file with the optional 10.7, if it is
// implemented, and checks that the copy takes appends again.
func checkRepair(r *report, path string, data []byte, next session.SessionEntry) {
	copyPath := strings.TrimSuffix(path, ".jsonl") + "-repaired.jsonl"
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		r.fail("copy the file for the repair: %v", err)
		return
	}
	res, err := session.RepairUnterminatedTail(session.OSRepairFS{}, copyPath)
	if errors.Is(err, session.ErrNotImplemented) {
		r.note("(10.7 RepairUnterminatedTail is not implemented: the repair is not tried)")
		return
	}
	if err != nil {
		r.fail("RepairUnterminatedTail on a copy: %v", err)
		return
	}
	repaired, err := os.ReadFile(copyPath)
	switch {
	case err != nil:
		r.fail("read the repaired copy: %v", err)
		return
	case string(repaired) != string(data[:strings.LastIndexByte(string(data), '\n')+1]):
		r.fail("the repaired copy is not the original up to its last newline")
		return
	}
	r.ok("10.7: a copy was repaired (backup %s, %d bytes cut at line %d)", filepath.Base(res.BackupPath), res.RemovedBytes, res.TailLine)
	store, err := session.OpenJSONLSessionStore(session.OSFileIO{}, copyPath)
	if err != nil {
		r.fail("OpenJSONLSessionStore on the repaired copy: %v", err)
		return
	}
	if err := store.Append(next).Wait(); err != nil {
		r.fail("Append on the repaired copy: %v", err)
		return
	}
	r.ok("10.7: the repaired copy takes appends again")
}
