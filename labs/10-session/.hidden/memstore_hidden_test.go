package session_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Rule 10.3.1: tool result details, metadata values and content slices are
// snapshotted at call time too.
func TestLab10_3_HiddenSnapshotOfDetailsAndValues(t *testing.T) {
	s := session.NewInMemorySessionStore()
	a := user("a", "", "list files")
	r := toolResult("r", "a", "c1")
	m := metadata("m", "r")
	ps := memAppendAll(t, s, []session.SessionEntry{a, r, m}, "three appends")

	a.Message.(*session.UserMessage).Content = append(a.Message.(*session.UserMessage).Content[:0], session.TextContent{Text: "replaced"})
	res := r.Message.(*session.ToolResultMessage)
	res.Details.(map[string]any)["count"] = 42.0
	res.Details.(map[string]any)["names"].([]any)[0] = "changed.md"
	res.Content[0].Text = "changed"
	m.Value.(map[string]any)["text"] = "changed"
	m.Value.(map[string]any)["tags"].([]any)[0] = "changed"

	memRequireCommitted(t, ps, []session.SessionEntry{a, r, m}, "three appends")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("a", "", "list files"), toolResult("r", "a", "c1"), metadata("m", "r")}, got,
		"the caller changed user content, tool result details and a metadata value after Append returned; "+
			"the store shows it — lab 10.3: Append takes a deep snapshot at call time")
}

// Rule 10.3.3, 10.3.4: a rejected entry is not stored: its id stays free and
// it cannot serve as a parent.
func TestLab10_3_HiddenRejectedEntryIsNotStored(t *testing.T) {
	s := session.NewInMemorySessionStore()
	entries := []session.SessionEntry{
		assistantText("x", "ghost", "orphan"), // missing parent: rejected
		assistantText("y", "x", "child of the rejected x"),
		user("x", "", "x as a root"), // the id x is still free
		assistantText("y", "x", "now x exists"),
		user("x", "", "duplicate"),
	}
	ps := memAppendAll(t, s, entries, "five appends, no waits")

	var mp *session.MissingParentError
	err := fakeWaitPending(t, ps[0], "orphan x")
	require.True(t, errors.As(err, &mp), "Append(x, parent ghost) = %s; want *MissingParentError", fakeDescribe(err))
	err = fakeWaitPending(t, ps[1], "y under rejected x")
	require.True(t, errors.As(err, &mp),
		"Append(y, parent x) where x was rejected = %s; want *MissingParentError — a rejected append is never stored",
		fakeDescribe(err))
	assert.Equal(t, "y", mp.ChildID)
	assert.Equal(t, "x", mp.ParentID)
	require.NoError(t, fakeWaitPending(t, ps[2], "root x"), "the id of a rejected entry is still free")
	require.NoError(t, fakeWaitPending(t, ps[3], "y under root x"), "x is committed now, so y is accepted")
	var de *session.DuplicateIDError
	err = fakeWaitPending(t, ps[4], "x again")
	require.True(t, errors.As(err, &de), "Append(x) a second time = %s; want *DuplicateIDError", fakeDescribe(err))
	assert.Equal(t, "x", de.ID)

	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("x", "", "x as a root"), assistantText("y", "x", "now x exists")}, got)
}

// Rule 10.3.5: two reads share nothing with each other or with the store.
func TestLab10_3_HiddenReadsAreIndependent(t *testing.T) {
	s := session.NewInMemorySessionStore()
	tree := chapterTree()
	memRequireCommitted(t, memAppendAll(t, s, tree, "chapter tree"), tree, "chapter tree")
	one, err := fakeEntries(t, s, "first read")
	require.NoError(t, err)
	two, err := fakeEntries(t, s, "second read")
	require.NoError(t, err)

	two[1].Message.(*session.AssistantMessage).Usage.Input = 1000
	two[1].Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["all"] = false
	two[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["names"].([]any)[0] = "x"
	two[3].Message.(*session.AssistantMessage).Content[0] = session.TextContent{Text: "changed"}
	two[4].Value.(map[string]any)["text"] = "changed"

	assert.Equal(t, chapterTree(), one, "changing the second Entries() result changed the first one: reads share state")
	three, err := fakeEntries(t, s, "third read")
	require.NoError(t, err)
	assert.Equal(t, chapterTree(), three, "changing an Entries() result changed the store")
}

// Rule 10.3.2, 10.3.6: goroutines each append a chain without waiting while
// others read; every chain is committed whole and in order. Run with -race.
func TestLab10_3_HiddenConcurrentChains(t *testing.T) {
	const goroutines, perG = 6, 30
	s := session.NewInMemorySessionStore()
	errs := make(chan error, 2*goroutines*perG) // room for every error: senders never block
	caught := newPanics(goroutines)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			defer caught.catch("Append, Entries or Wait, in one of 6 goroutines appending chains,")
			var ps []*session.Pending
			parent := ""
			for j := 0; j < perG; j++ {
				id := fmt.Sprintf("c%d-%02d", g, j)
				ps = append(ps, s.Append(assistantText(id, parent, id)))
				parent = id
			}
			if _, err := s.Entries(); err != nil {
				errs <- err
			}
			for j, p := range ps {
				if err := p.Wait(); err != nil {
					errs <- fmt.Errorf("Append(c%d-%02d): %w", g, j, err)
				}
			}
		}(g)
	}
	memWaitGroup(t, &wg, caught, "concurrent chained appends")
	close(errs)
	for err := range errs {
		t.Errorf("concurrent chains: %s; want each child committed after its parent (same goroutine, FIFO)", fakeDescribe(err))
	}
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	require.Len(t, got, goroutines*perG)
	seen := map[string]bool{}
	for _, e := range got {
		if e.ParentID != "" {
			assert.True(t, seen[e.ParentID], "entry %q is stored before its parent %q", e.ID, e.ParentID)
		}
		seen[e.ID] = true
	}
}

