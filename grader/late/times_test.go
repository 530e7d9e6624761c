package late

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadTimes(t *testing.T) {
	times, err := ReadTimes(strings.NewReader("\ufeffSubmission,email,submitted_at\nalice,a@x,2026-12-01T09:30:00Z\nbob,b@x,2026-12-02T10:00:00+08:00\n"))
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), times["alice"].UTC())
	assert.Equal(t, time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC), times["bob"].UTC(), "an offset is kept")
}

func TestReadTimesRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"", "submission times: no header"},
		{"name,time\n", `submission times, line 1: the header "name,time" needs the columns submission and submitted_at`},
		{"submission,submitted_at\nalice,yesterday\n", `line 2: submitted_at "yesterday" of "alice" is not an RFC 3339 time`},
		{"submission,submitted_at\nalice,2026-12-01T09:30:00Z\nalice,2026-12-01T09:31:00Z\n", `line 3: submission "alice" again (first on line 2)`},
		{"submission,submitted_at\n,2026-12-01T09:30:00Z\n", "line 2: no submission name"},
		{"submission,submitted_at\nalice\n", "line 2: 1 cells"},
	} {
		_, err := ReadTimes(strings.NewReader(tc.csv))
		var te *TimesError
		require.True(t, errors.As(err, &te), "ReadTimes(%q) = %v; want a *TimesError", tc.csv, err)
		assert.Contains(t, err.Error(), tc.want, "ReadTimes(%q)", tc.csv)
	}
}

// TestTimesMatchNamesComposedOrNot: a times.csv row for "Zoë" (composed)
// is the time of the submission folder "Zoë" as macOS writes it
// (decomposed), and the other way round.
func TestTimesMatchNamesComposedOrNot(t *testing.T) {
	composed, decomposed := "Zo\u00eb", "Zoe\u0308"
	for _, tc := range [][2]string{{composed, decomposed}, {decomposed, composed}} {
		p := filepath.Join(t.TempDir(), "times.csv")
		require.NoError(t, os.WriteFile(p, []byte("submission,submitted_at\n"+tc[0]+",2026-12-01T09:30:00Z\n"), 0o644))
		at, err := TimesFromFile(p)
		require.NoError(t, err)
		got, err := at(tc[1])
		require.NoError(t, err, "a row %q, the time of %q", tc[0], tc[1])
		assert.Equal(t, time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), got.UTC())
	}
}
