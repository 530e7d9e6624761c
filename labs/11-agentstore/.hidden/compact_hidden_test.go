package agentstore_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.5.1: more sizes, and a 4-byte character.
func TestLab11_5_HiddenEstimateMoreSizes(t *testing.T) {
	for _, tc := range []struct {
		msgs []string
		want int
	}{
		{[]string{`1`}, 1},
		{[]string{`{"a":12}`}, 2},
		{[]string{`{"a":123}`}, 3},
		{[]string{`{"r":"😀"}`}, 3},
		{[]string{`1`, `1`, `1`, `1`}, 4},
		{[]string{``}, 0},
	} {
		msgs := make([]agentstore.Message, len(tc.msgs))
		for i, m := range tc.msgs {
			msgs[i] = agentstore.Message(m)
		}
		assert.Equal(t, tc.want, within(t, "EstimateTokens", func() int { return agentstore.EstimateTokens(msgs) }),
			"EstimateTokens(%q)", tc.msgs)
	}
}

// Rule 11.5.2, 11.5.3: after a compaction, the budget and tokensBefore are
// about the context, summary included, not the whole path.
func TestLab11_5_HiddenBudgetCountsTheCompactedContext(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, _ := newStoreWith(t, fx, msgs...)
	_, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	mustAppend(t, s, user("more"))
	ctx := contextOf(t, s)
	e := estimate(ctx)

	id, err := compact(t, s, e, 1)
	require.NoError(t, err)
	assert.Equal(t, "", id, "the compacted context is %d tokens, summary included: at the budget, no compaction", e)
	id, err = compact(t, s, e-1, 1)
	require.NoError(t, err)
	require.NotEmpty(t, id)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, e, c.TokensBefore, "tokensBefore is the estimate of the context the model saw (summary and kept "+
		"messages), not of every message on the path")
}

// Rule 11.5.5: a later compaction may keep from before an earlier one; the
// earlier compaction in that range gives no message.
func TestLab11_5_HiddenKeptRangeSpansAnEarlierCompaction(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	_, err := compact(t, s, 0, 2) // keeps got[4], got[5]
	require.NoError(t, err)
	m7 := user("seventh")
	mustAppend(t, s, m7)
	id, err := compact(t, s, 0, 2) // context: summary, m5, m6, m7; keeps m6, m7
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, got[5], c.FirstKeptEntryID, "the second compaction keeps from m6, which is above the first compaction")
	assert.Equal(t, strs([]agentstore.Message{agentstore.CompactionSummaryMessage(c), msgs[5], m7}), strs(contextOf(t, s)))
	again := mustOpen(t, fx.opts(), "reopened")
	assert.Equal(t, strs(contextOf(t, s)), strs(contextOf(t, again)))
}

// Rule 11.5.3: keepRecent counts messages; entries of other types are not
// messages to keep.
func TestLab11_5_HiddenKeepCountsMessagesOnly(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+
		msgLine("a", "", user("one"))+
		msgLine("b", "a", assistant("two"))+
		modelChangeLine("m", "b", "anthropic", "claude-sonnet-4-5")+
		msgLine("c", "m", user("three"))+
		otherLine("label", "l", "c"))
	s := mustOpen(t, fx.opts(), "messages and other entries")
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, "b", c.FirstKeptEntryID, "the last 2 messages are b and c")
	assert.Equal(t, "l", c.ParentID, "the compaction goes under the leaf, whatever its type")
	assert.Equal(t, []summaryCall{{Messages: []string{string(user("one"))}}}, fx.sum.recorded())
}

// Rule 11.5.5: a branch that leaves before the compaction does not see it,
// and a compaction after SwitchLeaf goes under the new leaf.
func TestLab11_5_HiddenOtherBranchHasNoSummary(t *testing.T) {
	fx := newFixture()
	msgs := sixMessages()
	s, got := newStoreWith(t, fx, msgs...)
	_, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	require.NoError(t, switchLeaf(t, s, got[3]))
	assert.Equal(t, strs(msgs[:4]), strs(contextOf(t, s)), "the branch ending at message 4 has no compaction on its path")
	id, err := compact(t, s, 0, 1)
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, got[3], c.ParentID)
	assert.Equal(t, got[3], c.FirstKeptEntryID)
}

// Rule 11.5.6: keeping from the compaction's own parent is keeping from an
// ancestor; keeping from itself is not.
func TestLab11_5_HiddenKeptEntryMayBeTheParent(t *testing.T) {
	base := headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) + msgLine("b", "a", assistant("one"))
	fx := newFixture()
	fx.fs.setFile(sessPath, base+compactionLine("k", "b", "s", "b", 10))
	s := mustOpen(t, fx.opts(), "compaction keeping from its parent")
	c, _ := entryOf(t, s, "k")
	assert.Equal(t, strs([]agentstore.Message{agentstore.CompactionSummaryMessage(c), assistant("one")}), strs(contextOf(t, s)))

	fx = newFixture()
	fx.fs.setFile(sessPath, base+compactionLine("k", "b", "s", "k", 10))
	_, err := open(t, fx.opts())
	var ke *agentstore.KeptEntryError
	require.ErrorAs(t, err, &ke, "a compaction keeping from itself")
}