// Rule 10.3.3: an orphan is judged in its turn: its Pending cannot be done
// while the append called just before it is not.
func TestLab10_3_HiddenRejectionWaitsItsTurn(t *testing.T) {
	for round := 0; round < 20; round++ {
		s := session.NewInMemorySessionStore()
		var last *session.Pending
		parent := ""
		for i := 0; i < 50; i++ {
			id := fmt.Sprintf("e%d", i)
			last = s.Append(user(id, parent, id))
			parent = id
		}
		orphan := s.Append(user("o", "nope", "orphan"))
		if fakeIsDone(orphan) && !fakeIsDone(last) {
			t.Fatalf("round %d: the orphan's Append completed before the append called just before it: it was judged at call time, not in its turn (lab 10.3)", round)
		}
		require.NoError(t, last.Wait(), "round %d: the chain of 50 appends must be committed", round)
		var missing *session.MissingParentError
		require.ErrorAs(t, orphan.Wait(), &missing, "round %d: an orphan must be rejected with a *MissingParentError", round)
	}
}

// Rule 10.3.6, 10.3.5: writers and readers released at the same instant:
// every read is a consistent state (each writer's chain a prefix of itself,
// in order) and every chain ends up whole. Run with -race.
func TestLab10_3_HiddenWritersAndReadersAtOnce(t *testing.T) {
	const writers, readers, perW = 4, 2, 40
	rounds := 120
	if raceDetector {
		rounds = 2
	}
	entryOf := func(w, j int) session.SessionEntry {
		id, parent := fmt.Sprintf("w%d.%02d", w, j), ""
		if j > 0 {
			parent = fmt.Sprintf("w%d.%02d", w, j-1)
		}
		if j%3 == 2 {
			return metadata(id, parent)
		}
		return assistantText(id, parent, id)
	}
	for round := 1; round <= rounds; round++ {
		s := session.NewInMemorySessionStore()
		start := make(chan struct{})
		problems := make(chan string, writers*perW+readers*perW)
		caught := newPanics(writers + readers)
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer caught.catch("Append or Wait, in one of 4 writers beside 2 readers,")
				<-start
				var ps []*session.Pending
				for j := 0; j < perW; j++ {
					ps = append(ps, s.Append(entryOf(w, j)))
				}
				for j, p := range ps {
					if err := p.Wait(); err != nil {
						problems <- fmt.Sprintf("Append(%q) = %s", entryOf(w, j).ID, fakeDescribe(err))
					}
				}
			}(w)
		}
		for r := 0; r < readers; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer caught.catch("Entries(), in one of 2 readers beside 4 writers,")
				<-start
				for k := 0; k < perW/4; k++ {
					got, err := s.Entries()
					if err != nil {
						problems <- "Entries() = " + fakeDescribe(err)
						return
					}
					next := make([]int, writers)
					for _, e := range got {
						var w, j int
						if _, err := fmt.Sscanf(e.ID, "w%d.%02d", &w, &j); err != nil || w >= writers || j != next[w] {
							problems <- fmt.Sprintf("Entries() returned %v: %q is out of its writer's order", ids(got), e.ID)
							return
						}
						next[w]++
					}
				}
			}()
		}
		close(start)
		memWaitGroup(t, &wg, caught, fmt.Sprintf("round %d: writers and readers at once", round))
		close(problems)
		for p := range problems {
			t.Fatalf("round %d of %d: %d writers and %d readers started together: %s — lab 10.3: appends complete in "+
				"call order, one turn at a time, and Entries copies inside its own turn", round, rounds, writers, readers, p)
		}
		got, err := fakeEntries(t, s, "Entries at the end")
		require.NoError(t, err)
		require.Len(t, got, writers*perW, "round %d: every append must be committed", round)
	}
}
