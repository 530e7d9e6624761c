package agentstore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// T2 is the time of the resets in these tests.
const T2 = "2025-03-14T11:11:11.111Z"

// Rule 11.6.1: after Reset the store is a new, empty session in the same
// file, and the next message is a root.
func TestLab11_6_ResetStartsANewSession(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
	fx.clock.set(T2)
	require.NoError(t, reset(t, s), "Reset of a healthy store")

	assert.Equal(t, agentstore.Header{Version: 3, ID: "s2", Timestamp: T2, Cwd: sessCwd}, headerOf(t, s),
		"Header() after Reset: a new session id from NewSessionID, Now(), Options.Cwd")
	assert.Equal(t, headerLine("s2", T2, sessCwd), fx.fs.file(sessPath), "the session file is now the new header alone")
	assert.Equal(t, "", leafOf(t, s), "a new session has no leaf")
	assert.Empty(t, pathOf(t, s))
	assert.Empty(t, contextOf(t, s), "the old messages are not in the new session's context")
	for _, id := range got {
		_, ok := entryOf(t, s, id)
		assert.False(t, ok, "Entry(%q) after Reset: the old session's index is gone from the store", id)
	}
	assert.Error(t, switchLeaf(t, s, got[1]), "SwitchLeaf into the old session after Reset")

	id := mustAppend(t, s, user("fresh start"))
	e, _ := entryOf(t, s, id)
	assert.Equal(t, "", e.ParentID, "the first message after Reset is a root")
	file := fx.fs.file(sessPath)
	require.True(t, strings.HasPrefix(file, headerLine("s2", T2, sessCwd)), "the new file starts with the new header: %q", file)
	line := decodeLine(t, []byte(file[len(headerLine("s2", T2, sessCwd)):]), "the line after the new header")
	assert.Equal(t, nil, line["parentId"], "written as a root: parentId null")
	assert.Len(t, contextOf(t, s), 1)
}

// Rule 11.6.2, 11.6.3: Reset keeps the old file at ArchivePath first, then
// replaces the path by one rename of the temporary file; nothing else
// touches the path.
func TestLab11_6_ResetReplacesThePathByOneRename(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("hi"), assistant("hello"))
	old := fx.fs.file(sessPath)
	fx.clock.set(T2)
	mark := fx.fs.mark()
	require.NoError(t, reset(t, s))
	ops := fx.fs.opsSince(mark)

	archive := agentstore.ArchivePath(sessPath, "s1")
	tmp := agentstore.TempPath(sessPath)
	touching := writesTo(ops, sessPath)
	require.Len(t, touching, 1, "Reset touched the session path with %s; want exactly one call, "+
		"Rename(TempPath(path), path): anything else (Remove then write, or WriteFile on the path) leaves a moment "+
		"where a crash finds no file or half a header (all calls: %s)", opNames(touching), opNames(ops))
	assert.Equal(t, fsOp{Op: "Rename", Path: tmp, To: sessPath}, touching[0], "the one call on the path")

	renameAt, archiveAt := -1, -1
	for i, o := range ops {
		if o.Op == "Rename" && o.To == sessPath {
			renameAt = i
		}
		if o.Op == "WriteFile" && o.Path == archive && archiveAt < 0 {
			archiveAt = i
		}
	}
	require.GreaterOrEqual(t, archiveAt, 0, "Reset must keep the old session: WriteFile(ArchivePath(path, %q), old bytes); calls: %s", "s1", opNames(ops))
	assert.Less(t, archiveAt, renameAt, "the old session is kept before the rename replaces it")
	assert.Equal(t, old, fx.fs.file(archive), "the archive holds the old file, byte for byte")
	assert.Equal(t, headerLine("s2", T2, sessCwd), fx.fs.file(sessPath))
	assert.Equal(t, []string{sessPath, archive}, fx.fs.paths(), "files after Reset: the session and its archive, no temporary file")
}

