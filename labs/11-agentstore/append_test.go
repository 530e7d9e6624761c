package agentstore_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// requireOneAppend checks that ops is exactly one AppendFile of one line on
// the session path, and returns the line decoded.
func requireOneAppend(t *testing.T, ops []fsOp, what string) map[string]any {
	t.Helper()
	require.Len(t, ops, 1, "%s made the calls %s; want exactly one AppendFile of its line — lab 11.2: a "+
		"session file is appended to, never rewritten", what, opNames(ops))
	o := ops[0]
	require.Equal(t, "AppendFile", o.Op, "%s called %s; want AppendFile: rewriting the whole file on every save "+
		"costs more the longer the session gets, and a crash in the middle loses all of it", what, o)
	require.Equal(t, sessPath, o.Path, "%s appended to the wrong file", what)
	return decodeLine(t, o.Data, what)
}

// Rule 11.2.1, 11.2.2: the first message is a root, each next one a child
// of the leaf; each is one appended line; the leaf moves.
func TestLab11_2_AppendChainsOnTheLeaf(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	fx.clock.set("2025-03-14T09:30:00.250Z")

	mark := fx.fs.mark()
	id1 := mustAppend(t, s, user("list the files"))
	assert.Equal(t, "e1", id1, "AppendMessage returns the id NewEntryID gave")
	line := requireOneAppend(t, fx.fs.opsSince(mark), "the first AppendMessage")
	assert.Equal(t, map[string]any{
		"type": "message", "id": "e1", "parentId": nil, "timestamp": "2025-03-14T09:30:00.250Z",
		"message": jsonValue(t, string(user("list the files"))),
	}, line, "the line of the first message: a root (parentId null), stamped with Now() in UTC")
	assert.Equal(t, "e1", leafOf(t, s), "the leaf moves to the appended entry")

	mark = fx.fs.mark()
	id2 := mustAppend(t, s, assistant("README.md"))
	line = requireOneAppend(t, fx.fs.opsSince(mark), "the second AppendMessage")
	assert.Equal(t, "e1", line["parentId"], "the second message's parentId is the leaf (the first message)")
	assert.Equal(t, id2, line["id"])
	assert.Equal(t, id2, leafOf(t, s))

	e, ok := entryOf(t, s, id2)
	require.True(t, ok, "Entry(%q) right after appending it", id2)
	assert.Equal(t, agentstore.Entry{Type: "message", ID: id2, ParentID: id1, Timestamp: "2025-03-14T09:30:00.250Z",
		Message: assistant("README.md")}, e)
	assert.Equal(t, headerLine("s1", T0, sessCwd)+string(fx.fs.opsSince(mark - 1)[0].Data)+string(fx.fs.opsSince(mark)[0].Data),
		fx.fs.file(sessPath), "the file is the header and the two lines, in order")
}

// Rule 11.2.2: appending to an existing file only ever appends: the old
// bytes stay a prefix, and no call writes, renames or removes.
func TestLab11_2_AppendsNeverRewrite(t *testing.T) {
	fx := newFixture()
	before := threeEntries()
	fx.fs.setFile(sessPath, before)
	s := mustOpen(t, fx.opts(), "three-entry file")
	mark := fx.fs.mark()
	for i := 0; i < 3; i++ {
		mustAppend(t, s, user(fmt.Sprintf("message %d", i)))
	}
	ops := fx.fs.opsSince(mark)
	require.Len(t, ops, 3, "three AppendMessage calls made the calls %s; want three AppendFile calls and nothing else", opNames(ops))
	for i, o := range ops {
		assert.Equal(t, "AppendFile", o.Op, "call %d of three appends was %s: each save appends its own line, "+
			"never writes the whole file", i+1, o)
		decodeLine(t, o.Data, fmt.Sprintf("the data of call %d of three appends (%s)", i+1, o.Op))
	}
	after := fx.fs.file(sessPath)
	require.True(t, strings.HasPrefix(after, before), "the file before the appends must be a prefix of the file after")
	assert.Equal(t, 3, strings.Count(after[len(before):], "\n"), "three appends add three lines")

	again := mustOpen(t, fx.opts(), "the same file, reopened")
	assert.Equal(t, leafOf(t, s), leafOf(t, again), "reopening finds the leaf the store had")
}

