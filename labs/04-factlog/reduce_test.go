package factlog_test

// Public tests of the optional exercise 4.4, Reduce and Kernel. Run them with
//
//	go test -run Lab4_4

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// Event builders.
func start(run int) factlog.Event { return factlog.Event{Kind: factlog.EventStart, RunID: run} }
func delta(run int, text string) factlog.Event {
	return factlog.Event{Kind: factlog.EventDelta, RunID: run, Text: text}
}
func toolStart(run int, id string) factlog.Event {
	return factlog.Event{Kind: factlog.EventToolStart, RunID: run, ToolID: id}
}
func toolEnd(run int, id string) factlog.Event {
	return factlog.Event{Kind: factlog.EventToolEnd, RunID: run, ToolID: id}
}
func end(run int) factlog.Event   { return factlog.Event{Kind: factlog.EventEnd, RunID: run} }
func abort(run int) factlog.Event { return factlog.Event{Kind: factlog.EventAbort, RunID: run} }

// wantNoRunError says why a Run of a queue of known kinds must not fail.
const wantNoRunError = "want nil: every event of the queue is of a known kind, and Run's only error is the " +
	"*UnknownEventError (rule 4.4.7)"

// reduceAll folds events into s with Reduce.
func reduceAll(s factlog.State, events ...factlog.Event) factlog.State {
	for _, ev := range events {
		s = factlog.Reduce(s, ev)
	}
	return s
}

// normal makes empty and nil Deltas and Tools look the same, so that tests
// compare what a state holds, not how it was allocated.
func normal(s factlog.State) factlog.State {
	if len(s.Deltas) == 0 {
		s.Deltas = nil
	}
	if len(s.Tools) == 0 {
		s.Tools = nil
	}
	return s
}

// Rule 4.4.1: a run adds up: start, deltas in order, tools, end or abort.
func TestLab4_4_ARunAddsUp(t *testing.T) {
	s := reduceAll(factlog.State{}, start(1), delta(1, "Let me "), toolStart(1, "t1"), delta(1, "look."), toolEnd(1, "t1"),
		toolStart(1, "t2"))
	assert.Equal(t, factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"Let me ", "look."},
		Tools: map[string]factlog.ToolStatus{"t1": factlog.ToolDone, "t2": factlog.ToolRunning}}, normal(s),
		"Reduce over start(1), delta, tool_start(t1), delta, tool_end(t1), tool_start(t2)")

	assert.Equal(t, factlog.StatusDone, factlog.Reduce(s, end(1)).Status, "Reduce(running run 1, end(1)).Status")
	assert.Equal(t, factlog.StatusAborted, factlog.Reduce(s, abort(1)).Status, "Reduce(running run 1, abort(1)).Status")

	s = factlog.Reduce(s, start(2))
	assert.Equal(t, factlog.State{RunID: 2, Status: factlog.StatusRunning}, normal(s),
		"Reduce(run 1, start(2)): a newer run starts afresh: nothing of run 1's deltas or tools is left")
}

