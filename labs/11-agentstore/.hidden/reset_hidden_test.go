package agentstore_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.6.1, 11.6.3: two resets keep two archives, each its own session.
func TestLab11_6_HiddenResetTwice(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("first session"))
	first := fx.fs.file(sessPath)
	require.NoError(t, reset(t, s))
	mustAppend(t, s, user("second session"))
	second := fx.fs.file(sessPath)
	require.NoError(t, reset(t, s))
	assert.Equal(t, first, fx.fs.file(agentstore.ArchivePath(sessPath, "s1")))
	assert.Equal(t, second, fx.fs.file(agentstore.ArchivePath(sessPath, "s2")))
	assert.Equal(t, "s3", headerOf(t, s).ID)
	assert.Empty(t, contextOf(t, s))
}

// Rule 11.6.1, 11.6.3: resetting pi's file keeps it whole and starts a
// session in the store's own working directory.
func TestLab11_6_HiddenResetPiFile(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "pi's file")
	fx.clock.set(T2)
	require.NoError(t, reset(t, s))
	assert.Equal(t, piSession, fx.fs.file(agentstore.ArchivePath(sessPath, "019cebab-8995-795a-8c23-654cc9f96c79")))
	assert.Equal(t, agentstore.Header{Version: 3, ID: "s1", Timestamp: T2, Cwd: sessCwd}, headerOf(t, s))
	_, ok := entryOf(t, s, "8af385c5")
	assert.False(t, ok)
}

// Rule 11.6.2: the crash test over pi's file and a branchy session.
func TestLab11_6_HiddenCrashOverPiFile(t *testing.T) {
	for k := 1; k <= 8; k++ {
		t.Run(fmt.Sprint("crash at call ", k), func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, piSession)
			s := mustOpen(t, fx.opts(), "pi's file")
			fx.clock.set(T2)
			fx.fs.watchPath(sessPath)
			fx.fs.crashOnCall(k)
			_ = reset(t, s)
			newFile := headerLine("s1", T2, sessCwd)
			for _, state := range fx.fs.watchedStates() {
				assert.True(t, state == piSession || state == newFile, "during Reset the session file was %q", state)
			}
		})
	}
}

// Rule 11.6.4, 11.6.3: an archive write that fails half way stops the
// reset; a second Reset writes the whole archive over the half one.
func TestLab11_6_HiddenRetryAfterAHalfArchive(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"), user("bye"))
	old := fx.fs.file(sessPath)
	archive := agentstore.ArchivePath(sessPath, "s1")
	ioErr := errors.New("disk full")
	fx.fs.failOn("WriteFile", archive, fsFailure{Err: ioErr, Written: -1})
	require.ErrorIs(t, reset(t, s), ioErr)
	assert.Equal(t, old, fx.fs.file(sessPath))
	assert.Equal(t, got[2], leafOf(t, s))
	assert.Equal(t, "s1", headerOf(t, s).ID)

	require.NoError(t, reset(t, s), "a second Reset, with a working disk")
	assert.Equal(t, old, fx.fs.file(archive), "the archive is whole now")
	assert.Equal(t, "s2", headerOf(t, s).ID)
}

// Rule 11.6.1: a session with no entries can be reset too.
func TestLab11_6_HiddenResetAnEmptySession(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "new session")
	fx.clock.set(T2)
	require.NoError(t, reset(t, s))
	assert.Equal(t, headerLine("s1", T0, sessCwd), fx.fs.file(agentstore.ArchivePath(sessPath, "s1")))
	assert.Equal(t, headerLine("s2", T2, sessCwd), fx.fs.file(sessPath))
	id := mustAppend(t, s, user("hi"))
	assert.Equal(t, []string{id}, ids(pathOf(t, s)))
}

// Rule 11.6.2: over pi's file with a tail and a temporary file left by an
// earlier crash, the path holds pi's bytes until the one rename; nothing
// removes or moves it.
func TestLab11_6_HiddenNoMomentWithoutTheOldFile(t *testing.T) {
	fx := newFixture()
	old := piSession + `{"type":"mess`
	fx.fs.setFile(sessPath, old)
	fx.fs.setFile(agentstore.TempPath(sessPath), "left by a crash")
	s := mustOpen(t, fx.opts(), "pi's file with a tail")
	fx.clock.set(T2)
	fx.fs.watchPath(sessPath)
	mark := fx.fs.mark()
	require.NoError(t, reset(t, s))
	ops := fx.fs.opsSince(mark)
	states := fx.fs.watchedStates()
	touching := writesTo(ops, sessPath)
	require.Len(t, touching, 1, "calls on the path: %s", opNames(touching))
	assert.Equal(t, "Rename", touching[0].Op)
	assert.Equal(t, agentstore.TempPath(sessPath), touching[0].Path)
	for i, o := range ops {
		if o.Op == "Rename" && o.To == sessPath {
			break
		}
		assert.Equal(t, old, states[i], "after %s the path no longer held the old file", o)
	}
	assert.Equal(t, old, fx.fs.file(agentstore.ArchivePath(sessPath, "019cebab-8995-795a-8c23-654cc9f96c79")))
	assert.Equal(t, headerLine("s1", T2, sessCwd), fx.fs.file(sessPath))
	assert.Equal(t, missing, fx.fs.file(agentstore.TempPath(sessPath)))
}