// Rule 11.6.2: whatever step of Reset the process dies at, the path holds
// exactly the old file or exactly the new one, and it opens.
func TestLab11_6_CrashAtAnyStepLeavesOldOrNew(t *testing.T) {
	// First count the calls of a Reset that works.
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("hi"), assistant("hello"))
	old := fx.fs.file(sessPath)
	fx.clock.set(T2)
	mark := fx.fs.mark()
	require.NoError(t, reset(t, s))
	calls := len(fx.fs.opsSince(mark))
	newFile := headerLine("s2", T2, sessCwd)

	for k := 1; k <= calls; k++ {
		t.Run(fmt.Sprintf("crash at call %d of %d", k, calls), func(t *testing.T) {
			fx := newFixture()
			s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
			fx.clock.set(T2)
			fx.fs.watchPath(sessPath)
			fx.fs.crashOnCall(k)
			mark := fx.fs.mark()
			_ = reset(t, s) // it fails: the process "died"
			for i, state := range fx.fs.watchedStates() {
				assert.True(t, state == old || state == newFile, "after call %d of Reset (%s), with a crash at call %d, "+
					"the session file was %q: neither the old file nor the new one — a crash there would lose the "+
					"session", i+1, opNames(fx.fs.opsSince(mark)[i:i+1]), k, state)
			}

			after := fx.fs.copyFiles() // the disk as the crash left it, for the next process
			fx2 := newFixture()
			fx2.fs = after
			fx2.sessions.then("s9")
			again := mustOpen(t, fx2.opts(), "the file after the crash")
			if after.file(sessPath) == old {
				assert.Equal(t, got[1], leafOf(t, again), "the old session is intact")
				assert.Len(t, contextOf(t, again), 2)
			} else {
				assert.Equal(t, "s2", headerOf(t, again).ID, "the new session is complete")
			}
		})
	}
}

// Rule 11.6.3, 11.6.1: the archive is every byte of the old file, an
// unterminated tail included; Reset is a way out for a store that refused
// to write.
func TestLab11_6_OldFileIsArchived(t *testing.T) {
	fx := newFixture()
	text := threeEntries() + `{"type":"message","id":"d"`
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "file with a tail")
	_, err := appendMsg(t, s, user("refused"))
	require.True(t, errors.Is(err, agentstore.ErrNeedsRepair), "test setup: a store over a tail refuses to write")

	err = reset(t, s)
	require.NoError(t, err, "Reset of a store whose file ends in a tail = %s; want nil: Reset is the way out of a store "+
		"that refuses to write (rule 11.6.1)", describe(err))
	assert.Equal(t, text, fx.fs.file(agentstore.ArchivePath(sessPath, "s0")),
		"the archive is named after the old session's id (ArchivePath(path, \"s0\")) and holds every byte of the old "+
			"file as read, its tail too: nothing is thrown away, the half line included")
	id, err := appendMsg(t, s, user("writes again"))
	require.NoError(t, err, "AppendMessage after Reset of a store opened over a tail = %s; want a new entry: the new "+
		"file has no tail, so the store writes again (rule 11.6.1)", describe(err))
	assert.Equal(t, []string{id}, ids(pathOf(t, s)), "PathToLeaf() after Reset and one AppendMessage; want that message "+
		"alone: a new session, whose first entry is a root (rule 11.6.1)")
}

// Rule 11.6.4: a Reset that fails at any step changes nothing: the path
// keeps the old file, the temporary file is removed, the store goes on.
func TestLab11_6_FailedResetChangesNothing(t *testing.T) {
	ioErr := errors.New("input/output error")
	for _, step := range []struct{ op, path string }{
		{"ReadFile", sessPath},
		{"WriteFile", agentstore.ArchivePath(sessPath, "s1")},
		{"WriteFile", agentstore.TempPath(sessPath)},
		{"Rename", agentstore.TempPath(sessPath)},
	} {
		t.Run(step.op+" "+filepath.Base(step.path), func(t *testing.T) {
			fx := newFixture()
			s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
			old := fx.fs.file(sessPath)
			fx.fs.failOn(step.op, step.path, fsFailure{Err: ioErr, Written: -1})
			err := reset(t, s)
			assert.True(t, errors.Is(err, ioErr), "Reset when %s(%s) fails = %s; want that error", step.op, step.path, describe(err))
			assert.Equal(t, old, fx.fs.file(sessPath), "after a failed Reset the session file is the old one")
			assert.Equal(t, missing, fx.fs.file(agentstore.TempPath(sessPath)), "a failed Reset removes its temporary file")
			assert.Equal(t, "s1", headerOf(t, s).ID, "a failed Reset keeps the old header")
			assert.Equal(t, got[1], leafOf(t, s), "a failed Reset keeps the leaf")
			assert.Len(t, contextOf(t, s), 2, "a failed Reset keeps the entries")

			id := mustAppend(t, s, user("go on"))
			e, _ := entryOf(t, s, id)
			assert.Equal(t, got[1], e.ParentID, "after a failed Reset the session goes on where it was")
			assert.Equal(t, old+msgLineOf(t, fx, id), fx.fs.file(sessPath), "and goes on in the old file")
		})
	}
}