// Rule 4.4.2, 4.4.1: Reduce never changes the state it is given; two states
// reduced from one share nothing. Each result is checked first for what the
// event should do (rule 4.4.1), so that only a state that really changed is
// blamed on sharing.
func TestLab4_4_ReduceNeverChangesItsInput(t *testing.T) {
	deltas := make([]string, 1, 8) // room to grow: append would write into it
	deltas[0] = "a"
	s0 := factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: deltas,
		Tools: map[string]factlog.ToolStatus{"t1": factlog.ToolRunning}}
	const s0is = "s0, run 1 running with Deltas [a] and tool t1 running"

	s1 := factlog.Reduce(s0, delta(1, "b"))
	require.Equal(t, []string{"a", "b"}, s1.Deltas, "s1 := Reduce(%s, delta(1, b)).Deltas: a delta of the running "+
		"run appends its text to the deltas (rule 4.4.1)", s0is)
	requireUnchanged(t, s0, deltas, "s1 := Reduce(s0, delta(1, b))")

	s2 := factlog.Reduce(s0, delta(1, "c"))
	require.Equal(t, []string{"a", "c"}, s2.Deltas, "s2 := Reduce(%s, delta(1, c)).Deltas: a delta of the running "+
		"run appends its text to the deltas (rule 4.4.1)", s0is)
	requireUnchanged(t, s0, deltas, "s2 := Reduce(s0, delta(1, c))")
	require.Equal(t, []string{"a", "b"}, s1.Deltas, "s1 := Reduce(s0, delta b), then s2 := Reduce(s0, delta c): "+
		"s1.Deltas changed. s0.Deltas has spare capacity, so append(s0.Deltas, ...) writes into the array s0 "+
		"shares, and both results use it: copy first (s0.Clone())")

	s3 := factlog.Reduce(s0, toolEnd(1, "t1"))
	require.Equal(t, map[string]factlog.ToolStatus{"t1": factlog.ToolDone}, s3.Tools, "s3 := Reduce(%s, "+
		"tool_end(1, t1)).Tools: tool_end sets the tool done (rule 4.4.1)", s0is)
	requireUnchanged(t, s0, deltas, "s3 := Reduce(s0, tool_end(1, t1))")

	s4 := factlog.Reduce(s0, toolStart(1, "t2"))
	require.Equal(t, map[string]factlog.ToolStatus{"t1": factlog.ToolRunning, "t2": factlog.ToolRunning}, s4.Tools,
		"s4 := Reduce(%s, tool_start(1, t2)).Tools: tool_start sets the tool running, and t1 stays as it was in s0 "+
			"(rule 4.4.1)", s0is)
	requireUnchanged(t, s0, deltas, "s4 := Reduce(s0, tool_start(1, t2))")
	assert.Equal(t, map[string]factlog.ToolStatus{"t1": factlog.ToolDone}, s3.Tools, "s3 := Reduce(s0, tool_end t1), "+
		"then s4 := Reduce(s0, tool_start t2): s3.Tools changed: the two results share one map. Give each its own "+
		"(s0.Clone())")
}

// requireUnchanged requires that s0, the state the test handed to Reduce,
// and its Deltas' array (deltas, which has spare capacity) are as the test
// made them: Deltas [a] with nothing written after it, Tools {t1: running}.
func requireUnchanged(t *testing.T, s0 factlog.State, deltas []string, call string) {
	t.Helper()
	require.Equal(t, []string{"a"}, s0.Deltas, "%s changed the Deltas of the state it was given", call)
	require.Empty(t, deltas[:2][1], "%s wrote %q into the spare capacity of the given state's Deltas: "+
		"append(s0.Deltas, x) writes into the array s0 shares when it has room, so the next state reduced from s0 "+
		"overwrites this one's last delta. Copy first (state.Clone())", call, deltas[:2][1])
	require.Equal(t, map[string]factlog.ToolStatus{"t1": factlog.ToolRunning}, s0.Tools, "%s changed the Tools map "+
		"of the state it was given: a map is a reference, so copy it (state.Clone()) before you write", call)
}

// Rule 4.4.3: late events of an earlier run, and events after a run ended,
// are ignored.
func TestLab4_4_LateEventsIgnored(t *testing.T) {
	s := reduceAll(factlog.State{}, start(1), delta(1, "old"), start(2), delta(2, "new"))
	require.Equal(t, 2, s.RunID, "Reduce over start(1), delta(1), start(2), delta(2): run 2 is current")
	require.Equal(t, []string{"new"}, s.Deltas, "run 2's deltas only")

	for _, late := range []factlog.Event{delta(1, "late"), toolStart(1, "t9"), end(1), abort(1), start(1), start(2)} {
		got := factlog.Reduce(s, late)
		assert.Equal(t, normal(s), normal(got), "Reduce(run 2 running, %s of run %d): an event of an earlier run "+
			"arrived late, and a start that is not newer starts nothing. It must not touch run 2", late.Kind, late.RunID)
	}

	done := factlog.Reduce(s, end(2))
	require.Equal(t, factlog.StatusDone, done.Status, "Reduce(run 2, end(2)).Status")
	got := reduceAll(done, delta(2, "after the end"), toolStart(2, "t3"), abort(2))
	assert.Equal(t, normal(done), normal(got), "events of run 2 after its end are ignored: a finished run stays as it finished")

	aborted := factlog.Reduce(s, abort(2))
	require.Equal(t, factlog.StatusAborted, aborted.Status, "Reduce(run 2, abort(2)).Status")
	for _, over := range []factlog.State{done, aborted} {
		got := factlog.Reduce(over, start(2))
		assert.Equal(t, normal(over), normal(got), "Reduce(run 2 %s, start(2)): a start that is not newer starts "+
			"nothing, also when its run is over (rule 4.4.3). Only a larger run id begins a run: a late or repeated "+
			"start(2) must not bring run 2, which is %s, back to running", over.Status, over.Status)
	}
}

