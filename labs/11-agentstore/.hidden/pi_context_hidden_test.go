package agentstore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.7.1: a branch summary that is a root (pi's fromId "root"), and a
// compaction that keeps from a branch_summary entry: the summary's message
// comes right after the compaction's.
func TestLab11_7_HiddenBranchSummaryAsRootAndAsFirstKept(t *testing.T) {
	fx := newFixture()
	root := branchSummaryLine("r", "", "root", "Before this, the user asked for poems.")
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+root+
		msgLine("a", "r", user("now prose"))+
		msgLine("b", "a", assistant("Once there was a file."))+
		compactionLine("k", "b", "prose was asked for", "r", 50)+
		msgLine("c", "k", user("shorter")))
	s := mustOpen(t, fx.opts(), "a branch summary as the root, and a compaction keeping from it")
	k, _ := entryOf(t, s, "k")
	want := []agentstore.Message{agentstore.CompactionSummaryMessage(k), agentstore.BranchSummaryMessage(entryOfLine(t, root)),
		user("now prose"), assistant("Once there was a file."), user("shorter")}
	assert.Equal(t, strs(want), strs(contextOf(t, s)))
	require.NoError(t, switchLeaf(t, s, "r"))
	assert.Equal(t, strs(want[1:2]), strs(contextOf(t, s)), "the branch summary alone, at the root")
}

// Rule 11.7.1: a custom message without display leaves display out, and
// details null stays null; after a compaction that keeps from before it,
// it is in the kept part.
func TestLab11_7_HiddenCustomMessageFieldsAndKeptRange(t *testing.T) {
	cm := customMessageLine("m", "a", "note", `"plain text"`, "", "null")
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("hi"))+cm+
		msgLine("b", "m", assistant("ok"))+compactionLine("k", "b", "greeted", "a", 9))
	s := mustOpen(t, fx.opts(), "a custom message in the kept part of a compaction")
	ctx := contextOf(t, s)
	require.Len(t, ctx, 4, "the summary, a, the custom message, b: %s", roles(ctx))
	assert.JSONEq(t, `{"role":"custom","customType":"note","content":"plain text","details":null,"timestamp":1741939200000}`,
		string(ctx[2]), "CustomMessage of an entry without display and with details null")
}

// Rule 11.7.2: keepRecent counts a branch summary's message too, and the
// compaction may keep from the branch_summary entry.
func TestLab11_7_HiddenCompactionKeepsFromABranchSummary(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("one"))+msgLine("b", "a", assistant("two"))+
		branchSummaryLine("s", "b", "b", "a dropped detour")+msgLine("c", "s", user("three")))
	s := mustOpen(t, fx.opts(), "a branch summary among messages")
	id, err := compact(t, s, 0, 2)
	require.NoError(t, err)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, "s", c.FirstKeptEntryID, "the last two messages of the context are the branch summary's and c's")
	require.Len(t, fx.sum.recorded(), 1)
	assert.Equal(t, strs([]agentstore.Message{user("one"), assistant("two")}), fx.sum.recorded()[0].Messages)
}

// Rule 11.7.3: on another branch the settings are that branch's; an
// assistant message without provider and model gives a model of empty
// strings, as pi's does; a model_change after it wins.
func TestLab11_7_HiddenSettingsPerBranch(t *testing.T) {
	bare := agentstore.Message(`{"role":"assistant","content":"hi","timestamp":1}`)
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+
		msgLine("a", "", user("hi"))+
		msgLine("b", "a", bare)+
		thinkingLine("k", "b", "minimal")+
		modelChangeLine("m", "a", "google", "gemini-2.5-pro")+
		msgLine("c", "m", user("again")))
	s := mustOpen(t, fx.opts(), "two branches with their own settings")
	got := sessionContextOf(t, s)
	assert.Equal(t, agentstore.ThinkingLevelOff, got.ThinkingLevel, "the thinking level change is on the other branch")
	assert.Equal(t, &agentstore.Model{Provider: "google", ModelID: "gemini-2.5-pro"}, got.Model)
	require.NoError(t, switchLeaf(t, s, "k"))
	got = sessionContextOf(t, s)
	assert.Equal(t, "minimal", got.ThinkingLevel)
	assert.Equal(t, &agentstore.Model{}, got.Model, "an assistant message without provider and model: pi's model has "+
		"neither, and is not null")
}

