package factlog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// Rule 4.4.1, 4.4.3: a run that jumps ahead starts afresh; events of a run
// not started yet are ignored.
func TestLab4_4_HiddenRunsJumpAhead(t *testing.T) {
	s := reduceAll(factlog.State{}, start(1), delta(1, "x"), toolStart(1, "a"), delta(5, "too early"), start(7))
	assert.Equal(t, factlog.State{RunID: 7, Status: factlog.StatusRunning}, normal(s),
		"start(7) after run 1 begins run 7 afresh; delta(5) was of no current run")
	s = reduceAll(s, toolEnd(7, "b"), delta(7, "y"), delta(6, "late"), end(7), delta(7, "after"))
	assert.Equal(t, factlog.State{RunID: 7, Status: factlog.StatusDone, Deltas: []string{"y"},
		Tools: map[string]factlog.ToolStatus{"b": factlog.ToolDone}}, normal(s))
}

// Rule 4.4.2: a chain of states stays a set of valid snapshots.
func TestLab4_4_HiddenSnapshotsStayValid(t *testing.T) {
	var snaps []factlog.State
	s := factlog.Reduce(factlog.State{}, start(3))
	for _, text := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		snaps = append(snaps, s)
		s = factlog.Reduce(s, delta(3, text))
		s = factlog.Reduce(s, toolStart(3, text))
	}
	for i, snap := range snaps {
		assert.Len(t, snap.Deltas, i, "snapshot %d: Reduce changed an earlier state's Deltas", i)
		assert.Len(t, snap.Tools, i, "snapshot %d: Reduce changed an earlier state's Tools", i)
	}
	a := factlog.Reduce(snaps[4], delta(3, "left"))
	b := factlog.Reduce(snaps[4], delta(3, "right"))
	require.Len(t, a.Deltas, 5, "Reduce(snapshot 4, delta).Deltas")
	require.Len(t, b.Deltas, 5, "Reduce(snapshot 4, delta).Deltas")
	assert.Equal(t, "left", a.Deltas[4], "two states reduced from one snapshot share nothing")
	assert.Equal(t, "right", b.Deltas[4], "two states reduced from one snapshot share nothing")
	ended := factlog.Reduce(snaps[4], end(3))
	assert.Equal(t, factlog.StatusRunning, snaps[4].Status)
	assert.Equal(t, factlog.StatusDone, ended.Status)
}

