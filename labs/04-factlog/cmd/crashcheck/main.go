// Command crashcheck is chapter 4's real test: write a log, crash in the
// middle of a line, recover, and see that the half line is dropped and every
// earlier fact is intact. Run it in your lab directory once 4.1 to 4.3 pass:
//
//	go run ./cmd/crashcheck            # kill a writer after 200 committed entries
//	go run ./cmd/crashcheck -keep      # and keep the log to look at
//
// The program runs twice. The parent starts this same program again as a
// child (the CRASHCHECK_LOG environment variable names the log file). The
// child opens your SessionLog over a real file and appends a conversation as
// fast as it can, printing each id once Append has returned nil. It writes
// every line in two halves with a pause between them, as a slow disk may,
// and says when a first half is on disk. Once -n ids were committed, the
// parent kills the child (SIGKILL on Unix: no clean-up runs) in the next
// such pause, then reads the file with your Recover and checks:
//
//   - no committed line is bad: a crash cuts a line, it never damages one;
//   - every id the child reported is in the log, in order, and the active
//     path to the last entry (your PathTo) leads back to the first one;
//   - if the kill cut a line, Recover drops it and reports it as the Tail,
//     and a SessionLog opened over that recovery refuses to append without
//     writing a byte; if the kill fell between two lines, appending works.
//
// The kill is aimed at the pause, but where it lands is up to the machine:
// the report says which it was. Then the parent checks the other case in a
// copy of the log cut after its last complete line, as a crash between two
// lines leaves it: Recover finds no tail, and appending works again.
//
// Exit status 0: every check held; 1: one did not (the report says which);
// 2: the check itself could not run.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// childEnv marks the child and names its log file.
const childEnv = "CRASHCHECK_LOG"

func main() {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	n := flag.Int("n", 200, "kill the child after it has reported `N` committed entries")
	keep := flag.Bool("keep", false, "keep the log files and print where they are")
	timeout := flag.Duration("timeout", time.Minute, "give up if the child has not reported -n entries by then")
	flag.Parse()
	if *n < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(parent(*n, *keep, *timeout))
}

// ---- the child: append until killed -----------------------------------------

// inHalves returns a WriteFunc that writes each line in two calls to write,
// and between them says so on stdout and pauses: a kill in the pause leaves
// half a line.
func inHalves(write factlog.WriteFunc, pause time.Duration) factlog.WriteFunc {
	return func(p []byte) error {
		half := len(p) / 2
		if err := write(p[:half]); err != nil {
			return err
		}
		fmt.Fprintln(os.Stdout, "half")
		time.Sleep(pause)
		return write(p[half:])
	}
}

func child(path string) int {
	log := factlog.OpenSessionLog(inHalves(factlog.AppendToFile(path), 5*time.Millisecond), factlog.Recovery{})
	var c conversation
	for k := 1; k <= 1_000_000; k++ { // the parent kills us long before
		e := c.next(k)
		if err := log.Append(e); err != nil {
			fmt.Fprintf(os.Stderr, "child: Append(%s): %v\n", e.ID, err)
			return 1
		}
		// Unbuffered: the parent sees the id as soon as Append returned.
		if _, err := fmt.Fprintln(os.Stdout, "committed", e.ID); err != nil {
			return 1 // the parent is gone
		}
	}
	return 0
}

// conversation makes a plausible history: a user turn, the assistant's tool
// call, the tool's result, the answer; now and then the answer is rerun,
// which grows a second branch under the user turn.
type conversation struct {
	leaf, lastUser string
}

