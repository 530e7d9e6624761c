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

// Rule 11.4.1, 11.2.5: a UI moves the leaf while the agent appends
// (goroutines started together): every append goes under the leaf as it was
// at that moment (the first leaf, the entry switched to, or an append
// before it), and
// the race detector (go test -race) finds nothing: SwitchLeaf takes the lock
// like every method.
func TestLab11_4_SwitchBesideConcurrentAppends(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("write a poem"), assistant("Roses are red"))
	const n = 8
	msgs := make([]agentstore.Message, n)
	for i := range msgs {
		msgs[i] = user(strings.Repeat("again ", i+1))
	}
	mark := fx.fs.mark()
	start := make(chan struct{})
	errs := make(chan error, 2*n)
	var wg sync.WaitGroup
	var caught panics
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, beside 8 SwitchLeaf calls,")
			<-start
			if _, err := s.AppendMessage(msgs[i]); err != nil {
				errs <- err
			}
		}(i)
		go func() {
			defer wg.Done()
			defer caught.catch("SwitchLeaf, beside 8 appends,")
			<-start
			if err := s.SwitchLeaf(got[0]); err != nil {
				errs <- err
			}
		}()
	}
	close(start)
	within(t, "8 appends and 8 switches at once", func() bool { wg.Wait(); return true })
	caught.check(t)
	close(errs)
	for err := range errs {
		t.Errorf("concurrent AppendMessage and SwitchLeaf(%q): %s", got[0], describe(err))
	}
	before := map[any]bool{got[1]: true, got[0]: true} // the leaf before the first switch, and the entry switched to
	ops := fx.fs.opsSince(mark)
	require.Len(t, ops, n, "8 appends and 8 switches made the calls %s; want 8 AppendFile calls (a switch writes nothing)", opNames(ops))
	for i, o := range ops {
		v := decodeLine(t, o.Data, fmt.Sprintf("append %d", i+1))
		assert.True(t, before[v["parentId"]], "append %d has parent %v: want the leaf the store had (%s), the entry "+
			"switched to (%s) or an append before it", i+1, v["parentId"], got[1], got[0])
		before[v["id"]] = true
	}
}
