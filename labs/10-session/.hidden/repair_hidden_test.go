package session_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Rule 10.7.2, 10.7.5: a second repair of a repaired file does nothing; a
// new tail later gets a new backup, and the first backup stays as it was.
func TestLab10_7_HiddenRepairAgainKeepsEveryBackup(t *testing.T) {
	committed := repairCommitted(t)
	first := committed + repairTail
	f := newRepairFake(map[string]string{repairPath: first})
	res := repairMustRun(t, f, repairPath, "first repair")
	require.Equal(t, repairPath+".bak-1", res.BackupPath)

	res = repairMustRun(t, f, repairPath, "repairing the repaired file")
	assert.Equal(t, session.RepairResult{Entries: 2}, res, "the repaired file has no tail: nothing to do")
	assert.Equal(t, []string{repairPath, repairPath + ".bak-1"}, f.paths(), "no new backup when there is nothing to do")

	second := committed + jsonlLine(t, user("c", "", "later")) + `{"ty`
	f.mu.Lock()
	f.files[repairPath] = []byte(second)
	f.mu.Unlock()
	res = repairMustRun(t, f, repairPath, "repairing a new tail")
	assert.Equal(t, session.RepairResult{BackupPath: repairPath + ".bak-2", TailLine: 4, RemovedBytes: 4, Entries: 3}, res)
	b1, _ := f.file(repairPath + ".bak-1")
	b2, _ := f.file(repairPath + ".bak-2")
	assert.Equal(t, first, b1, "the first backup is never overwritten")
	assert.Equal(t, second, b2)
	got, _ := f.file(repairPath)
	assert.Equal(t, second[:len(second)-4], got)
}

// Rule 10.7.5: a missing or unreadable file is an error and nothing is
// written; a bad line before a tail is refused like any committed bad line.
func TestLab10_7_HiddenMissingUnreadableAndBadBeforeTail(t *testing.T) {
	f := newRepairFake(nil)
	_, err := repairRun(t, f, repairPath, "repair of a missing file")
	assert.True(t, errors.Is(err, fs.ErrNotExist), "repair of a missing file = %s; want an error matching "+
		"fs.ErrNotExist", fakeDescribe(err))
	assert.Empty(t, f.changes(), "nothing is created for a missing file")

	f = newRepairFake(map[string]string{repairPath: repairCommitted(t) + repairTail})
	ioErr := errors.New("input/output error")
	f.failOn("ReadFile", 1, ioErr, 0)
	_, err = repairRun(t, f, repairPath, "repair of an unreadable file")
	assert.True(t, errors.Is(err, ioErr), "repair when ReadFile fails = %s; want that error", fakeDescribe(err))
	assert.Empty(t, f.changes(), "nothing is written when the file cannot be read")

	text := jsonlLine(t, user("a", "", "hi")) + `{"id":"b"}` + "\n" + repairTail
	f = newRepairFake(map[string]string{repairPath: text})
	_, err = repairRun(t, f, repairPath, "repair of a bad line 2 followed by a tail")
	var le *session.LineError
	require.True(t, errors.As(err, &le), "error = %s; want *LineError", fakeDescribe(err))
	assert.Equal(t, 2, le.Line)
	assert.Empty(t, f.changes(), "cutting the tail would hide nothing: the committed bad line is still corruption")
}

// Rule 10.7.4: when the rename fails and cleaning up the temporary file fails
// too, the error is still the rename's, and it names the backup.
func TestLab10_7_HiddenRenameAndCleanupFail(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	crossDevice := errors.New("invalid cross-device link")
	f.failOn("Rename", 1, crossDevice, 0)
	f.failOn("Remove", 1, errors.New("read-only file system"), 0)
	_, err := repairRun(t, f, repairPath, "repair with a failing rename and a failing clean-up")
	require.Error(t, err)
	assert.True(t, errors.Is(err, crossDevice), "error = %s; want the rename's failure (errors.Is)", fakeDescribe(err))
	var re *session.RepairError
	require.True(t, errors.As(err, &re), "error = %s; want *RepairError", fakeDescribe(err))
	assert.Equal(t, repairPath+".bak-1", re.Backup)
	got, _ := f.file(repairPath)
	assert.Equal(t, text, got, "the original is unchanged")
	removed := false
	for _, c := range f.changes() {
		if c.Op == "Remove" {
			removed = true
			assert.NotEqual(t, repairPath, c.Path, "never remove the original")
			assert.NotEqual(t, repairPath+".bak-1", c.Path, "never remove the backup")
		}
	}
	assert.True(t, removed, "after a failed rename the temporary file is removed (tried, at least)")
}

// Rule 10.7.3: a tail of emoji cut inside the last one: RemovedBytes is its
// length in bytes, and the committed bytes stay.
func TestLab10_7_HiddenRemovedBytesOfAnEmojiTail(t *testing.T) {
	committed := repairCommitted(t)
	tail := `{"type":"message","id":"z","message":"🚀🚀` + "\xf0\x9f"
	f := newRepairFake(map[string]string{repairPath: committed + tail})
	res := repairMustRun(t, f, repairPath, "a repair of an emoji tail")
	assert.Equal(t, len(tail), res.RemovedBytes, "RemovedBytes of a %d-byte tail of %d characters", len(tail), len([]rune(tail)))
	got, _ := f.file(repairPath)
	assert.Equal(t, committed, got)
}
