package agentstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// estimate is the handout's token estimate, written out for the tests: the
// bytes of each message divided by 4, rounded up, summed.
func estimate(ms []agentstore.Message) int {
	n := 0
	for _, m := range ms {
		n += (len(m) + 3) / 4
	}
	return n
}

// sixMessages is a conversation of six messages of different lengths.
func sixMessages() []agentstore.Message {
	return []agentstore.Message{
		user("list the files"), assistant("README.md, go.mod and main.go"),
		user("read README.md"), assistant("It says: a tiny teaching agent."),
		user("write a note"), assistant("Done: note.md"),
	}
}

// Rule 11.5.1: the estimate counts bytes, rounds up, and rounds each
// message on its own.
func TestLab11_5_EstimateTokensIsBytesOverFourRoundedUp(t *testing.T) {
	for _, tc := range []struct {
		msgs []string
		want int
		why  string
	}{
		{nil, 0, "no messages, no tokens"},
		{[]string{`{"role":"u"}`}, 3, "12 bytes / 4 = 3"},
		{[]string{`{"role":"ab"}`}, 4, "13 bytes / 4 = 3.25, rounded up to 4"},
		{[]string{`{"role":"汉字"}`}, 5, "汉 and 字 are 3 bytes each in UTF-8: 17 bytes (5 tokens), not 13 characters (4)"},
		{[]string{`{"role":"ab"}`, `{"role":"cd"}`}, 8, "each message is rounded up on its own: 4 + 4, not ceil(26/4) = 7"},
	} {
		msgs := make([]agentstore.Message, len(tc.msgs))
		for i, m := range tc.msgs {
			msgs[i] = agentstore.Message(m)
		}
		got := within(t, "EstimateTokens", func() int { return agentstore.EstimateTokens(msgs) })
		assert.Equal(t, tc.want, got, "EstimateTokens(%q): %s", tc.msgs, tc.why)
	}
}

// Rule 11.5.2: at or under the budget, or with too few messages, nothing
// happens; keepRecent must be at least 1.
func TestLab11_5_UnderBudgetWritesNothing(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	total := estimate(msgs)
	mark := fx.fs.mark()

	id, err := compact(t, s, total, 2)
	assert.NoError(t, err)
	assert.Equal(t, "", id, "CompactIfNeeded(%d, 2) with a context of exactly %d estimated tokens: at the budget is not over it", total, total)
	id, err = compact(t, s, 0, 6)
	assert.NoError(t, err)
	assert.Equal(t, "", id, "CompactIfNeeded(0, 6) with six messages: keeping six leaves nothing to summarize")
	for _, keep := range []int{0, -1} {
		_, err = compact(t, s, 0, keep)
		assert.True(t, errors.Is(err, agentstore.ErrInvalidArgument), "CompactIfNeeded(0, %d) = %s; want ErrInvalidArgument: "+
			"a compaction keeps at least one message, whose id is its firstKeptEntryId", keep, describe(err))
	}
	assert.Empty(t, fx.fs.opsSince(mark), "no compaction, no write")
	assert.Empty(t, fx.sum.recorded(), "no compaction, no summary")
	assert.Equal(t, got[5], leafOf(t, s))
}

// Rule 11.5.3: over the budget, one compaction entry is appended: its own
// type, summary of the older messages, the first kept id, tokensBefore.
func TestLab11_5_CompactionEntryHasItsOwnType(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	fx.sum.scribble = true // a careless summarizer overwrites what it is given
	fx.clock.set("2025-03-14T10:00:00.000Z")
	total := estimate(msgs)
	mark := fx.fs.mark()

	id, err := compact(t, s, total-1, 2)
	require.NoError(t, err, "CompactIfNeeded(%d, 2) over a context of %d tokens", total-1, total)
	require.NotEmpty(t, id, "CompactIfNeeded over the budget returns the compaction's id")
	line := requireOneAppend(t, fx.fs.opsSince(mark), "CompactIfNeeded")
	assert.Equal(t, map[string]any{
		"type": "compaction", "id": id, "parentId": got[5], "timestamp": "2025-03-14T10:00:00.000Z",
		"summary": "summary 1", "firstKeptEntryId": got[4], "tokensBefore": float64(total),
	}, line, "the compaction line: type \"compaction\" (never a message: a summary stored as an assistant message "+
		"could not be told apart from something the model said), firstKeptEntryId the first of the 2 kept messages, "+
		"tokensBefore the estimate of the context before")
	assert.Equal(t, id, leafOf(t, s), "the leaf moves to the compaction entry")

	calls := fx.sum.recorded()
	require.Len(t, calls, 1, "Summarize is called once")
	assert.Equal(t, summaryCall{Previous: "", Messages: strs(msgs[:4])}, calls[0],
		"Summarize gets the previous summary (none yet) and the messages before the last keepRecent, oldest first")
	for i, m := range msgs {
		e, _ := entryOf(t, s, got[i])
		assert.Equal(t, string(m), string(e.Message), "message %d: Summarize must get copies; the fake overwrote "+
			"the bytes it was given and the store's messages must not change", i+1)
	}
}

