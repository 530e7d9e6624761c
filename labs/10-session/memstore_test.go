package session_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// memAppendAll appends every entry without waiting in between and returns
// the Pendings in the same order.
func memAppendAll(t *testing.T, s fakeStore, entries []session.SessionEntry, what string) []*session.Pending {
	t.Helper()
	out := make([]*session.Pending, len(entries))
	for i, e := range entries {
		out[i] = fakeAppend(t, s, e, what)
	}
	return out
}

// memRequireCommitted waits for every Pending and requires that each append
// was committed.
func memRequireCommitted(t *testing.T, ps []*session.Pending, entries []session.SessionEntry, what string) {
	t.Helper()
	for i, p := range ps {
		err := fakeWaitPending(t, p, what)
		require.NoError(t, err, "%s: Append(%q) (append #%d) failed with %s; want it committed",
			what, entries[i].ID, i+1, fakeDescribe(err))
	}
}

// Rule 10.3.1: the store keeps the entry as it was when Append was called.
func TestLab10_3_SnapshotAtCallTime(t *testing.T) {
	s := session.NewInMemorySessionStore()
	root := user("a", "", "list files")
	call := assistantToolCall("b", "a", "c1")

	pRoot := fakeAppend(t, s, root, "Append(user a)")
	pCall := fakeAppend(t, s, call, "Append(assistant b)")

	// The caller keeps using its own values after Append returned.
	root.Message.(*session.UserMessage).Content[0].Text = "changed after Append"
	msg := call.Message.(*session.AssistantMessage)
	msg.Content[0] = session.TextContent{Text: "changed after Append"}
	args := msg.Content[1].(session.ToolCall).Arguments
	args["path"] = "/etc"
	args["opts"].(map[string]any)["all"] = false
	args["opts"].(map[string]any)["skip"].([]any)[0] = "changed"
	msg.Usage.Input = 999

	memRequireCommitted(t, []*session.Pending{pRoot, pCall}, []session.SessionEntry{root, call}, "snapshot")
	got, err := fakeEntries(t, s, "Entries after two appends")
	require.NoError(t, err, "Entries() after two committed appends")
	assert.Equal(t, []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1")}, got,
		"the caller changed message text, tool arguments and usage after Append returned; "+
			"Entries() shows those changes — lab 10.3: Append must take a deep snapshot at the moment of the call")
}

// Rule 10.3.1: validation happens at call time, on the value as it was then.
func TestLab10_3_ValidatesAtCallTime(t *testing.T) {
	s := session.NewInMemorySessionStore()

	bad := assistantToolCall("bad", "", "c1")
	bad.Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["n"] = math.NaN()
	p := fakeAppend(t, s, bad, "Append(entry with NaN argument)")
	// Repair the caller's value after the call: too late, the call was judged.
	bad.Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["n"] = 1.0
	require.True(t, fakeIsDone(p),
		"Append(entry with a NaN tool argument) returned a Pending that is not completed yet; "+
			"lab 10.3: an invalid entry is rejected at call time, its Pending resolved at once")
	err := fakeWaitPending(t, p, "invalid append")
	var fe *session.FieldError
	require.True(t, errors.As(err, &fe),
		"Append(entry with NaN in tool arguments) = %s; want a *FieldError from validation", fakeDescribe(err))
	assert.Equal(t, "entry.message.content[1].arguments.n", fe.Path, "FieldError.Path of the NaN argument")

	good := assistantToolCall("good", "", "c2")
	pGood := fakeAppend(t, s, good, "Append(valid entry)")
	// Breaking the caller's value after the call changes nothing either.
	good.Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["n"] = math.Inf(1)
	require.NoError(t, fakeWaitPending(t, pGood, "valid append"),
		"a valid entry made invalid by the caller after Append returned must still be committed: "+
			"the store validated and copied it at call time")

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{assistantToolCall("good", "", "c2")}, got,
		"only the valid entry, as it was at call time, is stored")
}

