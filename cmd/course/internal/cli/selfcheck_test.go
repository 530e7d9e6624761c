package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/selfcheck"
)

func fakeSummary(ok bool) *selfcheck.Summary {
	mutant := selfcheck.Result{Candidate: selfcheck.Candidate{Kind: selfcheck.KindMutant, Name: "10.5-tainted-keeps-writing", Exercise: "10.5"},
		OK: true, KilledBy: []string{"TestLab10_5_FailedWriteTaintsWriter", "TestLab10_5_QueuedAppendsBehindFailureFail"}}
	if !ok {
		mutant.OK, mutant.KilledBy, mutant.Detail = false, nil, "SURVIVED: every test of 10.5 passes on it"
	}
	return &selfcheck.Summary{Lab: "10", Results: []selfcheck.Result{
		{Candidate: selfcheck.Candidate{Kind: selfcheck.KindStub, Name: "stub"}, OK: true, Failing: 85, Total: 85, Detail: "85 of 85 tests fail"},
		{Candidate: selfcheck.Candidate{Kind: selfcheck.KindAlternative, Name: "worker"}, OK: true, Detail: "85 of 85 tests pass"},
		{Candidate: selfcheck.Candidate{Kind: selfcheck.KindPrefix, Name: "up to 10.1", Exercise: "10.1"}, OK: true,
			Detail: "12 of 12 tests of 10.1 pass with every later exercise stubbed out"},
		mutant,
	}}
}

// runFakeSelfcheck runs `course selfcheck 10` with a fake self-check that
// returns sum, so the table and exit status are tested without grading.
func runFakeSelfcheck(t *testing.T, sum *selfcheck.Summary) (string, error) {
	t.Helper()
	releasetest.SkipInRelease(t, "the self-check is not available there")
	var out, errOut bytes.Buffer
	opts := &SelfcheckOptions{
		IO:      IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Catalog: lab.Load,
		Chapter: "10",
		Run: func(_ context.Context, o selfcheck.Options) (*selfcheck.Summary, error) {
			require.Equal(t, "10", o.Lab.Chapter)
			return sum, nil
		},
	}
	err := runSelfcheck(context.Background(), opts)
	return out.String(), err
}

func TestSelfcheckAllGood(t *testing.T) {
	out, err := runFakeSelfcheck(t, fakeSummary(true))
	require.NoError(t, err)
	assert.Contains(t, out, "killed by TestLab10_5_FailedWriteTaintsWriter and 1 more")
	assert.Contains(t, out, "lab 10: mutants killed 1/1, alternatives accepted 1/1, exercises passing without the later ones 1/1, stub tests failing 85/85")
	assert.Contains(t, out, "12 of 12 tests of 10.1 pass with every later exercise stubbed out")
}

func TestSelfcheckSurvivorExits1(t *testing.T) {
	out, err := runFakeSelfcheck(t, fakeSummary(false))
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitFailure, ee.Code)
	assert.Contains(t, out, "PROBLEM")
	assert.Contains(t, out, "SURVIVED: every test of 10.5 passes on it")
	assert.Contains(t, out, "mutants killed 0/1")
}

func TestSelfcheckUnknownChapterExits2(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main([]string{"selfcheck", "99"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut.String(), `unknown chapter "99"`)
}