// vandalMark is what a vandal subscriber writes into the state it is given.
const vandalMark = "changed by a subscriber"

// vandalised reports whether s holds vandalMark, in its Deltas or its Tools.
func vandalised(s factlog.State) bool {
	for _, d := range s.Deltas {
		if d == vandalMark {
			return true
		}
	}
	for _, status := range s.Tools {
		if status == vandalMark {
			return true
		}
	}
	return false
}

// Rule 4.4.4: each subscriber gets its own copy; changing it changes
// nothing else: not the kernel, not what Run returns, not another
// subscriber's copy.
func TestLab4_4_SubscribersGetCopies(t *testing.T) {
	var second []factlog.State
	armed := true // the vandal writes into the first state it gets, then only watches
	vandal := func(s factlog.State) {
		if !armed {
			return
		}
		armed = false
		if len(s.Deltas) > 0 {
			s.Deltas[0] = vandalMark
		}
		if s.Tools != nil {
			s.Tools["t1"] = vandalMark
		}
	}
	watcher := func(s factlog.State) { second = append(second, s) }
	k := factlog.NewKernel(vandal, watcher)

	got, err := k.Run([]factlog.Event{start(1), delta(1, "hello"), toolStart(1, "t1")})
	require.NoError(t, err, "Kernel.Run(start, delta, tool_start): "+wantNoRunError)
	require.Len(t, second, 1, "Kernel.Run(3 events) told the second subscriber %d times; want once per Run, "+
		"after the whole queue (rule 4.4.8)", len(second))
	want := factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"hello"},
		Tools: map[string]factlog.ToolStatus{"t1": factlog.ToolRunning}}

	kernel, err := k.Run(nil) // the vandal only watches now: this shows the kernel's state
	require.NoError(t, err, "Kernel.Run(nil): "+wantNoRunError)
	if vandalised(kernel) {
		require.Failf(t, "a subscriber changed the kernel's state", "Kernel.Run(start(1), delta(1, hello), "+
			"tool_start(1, t1)) told a subscriber that wrote %q into the Deltas and Tools it was given; then "+
			"Run(nil) returned %+v: the kernel's own state changed with it. The subscriber was handed the kernel's "+
			"own slice and map. Give each subscriber its own deep copy, state.Clone() (rule 4.4.4)",
			vandalMark, kernel)
	}
	assert.Equal(t, want, kernel, "Run(nil) after Run(start(1), delta(1, hello), tool_start(1, t1)): the kernel's "+
		"state as the queue left it")
	if vandalised(got) {
		assert.Failf(t, "Run returned a subscriber's copy", "Kernel.Run(start(1), delta(1, hello), tool_start(1, t1)) "+
			"returned %+v: the first subscriber wrote %q into the state it was given, and the state Run returned "+
			"changed with it. Run returns a copy of its own, not one it handed to a subscriber (rule 4.4.4)",
			got, vandalMark)
	} else {
		assert.Equal(t, want, got, "Kernel.Run(start(1), delta(1, hello), tool_start(1, t1)) returns the state after "+
			"the queue")
	}
	if vandalised(second[0]) {
		assert.Failf(t, "subscribers share a copy", "the second subscriber was given %+v: it saw what the first one "+
			"wrote into its state. Each subscriber must get a copy of its own (rule 4.4.4)", second[0])
	} else {
		assert.Equal(t, want, second[0], "the second subscriber was given %+v; want the state after the whole queue "+
			"(rule 4.4.8)", second[0])
	}

	kernel.Deltas[0] = "changed by the caller"
	kernel.Tools["t1"] = "changed by the caller"
	got, err = k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil): "+wantNoRunError)
	assert.Equal(t, want, got, "the caller changed the Deltas and Tools of the state Run(nil) returned, and the "+
		"kernel changed with them: Run returns a copy too (rule 4.4.4)")
}

