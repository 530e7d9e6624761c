package grader

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coursekit/course/grader/submission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHiddenRunsStartOnlyOncePublicRunsEnded: what students see at once,
// the public tests' output, is final before any hidden test runs, so that
// nothing a hidden run does (prints, leaves, or makes the machine show, as
// the memory its /tmp holds) can reach it; with a run per exercise at once
// allowed (Parallel 4), and with exercises that fail, so that every kind of
// run happens.
func TestHiddenRunsStartOnlyOncePublicRunsEnded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades a submission")
	}
	t.Parallel()
	type run struct {
		label      string
		start, end time.Time
	}
	var (
		mu   sync.Mutex
		runs []run
	)
	observe := func(label string, start, end time.Time) {
		mu.Lock()
		defer mu.Unlock()
		runs = append(runs, run{label, start, end})
	}
	work := reachableTempDir(t)
	g := newSandboxedGrader(t, Options{Lab: testLab(t), Hidden: true, Exercises: []string{"10.1", "10.2", "10.4"},
		Parallel: 4, TempDir: work, observeRun: observe})
	// 10.1 and 10.2 pass, 10.4 fails: a shared run of each kind, and runs alone.
	src := onlyExercise(t, "10.1", "10.2")
	rep, err := g.Grade(context.Background(), &submission.Submission{Name: "order", Path: "order", Files: map[string][]byte{"session.go": src}})
	require.NoError(t, err)
	require.True(t, rep.Build.OK, rep.Build.Output)

	var lastPublic time.Time
	hidden := 0
	for _, r := range runs {
		if !strings.Contains(r.label, "hidden") && r.end.After(lastPublic) {
			lastPublic = r.end
		}
	}
	for _, r := range runs {
		if strings.Contains(r.label, "hidden") {
			hidden++
			assert.False(t, r.start.Before(lastPublic), "hidden run %s started %s before the last public run ended", r.label, lastPublic.Sub(r.start))
		}
	}
	assert.Positive(t, hidden, "the hidden tests ran: %v", runs)
	assert.Greater(t, len(runs), hidden+1, "public runs, shared and alone: %v", runs)
}