// Rule 10.3.2, 10.3.3: a child appended right after its parent, without
// waiting, sees the parent committed in its turn.
func TestLab10_3_ParentThenChildWithoutWaiting(t *testing.T) {
	s := session.NewInMemorySessionStore()
	entries := []session.SessionEntry{
		user("a", "", "list files"),
		assistantToolCall("b", "a", "c1"),
		toolResult("r", "b", "c1"),
		metadata("m", "r"),
	}
	ps := memAppendAll(t, s, entries, "chain a<-b<-r<-m, no waits")
	memRequireCommitted(t, ps, entries, "Append(parent) then Append(child) without waiting — "+
		"lab 10.3: duplicate/parent checks run in the append's turn, after the parent was committed")

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "r", "m"}, ids(got), "entries in commit (= call) order")
}

// Rule 10.3.3, 10.3.4: a child appended before its parent is rejected in its
// turn; the parent behind it is still committed.
func TestLab10_3_ChildBeforeParentRejected(t *testing.T) {
	s := session.NewInMemorySessionStore()
	pChild := fakeAppend(t, s, assistantText("b", "a", "hi"), "Append(child b of a)")
	pParent := fakeAppend(t, s, user("a", "", "hello"), "Append(parent a)")

	err := fakeWaitPending(t, pChild, "child before parent")
	var mp *session.MissingParentError
	require.True(t, errors.As(err, &mp),
		"Append(b with parent a) before Append(a) = %s; want *MissingParentError — "+
			"lab 10.3: when b's turn comes, a is not committed", fakeDescribe(err))
	assert.Equal(t, "b", mp.ChildID, "MissingParentError.ChildID")
	assert.Equal(t, "a", mp.ParentID, "MissingParentError.ParentID")

	require.NoError(t, fakeWaitPending(t, pParent, "parent after rejected child"),
		"Append(a) after the rejected child must succeed: a rejected append rejects only itself")

	pAgain := fakeAppend(t, s, assistantText("b", "a", "hi"), "Append(b again)")
	require.NoError(t, fakeWaitPending(t, pAgain, "child after parent"),
		"b was rejected, so it was never stored; appending it again after a must succeed")

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, ids(got), "rejected child not stored; parent and re-appended child are")
}

// Rule 10.3.3: the second of two appends with one id, made without waiting,
// is rejected in its turn.
func TestLab10_3_DuplicateIDJudgedAtTurn(t *testing.T) {
	s := session.NewInMemorySessionStore()
	p1 := fakeAppend(t, s, user("x", "", "first"), "Append(x)")
	p2 := fakeAppend(t, s, user("x", "", "second, different text"), "Append(x again)")

	require.NoError(t, fakeWaitPending(t, p1, "first x"), "the first Append(x) must be committed")
	err := fakeWaitPending(t, p2, "second x")
	var de *session.DuplicateIDError
	require.True(t, errors.As(err, &de),
		"second Append(x) without waiting = %s; want *DuplicateIDError — lab 10.3: in its turn the "+
			"first x is committed, so the second is a duplicate even though its content differs", fakeDescribe(err))
	assert.Equal(t, "x", de.ID, "DuplicateIDError.ID")

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("x", "", "first")}, got, "only the first x is stored")
}

// Rule 10.3.4: invalid, duplicate and orphan appends reject only themselves.
func TestLab10_3_RejectedAppendRejectsOnlyItself(t *testing.T) {
	s := session.NewInMemorySessionStore()
	invalid := user("", "", "no id")
	entries := []session.SessionEntry{
		user("a", "", "hello"),           // ok
		invalid,                          // *FieldError at call time
		user("a", "", "again"),           // duplicate in its turn
		assistantText("o", "nope", "hi"), // missing parent in its turn
		assistantText("b", "a", "hi"),    // ok
		metadata("m", "b"),               // ok
	}
	ps := memAppendAll(t, s, entries, "mixed appends, no waits")

	require.NoError(t, fakeWaitPending(t, ps[0], "a"), "Append(a) must be committed")
	err := fakeWaitPending(t, ps[1], "entry without id")
	var fe *session.FieldError
	require.True(t, errors.As(err, &fe), "Append(entry with ID \"\") = %s; want *FieldError", fakeDescribe(err))
	assert.Equal(t, "entry.id", fe.Path, "FieldError.Path of the empty id")
	err = fakeWaitPending(t, ps[2], "duplicate a")
	var de *session.DuplicateIDError
	require.True(t, errors.As(err, &de), "second Append(a) = %s; want *DuplicateIDError", fakeDescribe(err))
	err = fakeWaitPending(t, ps[3], "orphan o")
	var mp *session.MissingParentError
	require.True(t, errors.As(err, &mp), "Append(o with parent nope) = %s; want *MissingParentError", fakeDescribe(err))
	assert.Equal(t, "o", mp.ChildID)
	assert.Equal(t, "nope", mp.ParentID)
	for i := 4; i < 6; i++ {
		err := fakeWaitPending(t, ps[i], entries[i].ID)
		require.NoError(t, err, "Append(%q) after three rejected appends = %s; want nil — "+
			"lab 10.3: a rejected append rejects only itself, the store goes on", entries[i].ID, fakeDescribe(err))
	}

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("a", "", "hello"), assistantText("b", "a", "hi"), metadata("m", "b")}, got,
		"only the three accepted entries are stored, in call order")
}

