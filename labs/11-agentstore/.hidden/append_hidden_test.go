package agentstore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

var fsErrNotExist = fs.ErrNotExist

// Rule 11.2.1, 11.2.2: appending to pi's file continues from its leaf with
// one new line.
func TestLab11_2_HiddenAppendToPiFile(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "pi's file")
	fx.ids.then("9cda2c96", "deadbeef") // the first is taken
	mark := fx.fs.mark()
	id := mustAppend(t, s, agentstore.Message(`{"role":"user","content":"and tabs?","timestamp":1}`))
	assert.Equal(t, "deadbeef", id)
	line := requireOneAppend(t, fx.fs.opsSince(mark), "AppendMessage on pi's file")
	assert.Equal(t, "8af385c5", line["parentId"])
	assert.True(t, strings.HasPrefix(fx.fs.file(sessPath), piSession))
	assert.Equal(t, "deadbeef", leafOf(t, s))
}

// Rule 11.2.4: a write that fails without writing a byte taints all the
// same: the store cannot know how much was written.
func TestLab11_2_HiddenFailOutrightStillTaints(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
	denied := errors.New("permission denied")
	fx.fs.fail("AppendFile", fsFailure{Err: denied, Written: 0})
	_, err := appendMsg(t, s, user("third"))
	require.True(t, errors.Is(err, denied))
	mark := fx.fs.mark()
	_, err = appendMsg(t, s, user("fourth"))
	assert.True(t, errors.Is(err, agentstore.ErrTainted) && errors.Is(err, denied), "AppendMessage after a failed write = %s", describe(err))
	assert.Empty(t, fx.fs.opsSince(mark))
	assert.Equal(t, got, chainOf(t, s))
}

// Rule 11.2.3, 11.2.5: after each kind of refusal every other method still
// answers.
func TestLab11_2_HiddenRefusalsReleaseTheStore(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"))
	for _, m := range []string{`"just a string"`, `{"role":""}`, `{"role":"compactionSummary"}`, ``} {
		_, err := appendMsg(t, s, agentstore.Message(m))
		require.Error(t, err, "AppendMessage(%q)", m)
		assert.Equal(t, got[0], leafOf(t, s))
		assert.Equal(t, got, chainOf(t, s))
		_, ok := entryOf(t, s, got[0])
		assert.True(t, ok)
	}
}

// Rule 11.2.3: over a tail, an empty message is still the message's error.
func TestLab11_2_HiddenEmptyMessageOverATail(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, threeEntries()+`{"type":"mess`)
	s := mustOpen(t, fx.opts(), "file with a tail")
	mark := fx.fs.mark()
	_, err := appendMsg(t, s, agentstore.Message(``))
	var fe *agentstore.FieldError
	assert.True(t, errors.As(err, &fe), "AppendMessage(empty) over a tail = %s; want ParseMessage's *FieldError first", describe(err))
	var nr *agentstore.NeedsRepairError
	assert.False(t, errors.As(err, &nr), "the message's error, not the store's refusal, comes first")
	assert.Empty(t, fx.fs.opsSince(mark))
}

// Rule 11.2.1: a generator that only gives empty ids is given up on.
func TestLab11_2_HiddenOnlyEmptyIDs(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	empty := make([]string, agentstore.MaxIDAttempts)
	fx.ids.then(empty...)
	mark := fx.fs.mark()
	_, err := appendMsg(t, s, user("hi"))
	assert.True(t, errors.Is(err, agentstore.ErrNoFreeID), "AppendMessage with only empty ids = %s", describe(err))
	assert.Empty(t, fx.fs.opsSince(mark))
	id := mustAppend(t, s, user("hi again"))
	assert.Equal(t, "e1", id, "the next append asks again and gets e1")
}

// Rule 11.2.5: appends, and walks from the leaf to the root through Leaf
// and Entry, all at once.
func TestLab11_2_HiddenConcurrentAppendsAndContexts(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("start"))
	const n = 50
	var wg sync.WaitGroup
	var caught panics
	bad := make(chan string, 4*n)
	for i := 0; i < n; i++ {
		wg.Add(3)
		go func(i int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, beside readers,")
			if _, err := s.AppendMessage(assistant(fmt.Sprintf("reply %d", i))); err != nil {
				bad <- err.Error()
			}
		}(i)
		go func() {
			defer wg.Done()
			defer caught.catch("Leaf, beside appends,")
			if leaf := s.Leaf(); leaf == "" {
				bad <- "Leaf() is empty after the first append"
			}
		}()
		go func() {
			defer wg.Done()
			defer caught.catch("Leaf or Entry, beside appends,")
			for id := s.Leaf(); id != ""; {
				e, ok := s.Entry(id)
				if !ok {
					bad <- fmt.Sprintf("Entry(%q) found nothing on the way from the leaf to the root", id)
					return
				}
				id = e.ParentID
			}
		}()
	}
	within(t, "concurrent calls", func() bool { wg.Wait(); return true })
	caught.check(t)
	close(bad)
	for b := range bad {
		t.Error(b)
	}
	assert.Len(t, chainOf(t, s), n+1, "one chain of all the appends")
}

// Rule 11.2.4, 11.2.5: the third write of a burst of concurrent appends
// fails: two are committed in one chain, one gets the error, every other is
// refused as tainted, and the race detector finds nothing.
func TestLab11_2_HiddenFailureInTheMiddleOfABurst(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("start"))
	const n = 12
	msgs := make([]agentstore.Message, n)
	for i := range msgs {
		msgs[i] = user(fmt.Sprintf("burst %d", i))
	}
	fx.fs.crashOnCall(3)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	var caught panics
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, in a burst of appends,")
			<-start
			_, errs[i] = s.AppendMessage(msgs[i])
		}(i)
	}
	close(start)
	within(t, "a burst of appends with a failing third write", func() bool { wg.Wait(); return true })
	caught.check(t)
	ok, failed, tainted := 0, 0, 0
	for _, err := range errs {
		var te *agentstore.TaintedError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &te):
			tainted++
			assert.True(t, te.Err == errCrash, "TaintedError.Err = %s; want the failed write's own error", describe(te.Err))
		case errors.Is(err, errCrash):
			failed++
		default:
			t.Errorf("an append of the burst = %s", describe(err))
		}
	}
	assert.Equal(t, []int{2, 1, n - 3}, []int{ok, failed, tainted}, "committed, failed, refused as tainted: %v", errs)
	assert.Len(t, chainOf(t, s), len(got)+2, "the two committed appends form one chain under the first entry")
}
