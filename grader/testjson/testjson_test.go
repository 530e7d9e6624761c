package testjson_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/testjson"
)

// The fixtures in testdata were recorded from `go test -json -count=1` of
// small packages: mixed (pass, fail, skip, subtests, parallel subtests),
// buildfail (a compile error), panic (a test that panics after printing a
// fake "--- PASS" line), hang (a test killed by -timeout) and count2 (one
// test run twice with -count=2).

func summarize(t *testing.T, fixture string) *testjson.Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", fixture))
	require.NoError(t, err)
	defer f.Close()
	s, err := testjson.Summarize(f)
	require.NoError(t, err)
	return s
}

func TestDecoderReadsEvents(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "mixed.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	d := testjson.NewDecoder(f)

	ev, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, testjson.ActionStart, ev.Action)
	assert.Equal(t, "example.com/tj/ok", ev.Package)
	assert.Equal(t, time.Date(2026, 11, 29, 11, 24, 0, 788897950, time.UTC), ev.Time)
	assert.Equal(t, 1, d.Line())

	ev, err = d.Next()
	require.NoError(t, err)
	assert.Equal(t, testjson.Event{
		Time: ev.Time, Action: testjson.ActionRun, Package: "example.com/tj/ok", Test: "TestPass",
	}, ev)

	events, err := testjson.Decode(f)
	require.NoError(t, err)
	last := events[len(events)-1]
	assert.Equal(t, testjson.ActionFail, last.Action)
	assert.Equal(t, "", last.Test)
	assert.InDelta(t, 0.005, last.Elapsed, 1e-9)
}

func TestDecoderKeepsNonJSONLinesAsRawOutput(t *testing.T) {
	stream := "go: downloading example.com/x v1.0.0\n" +
		`{"Action":"start","Package":"p"}` + "\n" +
		`{"Action":"run","Package":"p","Test":"TestA"}` + "\r\n" +
		"not json {\n" +
		`["an","array"]` + "\n" +
		`{"no":"action"}` + "\n" +
		"\n" +
		`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}` + "\n" +
		`{"Action":"fail","Package":"p","Elapsed":1}` // no final newline

	events, err := testjson.Decode(strings.NewReader(stream))
	require.NoError(t, err)
	raw := func(s string) testjson.Event {
		return testjson.Event{Action: testjson.ActionOutput, Output: s + "\n", Raw: true}
	}
	assert.Equal(t, []testjson.Event{
		raw("go: downloading example.com/x v1.0.0"),
		{Action: testjson.ActionStart, Package: "p"},
		{Action: testjson.ActionRun, Package: "p", Test: "TestA"},
		raw("not json {"),
		raw(`["an","array"]`),
		raw(`{"no":"action"}`),
		raw(""),
		{Action: testjson.ActionPass, Package: "p", Test: "TestA", Elapsed: 0.5},
		{Action: testjson.ActionFail, Package: "p", Elapsed: 1},
	}, events)

	s, err := testjson.Summarize(strings.NewReader(stream))
	require.NoError(t, err)
	assert.Equal(t, []string{"TestA"}, s.WithStatus(testjson.ActionPass))
	assert.Equal(t, testjson.ActionFail, s.Packages["p"])
	assert.Equal(t, []string{
		"go: downloading example.com/x v1.0.0\n", "not json {\n", "[\"an\",\"array\"]\n", "{\"no\":\"action\"}\n", "\n",
	}, s.Output)
}

func TestDecoderReturnsReadErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(`{"Action":"start","Package":"p"}`+"\n"), iotest.ErrReader(boom))
	d := testjson.NewDecoder(r)
	ev, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, testjson.ActionStart, ev.Action)
	_, err = d.Next()
	assert.ErrorIs(t, err, boom)

	s, err := testjson.Summarize(io.MultiReader(strings.NewReader(`{"Action":"start","Package":"p"}`+"\n"), iotest.ErrReader(boom)))
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, s.Packages, "p", "what was read before the error is kept")
}