// Rule 11.2.1: timestamps are UTC, whatever zone the clock reports in.
func TestLab11_2_TimestampIsUTC(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	fx.clock.set("2025-12-31T23:59:59.999Z") // the clock says 2026-01-01 07:59:59.999 in UTC+8
	mark := fx.fs.mark()
	id := mustAppend(t, s, user("happy new year"))
	line := requireOneAppend(t, fx.fs.opsSince(mark), "AppendMessage")
	assert.Equal(t, "2025-12-31T23:59:59.999Z", line["timestamp"],
		"timestamp: Now().UTC().Format(TimeFormat); the fake clock reports in UTC+8")
	e, _ := entryOf(t, s, id)
	assert.Equal(t, "2025-12-31T23:59:59.999Z", e.Timestamp)
}

// Rule 11.2.1: an id that is empty or already in the file is not used; the
// store asks again. This is the trap of a counter that starts again at 1
// after a restart.
func TestLab11_2_TakenOrEmptyIDsAreSkipped(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("e1", "", user("hi"))+msgLine("e2", "e1", assistant("hello")))
	s := mustOpen(t, fx.opts(), "file with e1 and e2")
	fx.ids.then("", "e2") // then the counter: e1 (taken), e2 (taken), e3
	id := mustAppend(t, s, user("again"))
	assert.Equal(t, "e3", id, "NewEntryID gave \"\", \"e2\", \"e1\", \"e2\", \"e3\": the first id neither empty nor "+
		"in the file is e3 (ids handed out: %v)", fx.ids.handedOut())
	assert.Equal(t, []string{"", "e2", "e1", "e2", "e3"}, fx.ids.handedOut(), "ask again only while the id is empty or taken")
	e, _ := entryOf(t, s, "e3")
	assert.Equal(t, "e2", e.ParentID)
}

// Rule 11.2.1: a generator that never gives a free id is given up on after
// MaxIDAttempts, with nothing written.
func TestLab11_2_NoFreeIDWritesNothing(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("hi"))
	taken := make([]string, agentstore.MaxIDAttempts+5)
	for i := range taken {
		taken[i] = "e1"
	}
	fx.ids.then(taken...)
	before := len(fx.ids.handedOut())
	mark := fx.fs.mark()
	_, err := appendMsg(t, s, user("again"))
	assert.True(t, errors.Is(err, agentstore.ErrNoFreeID), "AppendMessage when NewEntryID only gives taken ids = %s; want ErrNoFreeID", describe(err))
	assert.Equal(t, agentstore.MaxIDAttempts, len(fx.ids.handedOut())-before, "NewEntryID is asked MaxIDAttempts times, then the store gives up")
	assert.Empty(t, fx.fs.opsSince(mark), "nothing is written without an id")
	assert.Equal(t, "e1", leafOf(t, s))
}