// msgLineOf returns the line the store wrote for entry id.
func msgLineOf(t *testing.T, fx *fixture, id string) string {
	t.Helper()
	for _, o := range fx.fs.opsSince(0) {
		if o.Op == "AppendFile" && o.Err == nil {
			if v := decodeLine(t, o.Data, "an appended line"); v["id"] == id {
				return string(o.Data)
			}
		}
	}
	t.Fatalf("no AppendFile wrote entry %q", id)
	return ""
}

// Rule 11.6.1: a store tainted by a failed write writes again after Reset.
func TestLab11_6_ResetClearsATaint(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("hi"))
	fx.fs.fail("AppendFile", fsFailure{Err: errors.New("disk full"), Written: -1})
	_, err := appendMsg(t, s, assistant("half"))
	require.Error(t, err)
	_, err = appendMsg(t, s, assistant("again"))
	require.True(t, errors.Is(err, agentstore.ErrTainted), "test setup: the store is tainted")

	err = reset(t, s)
	require.NoError(t, err, "Reset of a store tainted by a failed write = %s; want nil: Reset is the way out of a store "+
		"that refuses to write (rule 11.6.1)", describe(err))
	id, err := appendMsg(t, s, user("new session"))
	require.NoError(t, err, "AppendMessage after Reset of a tainted store = %s; want a new entry: the new file is whole, "+
		"so the store forgets the failed write and writes again (rule 11.6.1)", describe(err))
	assert.Equal(t, []string{id}, ids(pathOf(t, s)), "PathToLeaf() after Reset and one AppendMessage; want that message "+
		"alone: a new session (rule 11.6.1)")
	assert.Contains(t, fx.fs.file(agentstore.ArchivePath(sessPath, "s1")), `"text":"hi"`,
		"the archive ArchivePath(path, \"s1\") holds the tainted file, half line and all (rule 11.6.3)")
}

// Rule 11.6.2, 11.6.3: the same on the real disk, through OSFileSystem.
func TestLab11_6_ResetOnTheRealDisk(t *testing.T) {
	dir := t.TempDir()
	fx := newFixture()
	opts := fx.opts()
	opts.FS = agentstore.OSFileSystem{}
	opts.Path = filepath.Join(dir, "session.jsonl")
	s := mustOpen(t, opts, "a new file on disk")
	mustAppend(t, s, user("hi"))
	mustAppend(t, s, assistant("hello"))
	old, err := os.ReadFile(opts.Path)
	require.NoError(t, err)

	fx.clock.set(T2)
	require.NoError(t, reset(t, s), "Reset on disk")
	now, err := os.ReadFile(opts.Path)
	require.NoError(t, err)
	assert.Equal(t, headerLine("s2", T2, sessCwd), string(now))
	kept, err := os.ReadFile(agentstore.ArchivePath(opts.Path, "s1"))
	require.NoError(t, err, "the archive of session s1")
	assert.Equal(t, string(old), string(kept))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	assert.Equal(t, []string{"session.jsonl", "session.s1.jsonl"}, names, "no temporary file is left on disk")
}

