package agentstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.4.1: the leaf may be an entry of any type; the context ends at
// the last message above it, and the next append is its child.
func TestLab11_4_HiddenSwitchToANonMessageEntry(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "pi's file")
	require.NoError(t, switchLeaf(t, s, "642f4a02"), "SwitchLeaf to pi's thinking_level_change")
	assert.Empty(t, contextOf(t, s), "no message above the thinking_level_change")
	id := mustAppend(t, s, user("start over"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, "642f4a02", e.ParentID)
	assert.Equal(t, []string{"9cda2c96", "642f4a02", id}, ids(pathOf(t, s)))
}

// Rule 11.4.1, 11.4.3: three answers to one question, all kept, each
// reachable.
func TestLab11_4_HiddenThreeSiblings(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("name a colour"), assistant("red"))
	var answers []string
	answers = append(answers, got[1])
	for _, a := range []string{"green", "blue"} {
		require.NoError(t, switchLeaf(t, s, got[0]))
		answers = append(answers, mustAppend(t, s, assistant(a)))
	}
	for i, want := range []string{"red", "green", "blue"} {
		require.NoError(t, switchLeaf(t, s, answers[i]))
		assert.Equal(t, strs([]agentstore.Message{user("name a colour"), assistant(want)}), strs(contextOf(t, s)))
		e, _ := entryOf(t, s, answers[i])
		assert.Equal(t, got[0], e.ParentID)
	}
	assert.Equal(t, 5, strings.Count(fx.fs.file(sessPath), "\n"), "the file holds the header, the question and all three answers")
}

// Rule 11.4.2: a refused switch keeps the leaf an earlier switch set.
func TestLab11_4_HiddenRefusedSwitchKeepsTheSwitchedLeaf(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("a"), assistant("b"), user("c"))
	require.NoError(t, switchLeaf(t, s, got[0]))
	err := switchLeaf(t, s, got[0]+"x")
	var ue *agentstore.UnknownEntryError
	require.True(t, errors.As(err, &ue), "SwitchLeaf(%q) = %s", got[0]+"x", describe(err))
	assert.Equal(t, got[0], leafOf(t, s))
}

// Rule 11.4.3: reopening after a branch puts the leaf on the new branch's
// last line, with the old branch still there.
func TestLab11_4_HiddenReopenAfterABranch(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("a"), assistant("b"), user("c"))
	require.NoError(t, switchLeaf(t, s, got[1]))
	d := mustAppend(t, s, user("d"))
	require.NoError(t, switchLeaf(t, s, got[2]))
	again := mustOpen(t, fx.opts(), "reopened")
	assert.Equal(t, d, leafOf(t, again), "the last line is d, whatever the leaf was when the store was dropped")
	require.NoError(t, switchLeaf(t, again, got[2]), "the old branch is still reachable after reopening")
	assert.Len(t, contextOf(t, again), 3)
}