func (c *conversation) next(k int) factlog.Entry {
	id := fmt.Sprintf("e%05d", k)
	text := fmt.Sprintf("entry %d of the crash check, %s", k, strings.Repeat("the quick brown fox ", 3))
	e := factlog.Entry{ID: id, ParentID: c.leaf, Text: text}
	switch k % 4 {
	case 1:
		e.Type = factlog.TypeUser
		c.lastUser = id
	case 2:
		e.Type = factlog.TypeAssistant
		e.Text = "calling ls: " + text
	case 3:
		e.Type = factlog.TypeTool
		e.Text = "README.md\ngo.mod\n" + text
	case 0:
		e.Type = factlog.TypeAssistant
		if k%12 == 0 { // a rerun: a new answer under the same user turn
			e.ParentID = c.lastUser
			e.Text = "rerun: " + text
		}
	}
	c.leaf = id
	return e
}

// ---- the parent: kill the child, then check ---------------------------------

// report prints the checks and remembers whether one failed.
type report struct{ failed bool }

func (r *report) ok(format string, args ...any) { fmt.Printf("  ok    "+format+"\n", args...) }

func (r *report) fail(format string, args ...any) {
	r.failed = true
	fmt.Printf("  FAIL  "+format+"\n", args...)
}

func (r *report) note(format string, args ...any) { fmt.Printf("        "+format+"\n", args...) }

func parent(n int, keep bool, timeout time.Duration) int {
	dir, err := os.MkdirTemp("", "crashcheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, "facts.jsonl")
	fmt.Printf("crashcheck: a child appends to %s and is killed after %d committed entries\n", path, n)
	reported, childErr, err := runChild(path, n, timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}
	var r report
	if len(reported) < n {
		r.fail("the child stopped after %d committed entries, before it was killed: %s", len(reported), strings.TrimSpace(childErr))
		fmt.Println("\ncrashcheck: FAIL")
		return 1
	}
	r.ok("the child reported %d committed entries, then was killed mid-stream", len(reported))
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}
	clean := filepath.Join(dir, "clean.jsonl")
	if err := os.WriteFile(clean, data[:strings.LastIndexByte(string(data), '\n')+1], 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "crashcheck:", err)
		return 2
	}

	fmt.Println("\nthe crash:")
	checkCrash(&r, path, reported, true)
	fmt.Println("\na crash between two lines (a copy cut after its last complete line):")
	checkCrash(&r, clean, reported, false)

	if keep {
		fmt.Printf("\nkept %s\n", dir)
	}
	if r.failed {
		fmt.Println("\ncrashcheck: FAIL")
		return 1
	}
	fmt.Println("\ncrashcheck: ok: the half line was dropped and every earlier fact is intact")
	return 0
}

// runChild starts the child, reads the ids it reports until it has n, kills
// it when it next says a half line is on disk, and returns every id it
// reported (those still in the pipe after the kill included) and what it
// wrote to stderr.
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
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		if sc.Text() == "half" && len(reported) >= n && !killed {
			_ = cmd.Process.Kill() // then keep reading: ids in the pipe were committed before the kill
			killed = true
		}
		if id, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			reported = append(reported, id)
		}
	}
	_ = cmd.Wait() // killed, or it stopped on its own: errBuf says why
	return reported, errBuf.String(), nil
}