// Rule 11.6.2: the old file is never removed or moved away: it stays at the
// path, byte for byte, through every call of Reset until the one Rename of
// the temporary file replaces it; the archive is a copy written beside it.
func TestLab11_6_OldFileStaysUntilTheRename(t *testing.T) {
	fx := newFixture()
	s, _ := newStoreWith(t, fx, user("hi"), assistant("hello"), user("start over"))
	old := fx.fs.file(sessPath)
	fx.clock.set(T2)
	fx.fs.watchPath(sessPath)
	mark := fx.fs.mark()
	require.NoError(t, reset(t, s), "Reset")
	ops := fx.fs.opsSince(mark)
	states := fx.fs.watchedStates()
	require.Len(t, states, len(ops), "test setup: one watched state per call")

	tmp := agentstore.TempPath(sessPath)
	archive := agentstore.ArchivePath(sessPath, "s1")
	renameAt := -1
	for i, o := range ops {
		switch {
		case o.Op == "Remove" && o.Path == sessPath:
			t.Errorf("Reset called %s: the old file must never be removed, not even just before the rename. "+
				"Rename replaces an existing file in one step; between a Remove and the Rename there is no session "+
				"at all (calls: %s)", o, opNames(ops))
		case o.Op == "Rename" && o.Path == sessPath:
			t.Errorf("Reset called %s: moving the old file away leaves no session at the path until the new one "+
				"is renamed in. Keep it by writing a copy of the bytes you read (calls: %s)", o, opNames(ops))
		case o.Op == "Rename" && o.Path == tmp && o.To == sessPath:
			renameAt = i
		}
	}
	require.GreaterOrEqual(t, renameAt, 0, "Reset must end with Rename(TempPath(path), path); calls: %s", opNames(ops))
	for i := 0; i < renameAt; i++ {
		assert.Equal(t, old, states[i], "after call %d of Reset (%s) the session path held %q; until the rename it must "+
			"hold the old file, whole (calls: %s)", i+1, opNames(ops[i:i+1]), states[i], opNames(ops))
	}
	for i := renameAt; i < len(states); i++ {
		assert.Equal(t, headerLine("s2", T2, sessCwd), states[i], "after call %d of Reset (%s): from the rename on, the "+
			"path holds the new header", i+1, opNames(ops[i:i+1]))
	}
	var archived bool
	for _, o := range ops[:renameAt] {
		if o.Op == "WriteFile" && o.Path == archive && string(o.Data) == old {
			archived = true
		}
	}
	assert.True(t, archived, "before the rename, Reset must WriteFile(ArchivePath(path, \"s1\"), the old bytes): the "+
		"archive is a copy, and the path keeps its file (calls: %s)", opNames(ops))
}

// Rule 11.6.1, 11.2.5: a Reset while the agent appends (goroutines started
// together): each append lands whole in the old session or in the new one,
// the store and its file agree afterwards, and the race detector (go test
// -race) finds nothing: Reset takes the lock like every method.
func TestLab11_6_ResetBesideConcurrentAppends(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
	const n = 8
	msgs := make([]agentstore.Message, n)
	for i := range msgs {
		msgs[i] = user(strings.Repeat("more ", i+1))
	}
	start := make(chan struct{})
	errs := make(chan error, n+1)
	var wg sync.WaitGroup
	var caught panics
	wg.Add(n + 1)
	go func() {
		defer wg.Done()
		defer caught.catch("Reset, beside 8 goroutines appending,")
		<-start
		if err := s.Reset(); err != nil {
			errs <- err
		}
	}()
	for i := 0; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			defer caught.catch("AppendMessage, beside a Reset,")
			<-start
			if _, err := s.AppendMessage(msgs[i]); err != nil {
				errs <- err
			}
		}(i)
	}
	close(start)
	within(t, "a Reset and 8 appends at once", func() bool { wg.Wait(); return true })
	caught.check(t)
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Reset and AppendMessage: %s", describe(err))
	}
	again := mustOpen(t, fx.opts(), "the session file after the Reset and the appends")
	assert.Equal(t, headerOf(t, s), headerOf(t, again), "the store's header is the one in the file")
	assert.Equal(t, chainOf(t, s), chainOf(t, again), "the store's chain is the one in the file")
	archived := strings.Count(fx.fs.file(agentstore.ArchivePath(sessPath, "s1")), "\n") - 1 - len(got)
	assert.Equal(t, n, archived+len(chainOf(t, again)), "every append is in the archive (before the Reset) or in the "+
		"new session (after it), once")
}