// Rule 4.4.4, 4.4.8: three subscribers, each with its own copy, in order.
func TestLab4_4_HiddenEverySubscriberItsOwnCopy(t *testing.T) {
	var order []int
	var given [3]factlog.State
	armed := true // on the first Run each subscriber writes into its state; later it only counts
	subscriber := func(i int) func(factlog.State) {
		return func(s factlog.State) {
			order = append(order, i)
			if !armed {
				return
			}
			given[i] = s.Clone()
			if s.Tools != nil {
				s.Tools["x"] = factlog.ToolDone
				delete(s.Tools, "t")
			}
			if len(s.Deltas) > 0 {
				s.Deltas[len(s.Deltas)-1] += "!"
			}
		}
	}
	// written reports whether s holds what a subscriber wrote into its state.
	written := func(s factlog.State) bool {
		_, x := s.Tools["x"]
		return x || (len(s.Deltas) > 0 && strings.HasSuffix(s.Deltas[len(s.Deltas)-1], "!"))
	}
	const wrote = "each subscriber wrote into the state it was given: a \"!\" after the last delta, tool x done, tool t deleted"
	k := factlog.NewKernel(subscriber(0), subscriber(1), subscriber(2))
	ret, err := k.Run([]factlog.Event{start(2), toolStart(2, "t"), delta(2, "hi")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	armed = false
	assert.Equal(t, []int{0, 1, 2}, order, "Kernel.Run(3 events) called the subscribers %v; want each once, in the "+
		"order NewKernel got them (rule 4.4.8)", order)
	want := factlog.State{RunID: 2, Status: factlog.StatusRunning, Deltas: []string{"hi"},
		Tools: map[string]factlog.ToolStatus{"t": factlog.ToolRunning}}

	kernel, err := k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil): "+wantNoRunError)
	if written(kernel) {
		require.Failf(t, "a subscriber changed the kernel's state", "Kernel.Run(start(2), tool_start(2, t), "+
			"delta(2, hi)): %s. Then Run(nil) returned %+v: the kernel's own state changed with theirs, so a "+
			"subscriber was handed the kernel's slice and map. Give each its own deep copy, state.Clone() "+
			"(rule 4.4.4)", wrote, kernel)
	}
	assert.Equal(t, want, kernel, "Run(nil): the kernel's state as the queue left it")
	for i, g := range given {
		if written(g) {
			assert.Failf(t, "subscribers share a copy", "subscriber %d was given %+v: %s, and this one saw what "+
				"those before it wrote, so they share one copy. Each gets its own (rule 4.4.4)", i, g, wrote)
		} else {
			assert.Equal(t, want, g, "subscriber %d was given %+v; want the state after the whole queue (rule 4.4.8)", i, g)
		}
	}
	assert.Equal(t, want, ret, "Kernel.Run(start(2), tool_start(2, t), delta(2, hi)) returned %+v: %s, and the "+
		"state Run returned changed with theirs. Run returns a copy of its own (rule 4.4.4)", ret, wrote)

	kernel.Tools["y"] = factlog.ToolRunning
	kernel.Deltas[0] = "changed by the caller"
	ret2, err := k.Run([]factlog.Event{delta(2, " there")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, []string{"hi", " there"}, ret2.Deltas, "the caller changed the Deltas of the state Run(nil) "+
		"returned, and the kernel changed with them: Run returns a copy (rule 4.4.4)")
	assert.Equal(t, map[string]factlog.ToolStatus{"t": factlog.ToolRunning}, ret2.Tools,
		"the caller changed the Tools of the state Run(nil) returned, and the kernel changed with them: Run "+
			"returns a copy (rule 4.4.4)")
}

// Rule 4.4.5: an abort of an old run overtakes nothing of the current one;
// an abort of the current run stops even a start queued before it.
func TestLab4_4_HiddenAbortOnlyItsRun(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(2), delta(2, "a")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	queue := []factlog.Event{delta(2, "b"), abort(1), delta(2, "c")}
	got, err := k.Run(queue)
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.StatusRunning, got.Status, "abort(1) is of an earlier run: run 2 goes on")
	assert.Equal(t, []string{"a", "b", "c"}, got.Deltas)
	assert.Equal(t, []factlog.Event{delta(2, "b"), abort(1), delta(2, "c")}, queue, "the caller's queue is unchanged")

	got, err = k.Run([]factlog.Event{delta(2, "d"), start(3), delta(3, "x"), abort(2), abort(3)})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 3, Status: factlog.StatusRunning, Deltas: []string{"x"}}, normal(got),
		"abort(2) is handled first and stops run 2; abort(3) comes before run 3 has started, so it is of no current "+
			"run and ignored; then delta(2) is late, and start(3) begins run 3")
}

// Rule 4.4.6: an unknown kind anywhere, even last, refuses the whole queue.
func TestLab4_4_HiddenUnknownKindLast(t *testing.T) {
	told := 0
	k := factlog.NewKernel(func(factlog.State) { told++ })
	_, err := k.Run([]factlog.Event{start(1), delta(1, "a"), end(1), {Kind: "", RunID: 1}})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Run(start, delta, end, an event with no kind) error = %s", describe(err))
	assert.Equal(t, factlog.UnknownEventError{Index: 3, Kind: ""}, *unknown)
	assert.Zero(t, told, "a refused queue tells no subscriber")
	got, err := k.Run(nil)
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{}, normal(got), "nothing of the refused queue was applied: still idle")
}