// Rule 11.5.4: compaction deletes nothing: the file only grows by one line
// and every summarized entry is still there.
func TestLab11_5_CompactionDeletesNothing(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, sixMessages()...)
	before := fx.fs.file(sessPath)
	mark := fx.fs.mark()
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	ops := fx.fs.opsSince(mark)
	for _, o := range ops {
		assert.Equal(t, "AppendFile", o.Op, "CompactIfNeeded called %s: deleting the summarized lines loses the "+
			"audit trail and any way to rebuild the context; the compaction is one more line", o)
	}
	after := fx.fs.file(sessPath)
	require.True(t, strings.HasPrefix(after, before), "the file before compaction must be a prefix of the file after")
	assert.Equal(t, 1, strings.Count(after[len(before):], "\n"), "compaction appends exactly one line")
	assert.Equal(t, append(append([]string(nil), got...), id), ids(pathOf(t, s)),
		"PathToLeaf after compaction still holds every message entry, then the compaction")
	for _, old := range got[:4] {
		_, ok := entryOf(t, s, old)
		assert.True(t, ok, "Entry(%q): a summarized entry stays in the store", old)
	}
}

// Rule 11.5.5: after a compaction the context is its summary, then the
// kept messages, then what came after; reopening builds the same.
func TestLab11_5_ContextAfterCompaction(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, _ := newStoreWith(t, fx, msgs...)
	fx.clock.set("2025-03-14T10:00:00.000Z")
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	require.NotEmpty(t, id, "CompactIfNeeded(0, 2) over six messages returned no id and no error")
	// The compaction this test expects, built from what the test knows: the
	// fake summarizer's first summary, the estimate of the six messages, the
	// clock. (The store's entry is not read: a wrong one would make a wrong
	// expectation.)
	summary := agentstore.CompactionSummaryMessage(agentstore.Entry{Type: agentstore.TypeCompaction,
		Summary: "summary 1", TokensBefore: estimate(msgs), Timestamp: "2025-03-14T10:00:00.000Z"})
	want := []agentstore.Message{summary, msgs[4], msgs[5]}
	assert.Equal(t, strs(want), strs(contextOf(t, s)),
		"BuildContext after CompactIfNeeded(0, 2) over six messages: first CompactionSummaryMessage of the compaction "+
			"entry (role %s, the summary Summarize gave, tokensBefore, its time), then the 2 kept messages. A summary "+
			"written as an assistant message, or as a message at all, gives another first message",
		agentstore.RoleCompactionSummary)

	next := user("and now?")
	mustAppend(t, s, next)
	want = append(want, next)
	assert.Equal(t, strs(want), strs(contextOf(t, s)), "messages appended after the compaction follow the kept ones")
	assert.Equal(t, agentstore.RoleCompactionSummary, contextOf(t, s)[0].Role(), "the summary is not an assistant message")

	again := mustOpen(t, fx.opts(), "the file, reopened")
	assert.Equal(t, strs(want), strs(contextOf(t, again)), "a reopened store builds the same context from the same lines")
}

// Rule 11.5.3, 11.5.5: a second compaction summarizes on top of the first,
// and the latest compaction on the path wins.
func TestLab11_5_LatestCompactionWins(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	_, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	more := []agentstore.Message{user("one more"), assistant("sure")}
	got = append(got, mustAppend(t, s, more[0]), mustAppend(t, s, more[1]))

	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	require.NotEmpty(t, id, "a second compaction over the budget")
	calls := fx.sum.recorded()
	require.Len(t, calls, 2)
	assert.Equal(t, summaryCall{Previous: "summary 1", Messages: strs(msgs[4:6])}, calls[1],
		"the second Summarize gets the first summary and the messages of the current context before the last 2 "+
			"(the kept messages of the first compaction): what was summarized before is not summarized again")
	c, _ := entryOf(t, s, id)
	assert.Equal(t, got[6], c.FirstKeptEntryID)
	assert.Equal(t, strs([]agentstore.Message{agentstore.CompactionSummaryMessage(c), more[0], more[1]}), strs(contextOf(t, s)),
		"with two compactions on the path, the latest one builds the context")
}