// Rule 4.4.5: an abort in the queue is applied before the events queued
// ahead of it.
func TestLab4_4_AbortOvertakesQueue(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(1), delta(1, "one")})
	require.NoError(t, err, "Kernel.Run(start(1), delta): "+wantNoRunError)

	queue := []factlog.Event{delta(1, " two"), toolStart(1, "t1"), abort(1), delta(1, " three")}
	got, err := k.Run(queue)
	require.NoError(t, err, "Kernel.Run(delta, tool_start, abort, delta): "+wantNoRunError)
	assert.Equal(t, factlog.StatusAborted, got.Status, "Run(...): run 1 was aborted")
	assert.Equal(t, []string{"one"}, got.Deltas, "Run(delta, tool_start, abort, delta): the abort is handled before "+
		"the events queued with it, so none of them reach the aborted run. A cancel that waits its turn in the queue "+
		"lets the run go on after the person said stop")
	assert.Empty(t, got.Tools, "no tool of the aborted queue started")
	assert.Equal(t, []factlog.Event{delta(1, " two"), toolStart(1, "t1"), abort(1), delta(1, " three")}, queue,
		"Run changed the caller's queue: find the aborts without reordering the caller's slice")

	got, err = k.Run([]factlog.Event{start(2), delta(2, "a"), delta(2, "b")})
	require.NoError(t, err, "Kernel.Run(start(2), delta, delta): "+wantNoRunError)
	assert.Equal(t, []string{"a", "b"}, got.Deltas, "events that are not aborts keep their order")
}

// Rule 4.4.6: an event of an unknown kind refuses the whole queue.
func TestLab4_4_UnknownEventAppliesNothing(t *testing.T) {
	told := 0
	k := factlog.NewKernel(func(factlog.State) { told++ })
	_, err := k.Run([]factlog.Event{start(1), delta(1, "ok")})
	require.NoError(t, err, "Kernel.Run(start(1), delta): "+wantNoRunError)
	require.Equal(t, 1, told, "the subscriber is told after a Run")

	_, err = k.Run([]factlog.Event{delta(1, " more"), {Kind: "retry", RunID: 1}, end(1)})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Kernel.Run(delta, retry, end) error = %s; want an *UnknownEventError: "+
		"\"retry\" is not an event kind", describe(err))
	assert.Equal(t, factlog.UnknownEventError{Index: 1, Kind: "retry"}, *unknown, "the error names the event's index and kind")
	assert.Equal(t, 1, told, "a refused queue tells no subscriber: nothing changed")

	got, err := k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil): "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"ok"}}, normal(got),
		"nothing of the refused queue was applied, not even the delta before the unknown event")
}