// Rule 11.2.3, 11.2.5: a message that is not one is refused at once, with
// nothing written and nothing changed, and the store goes on working.
func TestLab11_2_InvalidMessageChangesNothing(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"))
	for _, tc := range []struct {
		name string
		msg  string
		is   error
	}{
		{"not JSON", `{"role":"user",`, nil},
		{"an array", `[{"role":"user"}]`, nil},
		{"no role", `{"content":"hi"}`, nil},
		{"the compaction summary role", `{"role":"compactionSummary","summary":"s","tokensBefore":1,"timestamp":0}`, agentstore.ErrReservedRole},
		{"the branch summary role", `{"role":"branchSummary","summary":"s","fromId":"a","timestamp":0}`, agentstore.ErrReservedRole},
	} {
		mark := fx.fs.mark()
		_, err := appendMsg(t, s, agentstore.Message(tc.msg))
		require.Error(t, err, "AppendMessage(%s) (%s) must be refused", tc.msg, tc.name)
		if tc.is != nil {
			assert.True(t, errors.Is(err, tc.is), "AppendMessage(%s) = %s; want errors.Is(err, ErrReservedRole): a "+
				"summary, of a compaction or of a branch, is an entry of its own and only a built context holds it as a "+
				"message; a message that claims the role could not be told from a real one", tc.msg, describe(err))
		} else {
			var fe *agentstore.FieldError
			assert.True(t, errors.As(err, &fe), "AppendMessage(%s) = %s; want the *FieldError of ParseMessage", tc.msg, describe(err))
		}
		assert.Empty(t, fx.fs.opsSince(mark), "a refused message (%s) writes nothing", tc.name)
		assert.Equal(t, got[0], leafOf(t, s), "a refused message (%s) leaves the leaf where it was", tc.name)
	}
	id := mustAppend(t, s, assistant("still working"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, got[0], e.ParentID, "after refused messages the next append goes on from the same leaf")
}

// Rule 11.2.3: the message is checked first, whatever the store's state: a
// store that cannot write still names what is wrong with the message.
func TestLab11_2_InvalidMessageIsNamedInAnyState(t *testing.T) {
	tail := newFixture()
	tail.fs.setFile(sessPath, threeEntries()+`{"type":"message","id":"d","par`)
	overTail := mustOpen(t, tail.opts(), "file with a tail on line 5")

	taint := newFixture()
	tainted, _ := newStoreWith(t, taint, user("hi"))
	taint.fs.fail("AppendFile", fsFailure{Err: errors.New("no space left on device"), Written: -1})
	_, err := appendMsg(t, tainted, assistant("half written"))
	require.Error(t, err, "AppendMessage when AppendFile fails")

	for _, st := range []struct {
		state string
		fx    *fixture
		s     *agentstore.Store
	}{{"opened over a tail", tail, overTail}, {"tainted by a failed write", taint, tainted}} {
		mark := st.fx.fs.mark()
		_, err := appendMsg(t, st.s, agentstore.Message(`{"content":"no role"}`))
		var fe *agentstore.FieldError
		assert.True(t, errors.As(err, &fe), "AppendMessage of a message without a role, on a store %s = %s; want "+
			"ParseMessage's *FieldError: the message is checked first, in any state (the store's refusal comes after)",
			st.state, describe(err))
		_, err = appendMsg(t, st.s, agentstore.Message(`{"role":"compactionSummary","summary":"s","tokensBefore":1,"timestamp":0}`))
		assert.True(t, errors.Is(err, agentstore.ErrReservedRole), "AppendMessage of a compactionSummary message, on "+
			"a store %s = %s; want errors.Is(err, ErrReservedRole): the message is checked first, in any state",
			st.state, describe(err))
		assert.Empty(t, st.fx.fs.opsSince(mark), "a refused message writes nothing (store %s)", st.state)
	}
}

// Rule 11.2.3: the message is copied at call time, and written compact.
func TestLab11_2_MessageIsCopiedAtCallTime(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	mine := agentstore.Message("{\n  \"role\": \"user\",\n  \"content\": \"hi\"\n}")
	mark := fx.fs.mark()
	id := mustAppend(t, s, mine)
	line := requireOneAppend(t, fx.fs.opsSince(mark), "AppendMessage of an indented message")
	assert.Equal(t, map[string]any{"role": "user", "content": "hi"}, line["message"])
	copy(mine, "XXXXXXXXXXXXXXXXXXXXXX")
	e, ok := entryOf(t, s, id)
	require.True(t, ok)
	assert.Equal(t, `{"role":"user","content":"hi"}`, string(e.Message),
		"the stored message is the compact copy made at call time (ParseMessage): the caller overwrote its own "+
			"bytes afterwards, and that must change nothing in the store")
}

// Rule 11.2.4: a store opened over an unterminated tail refuses to write,
// without touching the file, and still reads; a tail of white space only is
// a tail too.
func TestLab11_2_TailRefusesWrites(t *testing.T) {
	for _, tc := range []struct{ name, tail, why string }{
		{"half an entry", `{"type":"message","id":"d","par`, "appending now would glue the new line onto the half " +
			"one, and the file could no longer be read"},
		{"only white space", " \t", "a line without \"\\n\" was never committed, whatever it holds: the store does not " +
			"guess what it was going to be, and the line it appended would not be exactly its own (11.2.2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			text := threeEntries() + tc.tail
			fx.fs.setFile(sessPath, text)
			s := mustOpen(t, fx.opts(), fmt.Sprintf("file with a tail on line 5, %q", tc.tail))
			mark := fx.fs.mark()
			for i := 0; i < 2; i++ {
				_, err := appendMsg(t, s, assistant("after the tail"))
				var nr *agentstore.NeedsRepairError
				require.True(t, errors.As(err, &nr), "AppendMessage over a file ending in %s (%q, no \"\\n\") = %s; want a "+
					"*NeedsRepairError: %s", tc.name, tc.tail, describe(err), tc.why)
				assert.Equal(t, agentstore.NeedsRepairError{Path: sessPath, Line: 5}, *nr, "the *NeedsRepairError names "+
					"the path and the tail's line")
			}
			assert.Empty(t, fx.fs.opsSince(mark), "a refused write touches nothing")
			assert.Equal(t, text, fx.fs.file(sessPath))
			assert.Equal(t, "c", leafOf(t, s), "reading still works")
		})
	}
}