// Rule 11.7.4: an explicit version 1 with CRLF lines; firstKeptEntryIndex 0
// (the header) and an index after the compaction name no entry before it:
// Open refuses the line with the *FieldError UpgradeLine returns.
func TestLab11_7_HiddenVersion1IndexesAndCRLF(t *testing.T) {
	crlf := func(line string) string { return strings.TrimSuffix(line, "\n") + "\r\n" }
	head := crlf(`{"type":"session","version":1,"id":"s1x","timestamp":"`+T1+`","cwd":"/"}`+"\n") +
		crlf(v1Line(user("a"))) + crlf(v1Line(assistant("b")))
	fx := newFixture()
	fx.fs.setFile(sessPath, head+crlf(fmt.Sprintf(`{"type":"compaction","timestamp":%q,"summary":"x","firstKeptEntryIndex":2,"tokensBefore":1}`, T1)+"\n"))
	s := mustOpen(t, fx.opts(), "version 1 with CRLF")
	chain := chainOf(t, s)
	require.Len(t, chain, 3)
	c, _ := entryOf(t, s, chain[2])
	assert.Equal(t, chain[1], c.FirstKeptEntryID)
	assert.Equal(t, 1, headerOf(t, s).Version)

	for _, k := range []int{0, 3, 9} {
		fx := newFixture()
		fx.fs.setFile(sessPath, head+fmt.Sprintf(`{"type":"compaction","timestamp":%q,"summary":"x","firstKeptEntryIndex":%d,"tokensBefore":1}`, T1, k)+"\n")
		_, err := open(t, fx.opts())
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "firstKeptEntryIndex %d: Open = %s; want a *LineError", k, describe(err))
		assert.Equal(t, 4, le.Line)
		var fe *agentstore.FieldError
		assert.True(t, errors.As(err, &fe), "firstKeptEntryIndex %d names no entry before the compaction: a *FieldError", k)
	}
}

// Rule 11.7.5: over a version-1 file with a tail, the tail's refusal comes
// first; a bad message and keepRecent 0 are refused for what they are; a
// failed Reset keeps the store migrated.
func TestLab11_7_HiddenMigratedRefusalOrder(t *testing.T) {
	fx := newFixture()
	text := v1Header("s-old") + v1Line(user("hi")) + `{"type":"message","timest`
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "version 1 with a tail")
	_, err := appendMsg(t, s, user("more"))
	var nr *agentstore.NeedsRepairError
	require.True(t, errors.As(err, &nr), "AppendMessage over a tail = %s; want the *NeedsRepairError first", describe(err))
	_, err = appendMsg(t, s, agentstore.Message(`{"content":"no role"}`))
	var fe *agentstore.FieldError
	assert.True(t, errors.As(err, &fe), "a message without a role = %s; want its *FieldError", describe(err))
	_, err = compact(t, s, 0, 0)
	assert.ErrorIs(t, err, agentstore.ErrInvalidArgument)

	fx = newFixture()
	fx.fs.setFile(sessPath, v1Header("s-old")+v1Line(user("hi")))
	s = mustOpen(t, fx.opts(), "version 1")
	fx.fs.failOn("Rename", agentstore.TempPath(sessPath), fsFailure{Err: errors.New("busy")})
	require.Error(t, reset(t, s))
	_, err = appendMsg(t, s, user("more"))
	assert.ErrorIs(t, err, agentstore.ErrMigrated, "after a failed Reset the store is still over the old file")
	require.NoError(t, reset(t, s))
	_, err = appendMsg(t, s, user("more"))
	assert.NoError(t, err)
}