// Rule 11.5.3: compacting pi's file again summarizes on top of pi's summary.
func TestLab11_5_HiddenCompactPiFileAgain(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "pi's file")
	id, err := compact(t, s, 0, 3)
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, "5f518eef", c.FirstKeptEntryID)
	assert.Equal(t, "8af385c5", c.ParentID)
	calls := fx.sum.recorded()
	require.Len(t, calls, 1)
	pi, _ := entryOf(t, s, "6f8beadc")
	want := summaryCall{Previous: pi.Summary}
	for _, id := range []string{"4612ec9c", "32d7676d", "79a97f66", "92e01fe3"} {
		want.Messages = append(want.Messages, piMessage(t, id))
	}
	assert.Equal(t, want, calls[0])
}

// Rule 11.5.2: keepRecent checks on pi's file, and after a compaction the
// messages counted are those of the compacted context.
func TestLab11_5_HiddenKeepRecentBounds(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "pi's file")
	mark := fx.fs.mark()
	_, err := compact(t, s, 1<<30, 0)
	assert.ErrorIs(t, err, agentstore.ErrInvalidArgument, "far under the budget, keepRecent 0 is still an error")
	_, err = compact(t, s, -5, -2)
	assert.ErrorIs(t, err, agentstore.ErrInvalidArgument)
	for _, keep := range []int{7, 8, 50} { // the compacted context holds 7 messages
		id, err := compact(t, s, 0, keep)
		assert.NoError(t, err, "CompactIfNeeded(0, %d) with 7 messages in the context", keep)
		assert.Equal(t, "", id)
	}
	assert.Empty(t, fx.fs.opsSince(mark))
	assert.Empty(t, fx.sum.recorded())
	id, err := compact(t, s, 0, 6)
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, "32d7676d", c.FirstKeptEntryID, "keeping 6 of the 7 messages summarizes one")
}

// Rule 11.5.7: over a tail, an unneeded compaction is "" and a needed one is
// a *NeedsRepairError before Summarize; a summarizer failure leaves the
// store writing.
func TestLab11_5_HiddenRefusalOrderOverATail(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession+`{"type":"message","id":"x`)
	s := mustOpen(t, fx.opts(), "pi's file with a tail")
	mark := fx.fs.mark()
	id, err := compact(t, s, 1<<20, 1)
	assert.NoError(t, err, "under the budget over a tail: nothing to write = %s", describe(err))
	assert.Equal(t, "", id)
	_, err = compact(t, s, 0, -1)
	assert.ErrorIs(t, err, agentstore.ErrInvalidArgument)
	_, err = compact(t, s, 0, 1)
	var nr *agentstore.NeedsRepairError
	require.True(t, errors.As(err, &nr), "over the budget over a tail = %s; want *NeedsRepairError", describe(err))
	assert.Equal(t, agentstore.NeedsRepairError{Path: sessPath, Line: 19}, *nr)
	assert.Empty(t, fx.sum.recorded(), "no Summarize for a compaction that cannot be written")
	assert.Empty(t, fx.fs.opsSince(mark))

	fx = newFixture()
	fx.fs.setFile(sessPath, piSession)
	s = mustOpen(t, fx.opts(), "pi's file")
	fx.sum.err = errors.New("rate limited")
	for i := 0; i < 2; i++ {
		_, err = compact(t, s, 0, 3)
		assert.ErrorIs(t, err, fx.sum.err)
	}
	_, err = appendMsg(t, s, user("go on"))
	assert.NoError(t, err, "a failing Summarize does not taint the store: %s", describe(err))
}

// Rule 11.5.3, 11.5.7: two failing summaries draw no id; the compaction
// that then succeeds takes the next id of the generator.
func TestLab11_5_HiddenFailedSummariesDrawNoID(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, sixMessages()...)
	fx.sum.err = errors.New("rate limited")
	for i := 0; i < 2; i++ {
		_, err := compact(t, s, 0, 2)
		require.True(t, errors.Is(err, fx.sum.err), "CompactIfNeeded with a failing summarizer = %s", describe(err))
	}
	assert.Len(t, fx.ids.handedOut(), len(got), "no id is drawn for a compaction whose summary failed: %v", fx.ids.handedOut())
	fx.sum.err = nil
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, "e7", id, "the compaction takes the id after the six messages' (ids handed out: %v)", fx.ids.handedOut())
}