// Rule 11.2.4: a failed write is returned, commits nothing, and taints the
// store: every later write is refused without I/O.
func TestLab11_2_FailedWriteTaints(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"))
	diskFull := errors.New("no space left on device")
	fx.fs.fail("AppendFile", fsFailure{Err: diskFull, Written: -1})
	_, err := appendMsg(t, s, assistant("a long answer that only half reaches the disk"))
	assert.True(t, errors.Is(err, diskFull), "AppendMessage when AppendFile fails = %s; want that error", describe(err))
	assert.Equal(t, got[0], leafOf(t, s), "a failed write must not move the leaf: the entry was never committed")
	_, ok := entryOf(t, s, "e2")
	assert.False(t, ok, "a failed write must not index the entry")

	mark := fx.fs.mark()
	for i := 0; i < 2; i++ {
		_, err := appendMsg(t, s, assistant("retry"))
		var te *agentstore.TaintedError
		require.True(t, errors.As(err, &te), "AppendMessage after a failed write = %s; want a *TaintedError: the "+
			"file may end in half a line now, so this store stops writing", describe(err))
		assert.True(t, errors.Is(err, diskFull) && errors.Is(err, agentstore.ErrTainted),
			"the *TaintedError carries the first write's error")
		assert.True(t, te.Err == diskFull, "AppendMessage after a failed write: TaintedError.Err = %s; want the very "+
			"error AppendFile returned (%s): remember that error itself, not the wrapper the failed append returned "+
			"(errors.Is sees through a wrapper, a reader of TaintedError.Err does not)", describe(te.Err), describe(diskFull))
	}
	assert.Empty(t, fx.fs.opsSince(mark), "a tainted store makes no call at all")
	assert.Equal(t, got, chainOf(t, s), "reading still works: Leaf and Entry answer as before the failed write")
}