// checkCrash recovers the log at path, which a crash left, and checks what
// the chapter promises. reported are the ids known to be committed. If
// torn, the crash was aimed inside a line (but may have missed).
func checkCrash(r *report, path string, reported []string, torn bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		r.fail("read the log: %v", err)
		return
	}
	rec, err := factlog.Recover(string(data))
	if err != nil {
		r.fail("Recover: %v (a crash may cut a line, but it never leaves a committed bad one)", err)
		return
	}
	r.ok("Recover: %d committed entries, no bad committed line", len(rec.Entries))
	if !checkFacts(r, rec.Entries, reported) {
		return
	}

	next := factlog.Entry{Type: factlog.TypeUser, ID: "after-the-crash", ParentID: lastID(rec.Entries), Text: "hello again"}
	if rec.Tail == nil {
		if torn {
			r.ok("the kill missed the pause and fell between two lines: no tail (run again to see a torn line)")
		} else {
			r.ok("no tail: the log ends in a newline")
		}
		log := factlog.OpenSessionLog(factlog.AppendToFile(path), rec)
		if err := log.Append(next); err != nil {
			r.fail("Append after the crash, on a log without a tail: %v", err)
			return
		}
		if again, err := os.ReadFile(path); err != nil {
			r.fail("read the log again: %v", err)
		} else if rec2, err := factlog.Recover(string(again)); err != nil || len(rec2.Entries) != len(rec.Entries)+1 {
			r.fail("after one more Append, Recover gives %d entries (error %v), want %d", len(rec2.Entries), err, len(rec.Entries)+1)
		} else {
			r.ok("appending to the recovered log works, and the new line recovers too")
		}
		return
	}

	cut := len(data) - (strings.LastIndexByte(string(data), '\n') + 1)
	switch {
	case rec.Tail.Bytes != cut:
		r.fail("Recover's Tail says %d bytes, but %d bytes follow the last newline", rec.Tail.Bytes, cut)
	case rec.Tail.Line != strings.Count(string(data), "\n")+1:
		r.fail("Recover's Tail says line %d, but the torn line is line %d", rec.Tail.Line, strings.Count(string(data), "\n")+1)
	default:
		r.ok("the torn line %d (%d bytes) was dropped and reported as the Tail", rec.Tail.Line, rec.Tail.Bytes)
	}
	writes := 0
	log := factlog.OpenSessionLog(func(p []byte) error { writes++; return factlog.AppendToFile(path)(p) }, rec)
	err = log.Append(next)
	switch {
	case err == nil:
		r.fail("Append on a log that ends in half a line succeeded: the new line is now glued onto the torn one")
	case !errors.Is(err, factlog.ErrTainted) || !errors.Is(err, factlog.ErrUnterminatedTail):
		r.fail("Append on a log that ends in half a line = %v; want a *TaintedError caused by the tail", err)
	case writes > 0:
		r.fail("Append was refused, but it called the write function %d times", writes)
	default:
		r.ok("a SessionLog opened over it refuses to append: %v", err)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(data) {
		r.fail("the log changed after the refused append")
	} else {
		r.ok("the log is unchanged: nothing was written after the torn line")
	}
}

// checkFacts checks that every reported id is committed, in order, and that
// the active path to the last entry leads back to the first one.
func checkFacts(r *report, entries []factlog.Entry, reported []string) bool {
	if len(entries) < len(reported) {
		r.fail("%d ids were reported committed, the log holds only %d entries", len(reported), len(entries))
		return false
	}
	for i, id := range reported {
		if entries[i].ID != id {
			r.fail("entry %d is %q, but the %d-th committed id was %q", i+1, entries[i].ID, i+1, id)
			return false
		}
	}
	r.ok("all %d committed ids are in the log, in the order they were committed", len(reported))
	if extra := len(entries) - len(reported); extra > 0 {
		r.note("(%d more line was committed but the child was killed before it could say so)", extra)
	}
	last := lastID(entries)
	path, err := factlog.PathTo(entries, last)
	switch {
	case err != nil:
		r.fail("PathTo(recovered entries, %q): %v", last, err)
		return false
	case len(path) == 0 || path[0].ID != entries[0].ID || path[len(path)-1].ID != last:
		r.fail("PathTo(recovered entries, %q) = %d entries from %q; want a path from %q to %q", last, len(path),
			firstID(path), entries[0].ID, last)
		return false
	}
	r.ok("PathTo(%q) leads back through %d entries to the first one: the tree is whole", last, len(path))
	return true
}

func ids(entries []factlog.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

func lastID(entries []factlog.Entry) string {
	if len(entries) == 0 {
		return ""
	}
	return entries[len(entries)-1].ID
}

func firstID(entries []factlog.Entry) string {
	if len(entries) == 0 {
		return ""
	}
	return entries[0].ID
}