// Rule 10.3.5: Entries returns deep copies; changing them changes nothing stored.
func TestLab10_3_EntriesReturnsDeepCopies(t *testing.T) {
	s := session.NewInMemorySessionStore()
	tree := chapterTree()
	memRequireCommitted(t, memAppendAll(t, s, tree, "chapter tree"), tree, "chapter tree")

	first, err := fakeEntries(t, s, "first Entries")
	require.NoError(t, err)
	require.Equal(t, chapterTree(), first, "Entries() after appending the chapter tree")

	first[0].ID = "changed"
	first[0].Message.(*session.UserMessage).Content[0].Text = "changed"
	call := first[1].Message.(*session.AssistantMessage)
	call.Content[0] = session.TextContent{Text: "changed"}
	call.Content[1].(session.ToolCall).Arguments["path"] = "/etc"
	call.Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["skip"].([]any)[1] = "changed"
	call.Usage.TotalTokens = 1
	first[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["count"] = 99.0
	first[4].Value.(map[string]any)["tags"].([]any)[0] = "changed"
	first[3], first[4] = first[4], first[3]

	second, err := fakeEntries(t, s, "second Entries")
	require.NoError(t, err)
	assert.Equal(t, chapterTree(), second,
		"the caller changed the first Entries() result (id, text, tool args, usage, details, metadata value, order); "+
			"the second Entries() shows it — lab 10.3: every read returns an independent deep copy")
}

// Rule 10.3.2, 10.3.5: Entries waits for every Append called before it.
func TestLab10_3_EntriesSeesEveryEarlierAppend(t *testing.T) {
	// A store whose Entries does not wait its turn may still see every
	// append by luck, when the scheduler happened to finish them first. So
	// the check runs on many fresh stores: a wrong Entries is caught by
	// one of them, a right one passes every time.
	const rounds, n = 100, 50
	var entries []session.SessionEntry
	parent := ""
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("e%02d", i)
		entries = append(entries, user(id, parent, "step "+id))
		parent = id
	}
	for round := 1; round <= rounds; round++ {
		s := session.NewInMemorySessionStore()
		ps := memAppendAll(t, s, entries, "50 chained appends, no waits")
		// No Wait before Entries: it must see all fifty anyway.
		got, err := fakeEntries(t, s, "Entries right after 50 appends")
		require.NoError(t, err, "Entries() right after 50 appends")
		require.Equal(t, ids(entries), ids(got),
			"round %d of %d: Entries() called after 50 Append calls (none waited for) returned %d entries, want all 50 in call order: Entries must wait its turn behind every Append called before it (lab 10.3)", round, rounds, len(got))
		require.Equal(t, entries, got, "round %d: Entries() must return the entries exactly as appended", round)
		memRequireCommitted(t, ps, entries, "50 chained appends")
	}
}