// Rule 4.4.5: Run applies the aborts first, in queue order, to the state the
// kernel held when Run was called, then every other event in its order: an
// abort stops the run that is running, an abort of a run that starts later
// in the same queue is of no current run, and nothing is dropped.
func TestLab4_4_AbortsFirstThenTheRestInOrder(t *testing.T) {
	k := factlog.NewKernel()
	_, err := k.Run([]factlog.Event{start(1), delta(1, "a")})
	require.NoError(t, err, "Kernel.Run(start(1), delta(1)): "+wantNoRunError)

	got, err := k.Run([]factlog.Event{delta(1, "b"), abort(1), start(2), delta(2, "x"), delta(2, "y")})
	require.NoError(t, err, "Kernel.Run(delta(1), abort(1), start(2), delta(2), delta(2)): "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 2, Status: factlog.StatusRunning, Deltas: []string{"x", "y"}}, normal(got),
		"run 1 running, then Run(delta(1) b, abort(1), start(2), delta(2) x, delta(2) y): abort(1) is applied first "+
			"and stops run 1 (so delta b is late), then start(2) begins run 2 and its deltas follow. An abort stops its "+
			"run; it does not throw away the rest of the queue")

	got, err = k.Run([]factlog.Event{start(3), delta(3, "p"), abort(3), delta(3, "q")})
	require.NoError(t, err, "Kernel.Run(start(3), delta(3), abort(3), delta(3)): "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 3, Status: factlog.StatusRunning, Deltas: []string{"p", "q"}}, normal(got),
		"run 2 running, then Run(start(3), delta(3) p, abort(3), delta(3) q): the aborts are applied first, to the "+
			"state before the queue, where run 3 has not started: abort(3) is of no current run and ignored "+
			"(rule 4.4.3). Then start(3), p and q run 3 in their order")

	queue := []factlog.Event{start(4)}
	var want []string
	for i := 0; i < 20; i++ {
		text := fmt.Sprintf("d%02d", i)
		queue = append(queue, delta(4, text))
		want = append(want, text)
		if i == 13 {
			queue = append(queue, abort(2)) // a late abort of an earlier run
		}
	}
	got, err = k.Run(queue)
	require.NoError(t, err, "Kernel.Run(start(4), 20 deltas with a late abort(2) among them): "+wantNoRunError)
	assert.Equal(t, want, got.Deltas, "Run(start(4), d00 … d19, with abort(2) after d13): the events that are not "+
		"aborts keep exactly their queue order. sort.Slice is not stable: it may reorder them; loop twice over "+
		"the queue instead")
	assert.Equal(t, factlog.StatusRunning, got.Status, "abort(2) is of an earlier run: run 4 goes on")
}

// Rule 4.4.7, 4.4.6: Run's error is nil for every queue of known kinds,
// whatever Reduce makes of it; an unknown kind is the only error, and it
// comes with the zero State.
func TestLab4_4_RunErrsOnlyOnUnknownKinds(t *testing.T) {
	k := factlog.NewKernel()
	for _, tc := range []struct {
		what  string
		queue []factlog.Event
		want  factlog.State
		why   string
	}{
		{"Run(nil) on an idle kernel", nil, factlog.State{}, "nothing happened: the zero State"},
		{"Run(an empty queue)", []factlog.Event{}, factlog.State{}, "nothing happened: the zero State"},
		{"Run(delta(1)) before run 1 started", []factlog.Event{delta(1, "early")}, factlog.State{},
			"an event of a run that has not started is ignored (rule 4.4.3)"},
		{"Run(start(1), delta(1))", []factlog.Event{start(1), delta(1, "a")},
			factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"a"}},
			"start(1) begins run 1, and its delta is appended (rule 4.4.1)"},
		{"Run(abort(1))", []factlog.Event{abort(1)},
			factlog.State{RunID: 1, Status: factlog.StatusAborted, Deltas: []string{"a"}},
			"abort(1) makes the running run 1 aborted (rule 4.4.1)"},
		{"Run(delta(1), tool_end(1), end(1), start(1)) after run 1 was aborted",
			[]factlog.Event{delta(1, "late"), toolEnd(1, "t"), end(1), start(1)},
			factlog.State{RunID: 1, Status: factlog.StatusAborted, Deltas: []string{"a"}},
			"every event after the run is aborted is ignored, and start(1) is not newer than run 1, so it does not " +
				"begin run 1 again (rule 4.4.3)"},
		{"Run(abort(1)) again", []factlog.Event{abort(1)},
			factlog.State{RunID: 1, Status: factlog.StatusAborted, Deltas: []string{"a"}},
			"run 1 is aborted already: an event after that is ignored (rule 4.4.3)"},
		{"Run(start(2), delta(1), delta(2))",
			[]factlog.Event{start(2), delta(1, "late"), delta(2, "b")},
			factlog.State{RunID: 2, Status: factlog.StatusRunning, Deltas: []string{"b"}},
			"start(2) begins run 2 afresh, and delta(1) of the earlier run comes late (rules 4.4.1, 4.4.3)"},
	} {
		got, err := k.Run(tc.queue)
		assert.NoError(t, err, "%s: error = %s; want nil. Ignoring a late or early event, and aborting a run, "+
			"are what Reduce is for, not errors: Run's only error is an *UnknownEventError (rule 4.4.7)",
			tc.what, describe(err))
		assert.Equal(t, tc.want, normal(got), "%s: the state after it: %s", tc.what, tc.why)
	}

	got, err := k.Run([]factlog.Event{start(3), delta(3, "c"), {Kind: "pause", RunID: 3}})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Kernel.Run(start(3), delta(3), pause) error = %s; want an "+
		"*UnknownEventError", describe(err))
	assert.Equal(t, factlog.State{}, got, "Kernel.Run(start(3), delta(3), pause) returned a state with its error; "+
		"want the zero State{}: a state that comes with an error is not one to use (not run 3, which never started, "+
		"and not the kernel's state either: Run(nil) asks for that)")
	got, err = k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil) after a refused queue: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 2, Status: factlog.StatusRunning, Deltas: []string{"b"}}, normal(got),
		"the refused queue changed nothing: the kernel still holds run 2")
}