func TestDecoderEmptyStream(t *testing.T) {
	_, err := testjson.NewDecoder(strings.NewReader("")).Next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestEventMarshalsLikeTest2JSON(t *testing.T) {
	line := `{"Time":"2026-11-29T11:24:00.792539027Z","Action":"pass","Package":"example.com/tj/ok","Test":"TestPass","Elapsed":0.25}`
	events, err := testjson.Decode(strings.NewReader(line + "\n"))
	require.NoError(t, err)
	require.Len(t, events, 1)
	ev := events[0]
	assert.False(t, ev.Raw)
	// Round trip: the same field names, and zero fields left out.
	assert.Equal(t, "pass", string(ev.Action))
	back, err := json.Marshal(ev)
	require.NoError(t, err)
	assert.JSONEq(t, line, string(back))
}

func TestSummaryPassFailSkipAndSubtests(t *testing.T) {
	s := summarize(t, "mixed.jsonl")

	names := make([]string, len(s.Tests))
	for i, r := range s.Tests {
		names[i] = r.Name
	}
	assert.Equal(t, []string{"TestPass", "TestFail", "TestSkip", "TestSub", "TestParallel"}, names, "top-level tests only, in order")
	assert.Equal(t, []string{"TestPass", "TestParallel"}, s.WithStatus(testjson.ActionPass))
	assert.Equal(t, []string{"TestFail", "TestSub"}, s.WithStatus(testjson.ActionFail))
	assert.Equal(t, []string{"TestSkip"}, s.WithStatus(testjson.ActionSkip))
	assert.Empty(t, s.WithStatus(""))

	pass, ok := s.Test("TestPass")
	require.True(t, ok)
	assert.Equal(t, &testjson.TestResult{
		Package: "example.com/tj/ok", Name: "TestPass", Status: testjson.ActionPass,
		Runs: 1, Passes: 1,
		Output:   []string{"=== RUN   TestPass\n", "    ok_test.go:5: fine\n", "--- PASS: TestPass (0.00s)\n"},
		Subtests: map[string]testjson.Action{},
	}, pass)

	fail, _ := s.Test("TestFail")
	assert.Equal(t, 1, fail.Fails)
	assert.Contains(t, fail.OutputText(), "ok_test.go:6: want 1, got 2\n")

	sub, _ := s.Test("TestSub")
	assert.Equal(t, map[string]testjson.Action{"TestSub/good": testjson.ActionPass, "TestSub/bad": testjson.ActionFail}, sub.Subtests)
	assert.Equal(t, 1, sub.Runs, "subtest events do not count as runs of the parent")
	assert.Contains(t, sub.OutputText(), "ok_test.go:10: boom\n", "subtest output belongs to the top-level test")

	par, _ := s.Test("TestParallel")
	assert.Equal(t, map[string]testjson.Action{"TestParallel/a": testjson.ActionPass, "TestParallel/b": testjson.ActionPass}, par.Subtests)

	_, ok = s.Test("TestNope")
	assert.False(t, ok)
	assert.Equal(t, map[string]testjson.Action{"example.com/tj/ok": testjson.ActionFail}, s.Packages)
	assert.Empty(t, s.BuildFailed)
	assert.Equal(t, []string{"FAIL\n", "FAIL\texample.com/tj/ok\t0.004s\n"}, s.Output)
}

func TestSummaryBuildFailure(t *testing.T) {
	s := summarize(t, "buildfail.jsonl")
	assert.Empty(t, s.Tests)
	assert.Equal(t, []string{"example.com/tj/bad [example.com/tj/bad.test]"}, s.BuildFailed, "reported once for build-fail and FailedBuild")
	assert.Equal(t, testjson.ActionFail, s.Packages["example.com/tj/bad"])
	assert.Contains(t, strings.Join(s.BuildOutput, ""), `bad/bad.go:3:23: cannot use "x"`)
}

func TestSummaryPanicIsNotFooledByPrintedPass(t *testing.T) {
	s := summarize(t, "panic.jsonl")
	assert.Equal(t, []string{"TestBefore"}, s.WithStatus(testjson.ActionPass))
	assert.Equal(t, []string{"TestPanics"}, s.WithStatus(testjson.ActionFail))
	p, _ := s.Test("TestPanics")
	assert.Equal(t, 0, p.Passes)
	assert.Contains(t, p.OutputText(), "panic: assignment to entry in nil map")
	_, ran := s.Test("TestAfter")
	assert.False(t, ran, "the binary died before TestAfter")
}

func TestSummaryTimeoutLeavesTestUnfinished(t *testing.T) {
	s := summarize(t, "hang.jsonl")
	assert.Equal(t, []string{"TestQuick"}, s.WithStatus(testjson.ActionPass))
	assert.Equal(t, []string{"TestHang"}, s.WithStatus(""))
	h, _ := s.Test("TestHang")
	assert.Equal(t, 1, h.Runs)
	assert.Equal(t, 0, h.Passes+h.Fails+h.Skips)
	assert.Contains(t, h.OutputText(), "panic: test timed out after 1s")
	assert.Equal(t, testjson.ActionFail, s.Packages["example.com/tj/hang"])
}

func TestSummaryCountsRepeatedRuns(t *testing.T) {
	s := summarize(t, "count2.jsonl")
	r, ok := s.Test("TestPass")
	require.True(t, ok)
	assert.Equal(t, 2, r.Runs)
	assert.Equal(t, 2, r.Passes)
	assert.Equal(t, testjson.ActionPass, r.Status)
	assert.Len(t, s.Tests, 1)
}

func TestActionIsFinal(t *testing.T) {
	for a, want := range map[testjson.Action]bool{
		testjson.ActionPass: true, testjson.ActionFail: true, testjson.ActionSkip: true,
		testjson.ActionRun: false, testjson.ActionOutput: false, testjson.ActionPause: false,
		testjson.ActionCont: false, testjson.ActionStart: false, testjson.ActionBench: false,
		testjson.ActionBuildOutput: false, testjson.ActionBuildFail: false,
	} {
		assert.Equal(t, want, a.IsFinal(), a)
	}
}