// Rule 10.3.6: many goroutines append at once; every entry is committed and
// each goroutine's entries keep its call order. Run with -race.
func TestLab10_3_ConcurrentAppends(t *testing.T) {
	const goroutines, perG = 8, 25
	s := session.NewInMemorySessionStore()

	errs := make(chan error, 2*goroutines*perG) // room for every error: senders never block
	caught := newPanics(goroutines)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			defer caught.catch("Append, Entries or Wait, in one of 8 goroutines appending at once,")
			var ps []*session.Pending
			for j := 0; j < perG; j++ {
				id := fmt.Sprintf("g%d-%02d", g, j)
				ps = append(ps, s.Append(user(id, "", id)))
				if j%10 == 0 { // readers run concurrently with writers too
					if _, err := s.Entries(); err != nil {
						errs <- fmt.Errorf("Entries() during appends: %w", err)
					}
				}
			}
			for j, p := range ps {
				if err := p.Wait(); err != nil {
					errs <- fmt.Errorf("Append(g%d-%02d): %w", g, j, err)
				}
			}
		}(g)
	}
	memWaitGroup(t, &wg, caught, fmt.Sprintf("%d goroutines appending %d entries each", goroutines, perG))
	close(errs)
	for err := range errs {
		t.Errorf("concurrent use: %s; want every distinct root committed", fakeDescribe(err))
	}

	got, err := fakeEntries(t, s, "Entries after concurrent appends")
	require.NoError(t, err)
	require.Len(t, got, goroutines*perG, "every one of the %d distinct roots must be committed", goroutines*perG)
	pos := map[string]int{}
	for i, e := range got {
		_, dup := pos[e.ID]
		require.False(t, dup, "entry %q appears twice in Entries()", e.ID)
		pos[e.ID] = i
	}
	for g := 0; g < goroutines; g++ {
		for j := 1; j < perG; j++ {
			prev, cur := fmt.Sprintf("g%d-%02d", g, j-1), fmt.Sprintf("g%d-%02d", g, j)
			assert.Less(t, pos[prev], pos[cur],
				"goroutine %d appended %s before %s, but Entries() has them the other way round — "+
					"lab 10.3: appends complete in call order (FIFO)", g, prev, cur)
		}
	}
}

// memWaitGroup waits for wg, the goroutines a test started, and fails the
// test, naming the call, if one of them panicked (handed back to caught),
// or if they have not finished after fakeTimeout.
func memWaitGroup(t *testing.T, wg *sync.WaitGroup, caught panics, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		caught.report(t)
	case <-time.After(fakeTimeout):
		if caught.any(t) {
			t.Fatalf("%s: the other goroutines did not finish after that panic: a panic while a goroutine holds "+
				"the store's lock leaves it locked for every later call, unless the lock is released with defer", what)
		}
		t.Fatalf("%s did not finish — a deadlock in Append or Entries?", what)
	}
}

// Rule 10.3.6, 10.3.2: goroutines released at the same instant append chains
// at once; every chain is committed whole and in order. The race detector
// reports unguarded state (the queue's tail, the committed entries) in the
// first round; without it, many rounds make a lost or reordered append show.
func TestLab10_3_ManyGoroutinesAppendAtOnce(t *testing.T) {
	const goroutines, perG = 8, 60
	rounds := 300
	if raceDetector {
		rounds = 3
	}
	for round := 1; round <= rounds; round++ {
		s := session.NewInMemorySessionStore()
		start := make(chan struct{})
		errs := make(chan error, goroutines*perG) // room for every error: senders never block
		caught := newPanics(goroutines)
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				defer caught.catch("Append or Wait, in one of 8 goroutines appending chains at once,")
				<-start // all goroutines start appending together
				ps := make([]*session.Pending, perG)
				parent := ""
				for j := range ps {
					id := fmt.Sprintf("g%d-%02d", g, j)
					ps[j] = s.Append(user(id, parent, id))
					parent = id
				}
				for j, p := range ps {
					if err := p.Wait(); err != nil {
						errs <- fmt.Errorf("Append(%q) = %s", fmt.Sprintf("g%d-%02d", g, j), fakeDescribe(err))
					}
				}
			}(g)
		}
		close(start)
		memWaitGroup(t, &wg, caught, fmt.Sprintf("round %d: %d goroutines appending %d entries each", round, goroutines, perG))
		close(errs)
		for err := range errs {
			t.Fatalf("round %d of %d: %d goroutines each appended a chain (every entry the child of the one before) "+
				"without waiting: %v; want every append committed — lab 10.3: each goroutine's appends complete in its "+
				"call order and two callers never share a turn; guard the queue's tail with the lock", round, rounds, goroutines, err)
		}
		got, err := fakeEntries(t, s, "Entries after the appends")
		require.NoError(t, err)
		require.Len(t, got, goroutines*perG, "round %d: Entries() after %d committed appends returned %d entries: "+
			"an append was lost (lab 10.3)", round, goroutines*perG, len(got))
		next := make([]int, goroutines) // the next index expected of each goroutine's chain
		for _, e := range got {
			var g, j int
			_, err := fmt.Sscanf(e.ID, "g%d-%02d", &g, &j)
			require.NoError(t, err, "round %d: Entries() holds an entry %q that nobody appended", round, e.ID)
			require.Equal(t, next[g], j, "round %d: Entries() holds %q where goroutine %d's entry #%d was due: "+
				"appends of one goroutine must be committed in its call order (lab 10.3)", round, e.ID, g, next[g])
			next[g]++
		}
	}
}