// Rule 4.4.8: Run tells each subscriber once, after the whole queue is
// applied, with the final state; also when the queue changed nothing;
// before Run returns.
func TestLab4_4_SubscribersToldOnceAfterTheQueue(t *testing.T) {
	var calls []string
	var seen []factlog.State
	sub := func(name string) func(factlog.State) {
		return func(s factlog.State) {
			calls = append(calls, name)
			seen = append(seen, s)
		}
	}
	k := factlog.NewKernel(sub("first"), sub("second"))

	got, err := k.Run([]factlog.Event{start(1), delta(1, "a"), toolStart(1, "t1"), delta(1, "b"), toolEnd(1, "t1")})
	require.NoError(t, err, "Kernel.Run(start, delta, tool_start, delta, tool_end): "+wantNoRunError)
	require.Equal(t, []string{"first", "second"}, calls, "after Run(5 events) returned, the subscribers were called "+
		"%v; want each once, in NewKernel's order, and before Run returns: a subscriber hears about a Run, not "+
		"about every event in it", calls)
	want := factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"a", "b"},
		Tools: map[string]factlog.ToolStatus{"t1": factlog.ToolDone}}
	assert.Equal(t, want, got, "Run returns the state after the whole queue")
	for i, s := range seen {
		assert.Equal(t, want, s, "subscriber %s got %+v; want the state after the whole queue, not the state "+
			"before it or half way through", calls[i], s)
	}

	calls, seen = nil, nil
	_, err = k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil): "+wantNoRunError)
	assert.Equal(t, []string{"first", "second"}, calls, "Run(nil) changed nothing, and still every subscriber is "+
		"told once: every Run that returns no error tells them")
	for i, s := range seen {
		assert.Equal(t, want, s, "subscriber %s after Run(nil): the kernel's state as it is", calls[i])
	}

	calls, seen = nil, nil
	_, err = k.Run([]factlog.Event{delta(0, "from no run"), start(1)})
	require.NoError(t, err, "Kernel.Run(delta(0), start(1)): "+wantNoRunError)
	assert.Equal(t, []string{"first", "second"}, calls, "a Run whose events were all ignored tells every "+
		"subscriber once too")

	calls, seen = nil, nil
	_, err = k.Run([]factlog.Event{end(1), {Kind: "stop", RunID: 1}})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Kernel.Run(end, stop) error = %s; want an *UnknownEventError: stop is not an "+
		"event kind", describe(err))
	assert.Empty(t, calls, "a refused queue tells no subscriber (rule 4.4.6)")
}