// Rule 4.4.5: a cancel of the running run stops it before anything queued,
// a newer run in the same queue still starts, and a long queue keeps its
// order around several aborts.
func TestLab4_4_HiddenAbortsBeforeEverythingQueued(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(5), toolStart(5, "grep")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	got, err := k.Run([]factlog.Event{toolEnd(5, "grep"), start(6), abort(5), delta(6, "z"), abort(6)})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 6, Status: factlog.StatusRunning, Deltas: []string{"z"}}, normal(got),
		"run 5 running, Run(tool_end(5), start(6), abort(5), delta(6), abort(6)): abort(5) stops run 5 first, "+
			"abort(6) comes while run 6 has not started and is ignored, then start(6) and delta(6) apply")

	queue := []factlog.Event{toolStart(6, "t")}
	want := []string{"z"}
	for i := 0; i < 30; i++ {
		if i%9 == 4 {
			queue = append(queue, abort(3+i%2))
		}
		text := fmt.Sprintf("part %d", i)
		queue = append(queue, delta(6, text))
		want = append(want, text)
	}
	original := append([]factlog.Event(nil), queue...)
	got, err = k.Run(queue)
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, want, got.Deltas, "the events that are not aborts keep their queue order")
	assert.Equal(t, map[string]factlog.ToolStatus{"t": factlog.ToolRunning}, got.Tools)
	assert.Equal(t, original, queue, "the caller's queue is unchanged")

	got, err = k.Run([]factlog.Event{delta(6, "lost"), abort(6), abort(6), start(7)})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 7, Status: factlog.StatusRunning}, normal(got),
		"two aborts of run 6 stop it once; delta(6) is late; start(7) still begins run 7")
}

// Rule 4.4.7, 4.4.6: no error for ended runs, early and late events; an unknown
// kind at the front returns the zero State even from a busy kernel.
func TestLab4_4_HiddenIgnoredEventsAreNoError(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(3), delta(3, "x"), toolStart(3, "t")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	for _, tc := range []struct {
		what  string
		queue []factlog.Event
	}{
		{"Run(end(3)) ends run 3", []factlog.Event{end(3)}},
		{"Run(delta(3), abort(3)) after run 3 ended: both ignored (rule 4.4.3)",
			[]factlog.Event{delta(3, "after the end"), abort(3)}},
		{"Run(delta(9), tool_end(8)) of runs that have not started: ignored (rule 4.4.3)",
			[]factlog.Event{delta(9, "too early"), toolEnd(8, "u")}},
		{"Run(start(2), start(3)) after run 3 ended: neither is newer than run 3, so neither begins a run, and run 3 " +
			"stays done (rule 4.4.3)", []factlog.Event{start(2), start(3)}},
	} {
		got, err := k.Run(tc.queue)
		assert.NoError(t, err, "%s: error = %s; "+wantNoRunError, tc.what, describe(err))
		assert.Equal(t, factlog.State{RunID: 3, Status: factlog.StatusDone, Deltas: []string{"x"},
			Tools: map[string]factlog.ToolStatus{"t": factlog.ToolRunning}}, normal(got), tc.what)
	}
	k2 := factlog.NewKernel()
	_, err = k2.Run([]factlog.Event{start(8), toolStart(8, "sh")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	got, err := k2.Run([]factlog.Event{toolEnd(8, "sh"), abort(8), abort(8)})
	assert.NoError(t, err, "Kernel.Run(tool_end, abort, abort) of a running run = %s: an abort is no error", describe(err))
	assert.Equal(t, factlog.StatusAborted, got.Status)
	assert.Equal(t, map[string]factlog.ToolStatus{"sh": factlog.ToolRunning}, got.Tools, "the abort came first")

	got, err = k.Run([]factlog.Event{{Kind: "START", RunID: 4}, start(4)})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Kernel.Run(START, start) = %s", describe(err))
	assert.Equal(t, factlog.UnknownEventError{Index: 0, Kind: "START"}, *unknown)
	assert.Equal(t, factlog.State{}, got, "a refused queue comes with the zero State, not the kernel's run 3")
}

// Rule 4.4.8: over several Runs, each subscriber gets one call per Run with
// exactly the state that Run returned.
func TestLab4_4_HiddenSubscribersSeeOnlyFinalStates(t *testing.T) {
	var a, b []factlog.State
	k := factlog.NewKernel(func(s factlog.State) { a = append(a, s) }, func(s factlog.State) { b = append(b, s) })
	var returned []factlog.State
	for i, queue := range [][]factlog.Event{
		{start(1), delta(1, "one"), delta(1, "two"), delta(1, "three")},
		{},
		{toolStart(1, "x"), toolEnd(1, "x"), toolStart(1, "y"), end(1)},
		{delta(1, "late"), delta(0, "older")},
		{start(2)},
	} {
		got, err := k.Run(queue)
		require.NoError(t, err, "Run %d: "+wantNoRunError, i+1)
		returned = append(returned, got)
		require.Len(t, a, i+1, "after Run %d, the first subscriber was called %d times; want once per Run", i+1, len(a))
		require.Len(t, b, i+1, "after Run %d, the second subscriber was called %d times; want once per Run", i+1, len(b))
	}
	for i := range returned {
		assert.Equal(t, normal(returned[i]), normal(a[i]), "Run %d: the first subscriber's state", i+1)
		assert.Equal(t, normal(returned[i]), normal(b[i]), "Run %d: the second subscriber's state", i+1)
	}
}

// Rule 4.4.6: several aborts and a start before an unknown kind: none of
// them is applied.
func TestLab4_4_HiddenRefusedQueueOfAborts(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(2), toolStart(2, "sh")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	_, err = k.Run([]factlog.Event{abort(1), abort(2), start(3), abort(3), {Kind: "resume", RunID: 3}, delta(3, "x")})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Run(aborts, start, resume) = %s", describe(err))
	assert.Equal(t, factlog.UnknownEventError{Index: 4, Kind: "resume"}, *unknown)
	got, err := k.Run(nil)
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 2, Status: factlog.StatusRunning,
		Tools: map[string]factlog.ToolStatus{"sh": factlog.ToolRunning}}, normal(got),
		"the refused queue's aborts were applied: run 2 must still be running")
}