// Rule 10.3.5, 10.3.6: Entries copies the committed entries in its own turn:
// one goroutine reads a large store again and again while another keeps
// appending, and every read is a whole, consistent prefix of the history.
// Copying after the turn (outside the queue) races with the appends behind
// it: the race detector reports it at once, and without it the copy is
// torn or runs past what it measured.
func TestLab10_3_EntriesWhileOthersAppend(t *testing.T) {
	// Without the race detector a torn copy must be seen to be caught, so
	// the store is large and the reads many; with it, a copy outside the
	// turn is reported whenever it meets an append, however small.
	prefill, reads := 5000, 60
	if raceDetector {
		prefill, reads = 300, 2
	}
	const most = 200_000 // the writer stops here at the latest
	// idAt is the id of the j-th entry appended.
	idAt := func(j int) string {
		if j < prefill {
			return fmt.Sprintf("p%05d", j)
		}
		return fmt.Sprintf("x%06d", j-prefill)
	}
	s := session.NewInMemorySessionStore()
	parent := ""
	var last *session.Pending
	for j := 0; j < prefill; j++ {
		id := idAt(j)
		last = s.Append(user(id, parent, id))
		parent = id
	}
	require.NoError(t, fakeWaitPending(t, last, fmt.Sprintf("the last of %d appends", prefill)))

	start, stop := make(chan struct{}), make(chan struct{})
	caught := newPanics(2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the writer: appends in short bursts until the reader is done
		defer wg.Done()
		defer caught.catch("Append or Wait, in the writer beside a reader,")
		<-start
		parent := idAt(prefill - 1)
		for j := prefill; j < prefill+most; j++ {
			select {
			case <-stop:
				return
			default:
			}
			id := idAt(j)
			p := s.Append(user(id, parent, id))
			parent = id
			if j%4 == 3 {
				_ = p.Wait() // a pause lets the reader run beside the appends
			}
		}
	}()
	var bad string
	go func() { // the reader
		defer wg.Done()
		defer close(stop)
		defer caught.catch("Entries(), in the reader beside a writer,")
		<-start
		for k := 1; k <= reads; k++ {
			got, err := s.Entries()
			switch {
			case err != nil:
				bad = fmt.Sprintf("Entries() #%d = %s", k, fakeDescribe(err))
			case len(got) < prefill || len(got) > prefill+most:
				bad = fmt.Sprintf("Entries() #%d returned %d entries, want at least the %d committed before it", k, len(got), prefill)
			default:
				for i, e := range got {
					if want := idAt(i); e.ID != want {
						bad = fmt.Sprintf("Entries() #%d holds %q at position %d, where %q was committed: the copy mixes "+
							"two moments of the history", k, e.ID, i, want)
						break
					}
				}
			}
			if bad != "" {
				return
			}
		}
	}()
	close(start)
	memWaitGroup(t, &wg, caught, "reading while appending")
	assert.Empty(t, bad, "a reader called Entries() while a writer kept appending: %s — lab 10.3: Entries takes its "+
		"turn in the queue and copies the entries inside that turn, so it sees exactly the appends before it", bad)
}