// Rule 11.2.5: appends from many goroutines form one chain; the race
// detector checks the store's memory (go test -race).
func TestLab11_2_ConcurrentAppendsFormOneChain(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	const writers, each = 8, 20
	var wg sync.WaitGroup
	var caught panics
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, in one of 8 goroutines appending at once,")
			for i := 0; i < each; i++ {
				if _, err := s.AppendMessage(user(fmt.Sprintf("writer %d message %d", w, i))); err != nil {
					errs <- err
				}
			}
		}(w)
		go func() { // a reader beside each writer
			defer wg.Done()
			defer caught.catch("Leaf or Entry, beside 8 goroutines appending,")
			for i := 0; i < each; i++ {
				if leaf := s.Leaf(); leaf != "" {
					if _, ok := s.Entry(leaf); !ok {
						errs <- fmt.Errorf("Entry(Leaf()) found nothing for leaf %q", leaf)
					}
				}
			}
		}()
	}
	within(t, "8 writers and 8 readers", func() bool { wg.Wait(); return true })
	caught.check(t)
	close(errs)
	for err := range errs {
		t.Errorf("concurrent use: %s", describe(err))
	}

	lines := strings.Split(strings.TrimSuffix(fx.fs.file(sessPath), "\n"), "\n")[1:]
	require.Len(t, lines, writers*each, "every append is one line")
	prev := any(nil)
	seen := map[any]bool{}
	for i, l := range lines {
		v := decodeLine(t, []byte(l+"\n"), fmt.Sprintf("line %d", i+2))
		assert.Equal(t, prev, v["parentId"], "line %d: in a file written by concurrent appends, each entry's "+
			"parent must be the entry of the line before it; two appends that read the same leaf fork the "+
			"history — hold the lock from reading the leaf to moving it", i+2)
		assert.False(t, seen[v["id"]], "line %d repeats the id %v", i+2, v["id"])
		seen[v["id"]] = true
		prev = v["id"]
	}
	assert.Equal(t, prev, leafOf(t, s), "the leaf is the last line's entry")
}

// Rule 11.2.4, 11.2.5: appends from goroutines started together, while one
// of them fails its write: exactly one gets the write's error, the ones that
// come after it are refused as tainted, the ones before form one chain, and
// the race detector (go test -race) finds nothing: the store decides whether
// it may write under its lock, where the failed write recorded why not.
func TestLab11_2_FailedWriteAmongConcurrentAppends(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("start"))
	diskFull := errors.New("no space left on device")
	fx.fs.fail("AppendFile", fsFailure{Err: diskFull, Written: -1}) // the next append of the burst fails
	const n = 16
	msgs := make([]agentstore.Message, n)
	for i := range msgs {
		msgs[i] = assistant(fmt.Sprintf("reply %d", i)) // made here: fmt's buffer pool orders goroutines for the race detector
	}
	ids := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	var caught panics
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, in one of 16 goroutines appending at once,")
			<-start
			ids[i], errs[i] = s.AppendMessage(msgs[i])
		}(i)
	}
	close(start)
	within(t, "16 concurrent appends, one of them failing", func() bool { wg.Wait(); return true })
	caught.check(t)

	failed, tainted := 0, 0
	for i, err := range errs {
		var te *agentstore.TaintedError
		switch {
		case err == nil:
		case errors.As(err, &te):
			tainted++
			assert.True(t, te.Err == diskFull, "append %d: TaintedError.Err = %s; want the failed write's own error", i, describe(te.Err))
		case errors.Is(err, diskFull):
			failed++
		default:
			t.Errorf("append %d = %s; want nil, the write's error or a *TaintedError", i, describe(err))
		}
	}
	assert.Equal(t, 1, failed, "exactly one of the concurrent appends made the write that failed; errors: %v", errs)
	assert.Equal(t, n-1, tainted, "the write that failed was the first of the burst: every other append, before or "+
		"after it got the lock, is refused with a *TaintedError; errors: %v", errs)
	assert.Equal(t, got, chainOf(t, s), "nothing of the burst was committed: the leaf and the chain are as before")
}
