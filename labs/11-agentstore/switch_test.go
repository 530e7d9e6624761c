package agentstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.4.1, 11.4.3: switching to an earlier entry starts a new branch
// there; the old branch stays, and switching back restores its context.
func TestLab11_4_SwitchStartsANewBranch(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("write a poem"), assistant("Roses are red"), user("shorter"), assistant("Red."))
	before := fx.fs.file(sessPath)

	require.NoError(t, switchLeaf(t, s, got[1]), "SwitchLeaf(%q) to an existing entry", got[1])
	assert.Equal(t, got[1], leafOf(t, s))
	assert.Equal(t, strs([]agentstore.Message{user("write a poem"), assistant("Roses are red")}), strs(contextOf(t, s)),
		"BuildContext after SwitchLeaf follows the branch that ends at the new leaf")

	id := mustAppend(t, s, user("longer"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, got[1], e.ParentID, "the first append after SwitchLeaf(%q) is its child: a new branch", got[1])
	assert.Equal(t, strs([]agentstore.Message{user("write a poem"), assistant("Roses are red"), user("longer")}),
		strs(contextOf(t, s)))
	assert.True(t, strings.HasPrefix(fx.fs.file(sessPath), before), "the old branch stays in the file, byte for byte")

	require.NoError(t, switchLeaf(t, s, got[3]), "SwitchLeaf back to the old leaf %q", got[3])
	assert.Equal(t, strs([]agentstore.Message{user("write a poem"), assistant("Roses are red"), user("shorter"), assistant("Red.")}),
		strs(contextOf(t, s)), "switching back gives the old branch's context: nothing of it was lost")
}

// Rule 11.4.2: an unknown id is an error that names it, and the leaf stays.
func TestLab11_4_UnknownIDKeepsTheLeaf(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
	mark := fx.fs.mark()
	for _, id := range []string{"nope", ""} {
		err := switchLeaf(t, s, id)
		var ue *agentstore.UnknownEntryError
		require.True(t, errors.As(err, &ue), "SwitchLeaf(%q) with no such entry = %s; want an *UnknownEntryError", id, describe(err))
		assert.Equal(t, id, ue.ID, "the error names the id asked for")
		assert.Equal(t, got[1], leafOf(t, s), "a refused SwitchLeaf(%q) leaves the leaf where it was", id)
	}
	assert.Empty(t, fx.fs.opsSince(mark))
	id := mustAppend(t, s, user("still here"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, got[1], e.ParentID, "after a refused switch, appends go on from the same leaf")
}

// Rule 11.4.3: SwitchLeaf writes nothing and is not saved: reopening puts
// the leaf on the file's last line.
func TestLab11_4_SwitchWritesNothing(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("a"), assistant("b"), user("c"))
	mark := fx.fs.mark()
	require.NoError(t, switchLeaf(t, s, got[0]))
	assert.Empty(t, fx.fs.opsSince(mark), "SwitchLeaf moves the leaf in memory only; it made the calls %s",
		opNames(fx.fs.opsSince(mark)))
	for _, id := range got {
		_, ok := entryOf(t, s, id)
		assert.True(t, ok, "Entry(%q) after switching away from its branch: every entry stays", id)
	}
	again := mustOpen(t, fx.opts(), "the file, reopened after SwitchLeaf")
	assert.Equal(t, got[2], leafOf(t, again), "a reopened store's leaf is the last line's entry: the switch itself was never written")
}
