package agentstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.3.1, 11.3.2: a file may hold several roots; the path ends at the
// root of the leaf's own tree.
func TestLab11_3_HiddenSeveralRoots(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+
		msgLine("a", "", user("first tree"))+
		msgLine("b", "a", assistant("one"))+
		msgLine("r", "", user("second tree"))+
		otherLine("custom", "x", "r")+
		msgLine("s", "x", assistant("two")))
	s := mustOpen(t, fx.opts(), "two roots")
	assert.Equal(t, []string{"r", "x", "s"}, ids(pathOf(t, s)))
	assert.Equal(t, strs([]agentstore.Message{user("second tree"), assistant("two")}), strs(contextOf(t, s)))
}

// Rule 11.3.2: in pi's file before its compaction, the model_change,
// thinking_level_change and the other branch give no message.
func TestLab11_3_HiddenPiBranchBeforeCompaction(t *testing.T) {
	fx := newFixture()
	// pi's file up to its second branch's answer: lines 1 to 9.
	lines := splitLines(piSession)
	fx.fs.setFile(sessPath, joinLines(lines[:9]))
	s := mustOpen(t, fx.opts(), "pi's file, first 9 lines")
	var want []string
	for _, id := range []string{"5c313dd9", "81bdf869", "0cb38dda", "570957e1", "f131850c", "5f5f7f69"} {
		want = append(want, piMessage(t, id))
	}
	assert.Equal(t, want, strs(contextOf(t, s)))
	assert.Equal(t, []string{"9cda2c96", "642f4a02", "5c313dd9", "81bdf869", "0cb38dda", "570957e1", "f131850c", "5f5f7f69"},
		ids(pathOf(t, s)), "PathToLeaf holds the entries of every type")
}

// Rule 11.3.3: two reads never share bytes with each other either.
func TestLab11_3_HiddenReadsAreIndependent(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hello"))
	first := contextOf(t, s)
	second := contextOf(t, s)
	require.Len(t, first, 1)
	first[0][0] = '['
	assert.Equal(t, string(user("hello")), string(second[0]))
	p1 := pathOf(t, s)
	p1[0].Message[0] = '['
	p1[0].ID = "changed"
	p2 := pathOf(t, s)
	assert.Equal(t, got[0], p2[0].ID)
	assert.Equal(t, string(user("hello")), string(p2[0].Message))
}