// Rule 4.4.6: a refused queue applies nothing, and an abort is no
// exception: an abort that stands before the unknown event does not stop
// the run either.
func TestLab4_4_RefusedQueueAbortsNothing(t *testing.T) {
	told := 0
	k := factlog.NewKernel(func(factlog.State) { told++ })
	_, err := k.Run([]factlog.Event{start(1), delta(1, "a")})
	require.NoError(t, err, "Kernel.Run(start(1), delta(1)): "+wantNoRunError)

	got, err := k.Run([]factlog.Event{abort(1), {Kind: "pause", RunID: 1}})
	var unknown *factlog.UnknownEventError
	require.ErrorAs(t, err, &unknown, "Kernel.Run(abort(1), pause) error = %s; want an *UnknownEventError", describe(err))
	assert.Equal(t, factlog.State{}, got, "a refused queue comes with the zero State")
	got, err = k.Run(nil)
	require.NoError(t, err, "Kernel.Run(nil) after the refused queue: "+wantNoRunError)
	assert.Equal(t, factlog.State{RunID: 1, Status: factlog.StatusRunning, Deltas: []string{"a"}}, normal(got),
		"run 1 running, then Run(abort(1), pause) was refused: nothing of it is applied, not even the abort before the "+
			"unknown event. Check every kind before the first pass applies anything")
	assert.Equal(t, 2, told, "the subscriber heard of the two Runs that returned no error, not of the refused one")
}

// Rule 4.4.1: tool_end sets the tool done even when its tool_start was never
// seen (it may have been lost), and a tool_start that arrives after it does
// not set the tool running again: the end is the fact. An event of a kind
// Reduce does not know leaves the state as it is (Run refuses such a
// queue before Reduce sees it, 4.4.6).
func TestLab4_4_ToolEndWithoutStartAndUnknownKinds(t *testing.T) {
	s := reduceAll(factlog.State{}, start(1), toolEnd(1, "grep"), toolStart(1, "ls"))
	assert.Equal(t, factlog.State{RunID: 1, Status: factlog.StatusRunning,
		Tools: map[string]factlog.ToolStatus{"grep": factlog.ToolDone, "ls": factlog.ToolRunning}}, normal(s),
		"Reduce over start(1), tool_end(grep), tool_start(ls): tool_end sets grep done although no tool_start(grep) came first")

	late := factlog.Reduce(s, toolStart(1, "grep"))
	assert.Equal(t, normal(s), normal(late), "Reduce(run 1 with grep done, tool_start(1, grep)): the tool_start of grep "+
		"arrived after its tool_end. The end is the fact, so a done tool stays done: a late tool_start changes "+
		"nothing (rule 4.4.1), as a late event of an earlier run changes nothing (rule 4.4.3)")

	for _, kind := range []factlog.EventKind{"pause", "", "END"} {
		var got factlog.State
		require.NotPanics(t, func() { got = factlog.Reduce(s, factlog.Event{Kind: kind, RunID: 1, Text: "x"}) },
			"Reduce(running run 1, an event of kind %q) panicked; want the state back as it is", kind)
		assert.Equal(t, normal(s), normal(got), "Reduce(running run 1, an event of kind %q): a kind Reduce does not "+
			"know changes nothing", kind)
	}
}

// Rule 4.4.4: NewKernel keeps its own list of subscribers: a caller that
// changes its slice after NewKernel changes nothing in the kernel.
func TestLab4_4_KernelKeepsItsOwnSubscribers(t *testing.T) {
	var told []string
	subs := []func(factlog.State){
		func(factlog.State) { told = append(told, "first") },
		func(factlog.State) { told = append(told, "second") },
	}
	k := factlog.NewKernel(subs...)
	subs[0] = func(factlog.State) { told = append(told, "a stranger") }
	_, err := k.Run([]factlog.Event{start(1)})
	require.NoError(t, err, "Kernel.Run(start(1)): "+wantNoRunError)
	assert.Equal(t, []string{"first", "second"}, told, "NewKernel(subs...), then the caller set subs[0] to another "+
		"function: the kernel must still tell the subscribers it was given. NewKernel(subs...) hands it the caller's "+
		"own slice, so keep a copy (slices.Clone)")
}