// Rule 4.4.1: tool_end of a tool that never started, twice, and after it
// ended, leaves it done; so does a tool_start that comes after the end, in
// the same queue or a later one.
func TestLab4_4_HiddenToolEndsWithoutStarts(t *testing.T) {
	s := reduceAll(factlog.State{}, start(4), toolEnd(4, "a"), toolEnd(4, "a"), toolStart(4, "b"), toolEnd(4, "b"), toolEnd(4, "c"))
	assert.Equal(t, map[string]factlog.ToolStatus{"a": factlog.ToolDone, "b": factlog.ToolDone, "c": factlog.ToolDone}, s.Tools)
	s = reduceAll(s, toolStart(4, "a"), toolStart(4, "b"), toolStart(4, "d"))
	assert.Equal(t, map[string]factlog.ToolStatus{"a": factlog.ToolDone, "b": factlog.ToolDone, "c": factlog.ToolDone,
		"d": factlog.ToolRunning}, s.Tools, "tool_start(a), tool_start(b) after their tool_end: a done tool stays done "+
		"(rule 4.4.1); tool_start(d) sets d running")

	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(6), toolStart(6, "sh"), toolEnd(6, "sh"), toolStart(6, "sh")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	got, err := k.Run([]factlog.Event{toolStart(6, "sh"), delta(6, "ok")})
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 6, Status: factlog.StatusRunning, Deltas: []string{"ok"},
		Tools: map[string]factlog.ToolStatus{"sh": factlog.ToolDone}}, normal(got),
		"run 6's sh ended; tool_start(sh) after it, in the same queue and in the next, leaves sh done (rule 4.4.1)")
}

// Rule 4.4.4: the caller reorders and shortens its slice of subscribers
// after NewKernel; the kernel tells its own, in its order.
func TestLab4_4_HiddenSubscribersSliceReused(t *testing.T) {
	var told []int
	subs := make([]func(factlog.State), 3)
	for i := range subs {
		i := i
		subs[i] = func(factlog.State) { told = append(told, i) }
	}
	k := factlog.NewKernel(subs...)
	subs[0], subs[2] = subs[2], subs[0]
	subs[1] = func(factlog.State) { told = append(told, 99) }
	_, err := k.Run(nil)
	require.NoError(t, err, "Kernel.Run: "+wantNoRunError)
	assert.Equal(t, []int{0, 1, 2}, told, "the kernel keeps the subscribers NewKernel was given, in that order")
}