// piMessage returns the message of the pi file's entry id, as in its line.
func piMessage(t *testing.T, id string) string {
	t.Helper()
	for _, line := range strings.Split(piSession, "\n") {
		var v struct {
			ID      string          `json:"id"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal([]byte(line), &v) == nil && v.ID == id {
			return string(v.Message)
		}
	}
	t.Fatalf("test setup: no entry %q in the pi file", id)
	return ""
}

// Rule 11.5.5: a session file written by pi builds the context pi builds,
// at every leaf: the latest compaction's summary, the kept messages, the
// messages after it; a branch that leaves before a compaction has all its
// messages. pi's own context at each leaf is in NAME.context.json.
func TestLab11_5_PiFileBuildsPisContext(t *testing.T) {
	for _, name := range []string{"tokenizer", "compaction"} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, piFile(name+".jsonl"))
			s := mustOpen(t, fx.opts(), "testdata/pi/"+name+".jsonl")
			for _, leaf := range piContexts(t, name).Leaves {
				require.NoError(t, switchLeaf(t, s, leaf.Leaf), "SwitchLeaf(%q), pi's leaf %q", leaf.Leaf, leaf.Name)
				requirePisMessages(t, fmt.Sprintf("BuildContext at pi's leaf %q (%s) of testdata/pi/%s.jsonl", leaf.Name,
					leaf.Leaf, name), leaf.Context.Messages, contextOf(t, s))
			}
		})
	}
}

// Rule 11.5.6: Open refuses a compaction whose firstKeptEntryId is not one
// of its ancestors.
func TestLab11_5_OpenRefusesAKeptEntryOffThePath(t *testing.T) {
	base := headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) + msgLine("b", "a", assistant("one")) +
		msgLine("c", "a", assistant("two"))
	for _, tc := range []struct{ name, firstKept string }{
		{"an id no entry has", "zz"},
		{"an entry on another branch", "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, base+compactionLine("k", "c", "s", tc.firstKept, 10))
			_, err := open(t, fx.opts())
			var ke *agentstore.KeptEntryError
			require.True(t, errors.As(err, &ke), "Open over a compaction under c that keeps from %q (%s) = %s; want a "+
				"*KeptEntryError: its context could not be built", tc.firstKept, tc.name, describe(err))
			assert.Equal(t, agentstore.KeptEntryError{CompactionID: "k", FirstKeptEntryID: tc.firstKept}, *ke)
			var le *agentstore.LineError
			require.True(t, errors.As(err, &le), "inside a *LineError")
			assert.Equal(t, 5, le.Line)
		})
	}
}

// Rule 11.5.3: a compaction is written like any entry: a failing
// summarizer writes nothing, and the write rules of 11.2 hold.
func TestLab11_5_CompactionFollowsTheWriteRules(t *testing.T) {
	t.Run("summarizer fails", func(t *testing.T) {
		fx := newFixture()
		s, got := newStoreWith(t, fx, sixMessages()...)
		fx.sum.err = errors.New("model unavailable")
		mark, drawn := fx.fs.mark(), len(fx.ids.handedOut())
		_, err := compact(t, s, 0, 2)
		assert.True(t, errors.Is(err, fx.sum.err), "CompactIfNeeded(0, 2) when Summarize fails with %q = %s; want that "+
			"error, itself or wrapped: without a summary there is no compaction to write (rule 11.5.7)", fx.sum.err, describe(err))
		assert.Empty(t, fx.fs.opsSince(mark), "CompactIfNeeded called the file system after Summarize failed: no summary, "+
			"no compaction line")
		assert.Equal(t, got[5], leafOf(t, s), "Leaf after a failed Summarize: want the leaf before it, %q", got[5])
		assert.Equal(t, drawn, len(fx.ids.handedOut()), "CompactIfNeeded asked NewEntryID for an id although Summarize "+
			"failed (ids handed out: %v): the compaction's id is drawn in the write, after Summarize returned, as "+
			"AppendMessage draws its own", fx.ids.handedOut())
	})
	t.Run("write fails", func(t *testing.T) {
		fx := newFixture()
		s, got := newStoreWith(t, fx, sixMessages()...)
		diskFull := errors.New("no space left on device")
		fx.fs.fail("AppendFile", fsFailure{Err: diskFull, Written: -1})
		_, err := compact(t, s, 0, 2)
		assert.True(t, errors.Is(err, diskFull), "CompactIfNeeded(0, 2) when AppendFile fails with %q = %s; want that "+
			"error, itself or wrapped (errors.Is finds it): the compaction is written under 11.2's rules, and a failed "+
			"write returns its error (rule 11.5.3)", diskFull, describe(err))
		assert.Equal(t, got[5], leafOf(t, s), "Leaf after a failed compaction write: want the leaf before it, %q: the "+
			"compaction was never committed, so nothing moves", got[5])
		_, err = appendMsg(t, s, user("next"))
		assert.True(t, errors.Is(err, agentstore.ErrTainted), "AppendMessage after a failed compaction write = %s; want a "+
			"*TaintedError (errors.Is ErrTainted): the failed write may have left half a line, so it taints the store as "+
			"a failed append does (rules 11.5.3, 11.2.4)", describe(err))
	})
	t.Run("tail", func(t *testing.T) {
		fx := newFixture()
		text := headerLine("s0", T1, "/")
		parent := ""
		for i, m := range sixMessages() {
			id := fmt.Sprintf("m%d", i+1)
			text += msgLine(id, parent, m)
			parent = id
		}
		fx.fs.setFile(sessPath, text+`{"type":"mess`)
		s := mustOpen(t, fx.opts(), "six messages and a tail")
		mark := fx.fs.mark()
		_, err := compact(t, s, 0, 2)
		assert.True(t, errors.Is(err, agentstore.ErrNeedsRepair), "CompactIfNeeded(0, 2), a compaction that is needed, over "+
			"a file that ends in half a line = %s; want the *NeedsRepairError (errors.Is ErrNeedsRepair): a compaction is "+
			"a write, and a store opened over a tail refuses every write, as AppendMessage does (rules 11.5.7, 11.2.4)",
			describe(err))
		assert.Empty(t, fx.fs.opsSince(mark), "CompactIfNeeded over a tail called the file system: a refused write "+
			"touches nothing")
	})
}

// Rule 11.5.2: keepRecent is checked first: below 1 it is an error matching
// ErrInvalidArgument whatever the store holds and whatever the budget; at or
// above the number of messages it is no error, there is only nothing to do.
func TestLab11_5_KeepRecentIsCheckedFirst(t *testing.T) {
	fx := newFixture()
	empty := mustOpen(t, fx.opts(), "new session")
	mark := fx.fs.mark()
	for _, keep := range []int{0, -1, -100} {
		for _, budget := range []int{1000, 0} {
			_, err := compact(t, empty, budget, keep)
			assert.True(t, errors.Is(err, agentstore.ErrInvalidArgument), "CompactIfNeeded(%d, %d) on a session with no "+
				"message = %s; want ErrInvalidArgument: keepRecent is checked before anything else, so a wrong "+
				"argument is reported even when there is nothing to compact", budget, keep, describe(err))
		}
	}

	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	mark = fx.fs.mark()
	for _, keep := range []int{6, 7, 1000} {
		id, err := compact(t, s, 0, keep)
		assert.NoError(t, err, "CompactIfNeeded(0, %d) over six messages = %s; want no error: keeping at least as many "+
			"messages as the context holds leaves nothing to summarize, which is not a mistake", keep, describe(err))
		assert.Equal(t, "", id, "CompactIfNeeded(0, %d) over six messages: nothing to compact, no id", keep)
	}
	_, err := compact(t, s, estimate(msgs), 0)
	assert.True(t, errors.Is(err, agentstore.ErrInvalidArgument), "CompactIfNeeded(%d, 0) with the context at the "+
		"budget = %s; want ErrInvalidArgument: the argument is checked before the budget", estimate(msgs), describe(err))
	assert.Empty(t, fx.fs.opsSince(mark), "no compaction, no file call")
	assert.Empty(t, fx.sum.recorded(), "no compaction, no Summarize call")
	assert.Equal(t, got[5], leafOf(t, s))
}

// Rule 11.5.7: on a store that refuses to write, a compaction that is not
// needed is still "" and no error; one that is needed is refused before
// Summarize is called; a failing Summarize does not taint the store.
func TestLab11_5_RefusalComesAfterTheBudgetBeforeTheSummary(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, _ := newStoreWith(t, fx, msgs...)
	diskFull := errors.New("no space left on device")
	fx.fs.fail("AppendFile", fsFailure{Err: diskFull, Written: -1})
	_, err := appendMsg(t, s, user("lost"))
	require.True(t, errors.Is(err, diskFull), "test setup: the seventh append fails")
	mark := fx.fs.mark()

	_, err = compact(t, s, 0, 0)
	assert.True(t, errors.Is(err, agentstore.ErrInvalidArgument), "CompactIfNeeded(0, 0) on a tainted store = %s; want "+
		"ErrInvalidArgument: the argument is checked first, in any state", describe(err))
	id, err := compact(t, s, estimate(msgs), 2)
	assert.NoError(t, err, "CompactIfNeeded(%d, 2) on a tainted store whose context is at the budget = %s; want \"\" "+
		"and no error: nothing needs writing, so there is nothing to refuse", estimate(msgs), describe(err))
	assert.Equal(t, "", id)
	id, err = compact(t, s, 0, 6)
	assert.NoError(t, err, "CompactIfNeeded(0, 6) on a tainted store with six messages = %s; want \"\": nothing to "+
		"summarize", describe(err))
	assert.Equal(t, "", id)

	_, err = compact(t, s, 0, 2)
	var te *agentstore.TaintedError
	require.True(t, errors.As(err, &te), "CompactIfNeeded(0, 2) over the budget on a tainted store = %s; want the "+
		"*TaintedError: the compaction would be a write", describe(err))
	assert.True(t, errors.Is(err, diskFull), "the *TaintedError carries the failed write's error")
	assert.Empty(t, fx.sum.recorded(), "Summarize was called on a store that cannot write the summary: the refusal "+
		"comes before Summarize (a real summarizer is a model call that costs time and money)")
	assert.Empty(t, fx.fs.opsSince(mark), "a refused compaction makes no file call")

	fx = newFixture()
	s, got := newStoreWith(t, fx, msgs...)
	fx.sum.err = errors.New("model overloaded")
	_, err = compact(t, s, 0, 2)
	require.True(t, errors.Is(err, fx.sum.err), "CompactIfNeeded when Summarize fails = %s", describe(err))
	id = mustAppend(t, s, user("still writing?"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, got[5], e.ParentID, "a failing Summarize wrote nothing, so it must not taint the store: the next "+
		"append goes on under the same leaf")
	fx.sum.err = nil
	id, err = compact(t, s, 0, 2)
	require.NoError(t, err, "CompactIfNeeded once Summarize works again")
	assert.NotEmpty(t, id)
}

// Rule 11.5.3: keepRecent counts messages, whatever their role: when the
// first of the last keepRecent is a tool result, the compaction keeps from
// it, and the assistant message that called the tool is summarized. (pi
// never cuts at a tool result: the handout says where this store is simpler
// than pi, and why.)
func TestLab11_5_KeepRecentCountsEveryRole(t *testing.T) {
	call := agentstore.Message(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}],"stopReason":"toolUse","timestamp":2}`)
	result := agentstore.Message(`{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"README.md"}],"isError":false,"timestamp":3}`)
	msgs := []agentstore.Message{user("list the files"), call, result, assistant("One file: README.md.")}
	fx := newFixture()
	s, got := newStoreWith(t, fx, msgs...)
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err, "CompactIfNeeded(0, 2) over a user message, a tool call, its result and an answer")
	require.NotEmpty(t, id, "CompactIfNeeded(0, 2) over four messages returned no id and no error")
	c, _ := entryOf(t, s, id)
	assert.Equal(t, got[2], c.FirstKeptEntryID, "the compaction's firstKeptEntryId: keepRecent 2 keeps the last two "+
		"messages, the tool result and the answer, so it keeps from the tool result; the store counts messages and does "+
		"not move the cut to the tool call (pi would)")
	require.Len(t, fx.sum.recorded(), 1, "Summarize is called once")
	assert.Equal(t, strs(msgs[:2]), fx.sum.recorded()[0].Messages, "Summarize gets the user message and the tool call")
}
