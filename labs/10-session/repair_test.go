package session_test

// Tests of the optional exercise 10.7, RepairUnterminatedTail, with a fake
// RepairFS.
//
// The fake keeps files in memory, records every call, and fails the call the
// test chooses (the n-th call of one method), optionally after writing a
// prefix of the data, the way a full disk fails. It never sleeps.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// repairPath is the session file the 10.7 tests repair in the fake.
const repairPath = "/sessions/s1.jsonl"

// repairCall is one recorded RepairFS call.
type repairCall struct {
	Op   string // "ReadFile", "WriteNewFile", "WriteFile", "Rename" or "Remove"
	Path string // Rename: the old path
	To   string // Rename only: the new path
	Data []byte // writes only: a copy of the bytes handed in
}

func (c repairCall) String() string {
	if c.Op == "Rename" {
		return fmt.Sprintf("Rename(%q, %q)", c.Path, c.To)
	}
	return fmt.Sprintf("%s(%q)", c.Op, c.Path)
}

// repairFailure is an injected failure: the call fails with err, after
// writing the first writeN bytes of its data (writes only).
type repairFailure struct {
	err    error
	writeN int
}

// repairFake is an in-memory RepairFS that records its calls and fails on
// request. It is guarded by a mutex, so it is safe under -race.
type repairFake struct {
	mu    sync.Mutex
	files map[string][]byte
	calls []repairCall
	count map[string]int                   // calls so far, by method
	fails map[string]map[int]repairFailure // by method, then by call number from 1
}

var _ session.RepairFS = (*repairFake)(nil)

// newRepairFake returns a fake holding files (path -> content).
func newRepairFake(files map[string]string) *repairFake {
	f := &repairFake{files: map[string][]byte{}, count: map[string]int{}, fails: map[string]map[int]repairFailure{}}
	for p, c := range files {
		f.files[p] = []byte(c)
	}
	return f
}

// failOn makes call n (from 1) of method op fail with err, after writing the
// first writeN bytes of its data if it is a write.
func (f *repairFake) failOn(op string, n int, err error, writeN int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails[op] == nil {
		f.fails[op] = map[int]repairFailure{}
	}
	f.fails[op][n] = repairFailure{err: err, writeN: writeN}
}

// record records a call and returns its injected failure, if any. f.mu is held.
func (f *repairFake) record(c repairCall) (repairFailure, bool) {
	f.calls = append(f.calls, c)
	f.count[c.Op]++
	fail, ok := f.fails[c.Op][f.count[c.Op]]
	return fail, ok
}

func (f *repairFake) ReadFile(path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail, ok := f.record(repairCall{Op: "ReadFile", Path: path}); ok {
		return nil, fail.err
	}
	b, ok := f.files[path]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), b...), nil
}

func (f *repairFake) WriteNewFile(path string, data []byte, perm fs.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail, failing := f.record(repairCall{Op: "WriteNewFile", Path: path, Data: append([]byte(nil), data...)})
	if _, exists := f.files[path]; exists {
		return &fs.PathError{Op: "open", Path: path, Err: fs.ErrExist}
	}
	if failing {
		f.files[path] = append([]byte(nil), data[:min(fail.writeN, len(data))]...)
		return fail.err
	}
	f.files[path] = append([]byte(nil), data...)
	return nil
}

func (f *repairFake) WriteFile(path string, data []byte, perm fs.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail, ok := f.record(repairCall{Op: "WriteFile", Path: path, Data: append([]byte(nil), data...)}); ok {
		f.files[path] = append([]byte(nil), data[:min(fail.writeN, len(data))]...)
		return fail.err
	}
	f.files[path] = append([]byte(nil), data...)
	return nil
}

func (f *repairFake) Rename(oldpath, newpath string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail, ok := f.record(repairCall{Op: "Rename", Path: oldpath, To: newpath}); ok {
		return fail.err
	}
	b, ok := f.files[oldpath]
	if !ok {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	delete(f.files, oldpath)
	f.files[newpath] = b
	return nil
}

func (f *repairFake) Remove(path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail, ok := f.record(repairCall{Op: "Remove", Path: path}); ok {
		return fail.err
	}
	if _, ok := f.files[path]; !ok {
		return &fs.PathError{Op: "remove", Path: path, Err: fs.ErrNotExist}
	}
	delete(f.files, path)
	return nil
}

// file returns the content of the file at path and whether it exists.
func (f *repairFake) file(path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	return string(b), ok
}

// paths returns the paths of every file, sorted.
func (f *repairFake) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// recorded returns a copy of the recorded calls, in order.
func (f *repairFake) recorded() []repairCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]repairCall(nil), f.calls...)
}

// changes returns the recorded calls that may change a file: all but ReadFile.
func (f *repairFake) changes() []repairCall {
	var out []repairCall
	for _, c := range f.recorded() {
		if c.Op != "ReadFile" {
			out = append(out, c)
		}
	}
	return out
}

// repairRun calls RepairUnterminatedTail(fsys, path), bounded in time.
func repairRun(t *testing.T, fsys session.RepairFS, path, what string) (session.RepairResult, error) {
	t.Helper()
	type result struct {
		res session.RepairResult
		err error
	}
	ch := goCall(fmt.Sprintf("RepairUnterminatedTail(%q)", path), func() result {
		res, err := session.RepairUnterminatedTail(fsys, path)
		return result{res, err}
	})
	select {
	case o := <-ch:
		r := o.value(t, what)
		return r.res, r.err
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: RepairUnterminatedTail(%q) did not return", what, path)
		return session.RepairResult{}, nil
	}
}

// repairMustRun repairs and requires success.
func repairMustRun(t *testing.T, fsys session.RepairFS, path, what string) session.RepairResult {
	t.Helper()
	res, err := repairRun(t, fsys, path, what)
	require.NoError(t, err, "%s: RepairUnterminatedTail(%q) = %s", what, path, fakeDescribe(err))
	return res
}

// repairCommitted is two committed lines; repairTail is half a third line.
func repairCommitted(t *testing.T) string {
	return jsonlFileOf(t, user("a", "", "hi"), assistantText("b", "a", "yo"))
}

const repairTail = `{"type":"message","id":"c","pare`

// repairRequireUnchanged requires that a failed repair left the original
// file as it was, with its backup intact and no temporary file behind.
func repairRequireUnchanged(t *testing.T, f *repairFake, err, cause error, text, what string) {
	t.Helper()
	require.Error(t, err, "%s: the repair succeeded", what)
	assert.True(t, errors.Is(err, cause), "%s: error = %s; want the failure itself (errors.Is)", what, fakeDescribe(err))
	got, _ := f.file(repairPath)
	assert.Equal(t, text, got, "%s: the original must be unchanged — lab 10.7: the repaired content goes to a "+
		"temporary file that is renamed over the original only once it is complete", what)
	backup := repairPath + ".bak-1"
	var re *session.RepairError
	if assert.True(t, errors.As(err, &re), "%s: error = %s; want a *RepairError naming the backup, so a person "+
		"knows where the original bytes are", what, fakeDescribe(err)) {
		assert.Equal(t, repairPath, re.Path, "%s: RepairError.Path", what)
		assert.Equal(t, backup, re.Backup, "%s: RepairError.Backup", what)
	}
	assert.Contains(t, fmt.Sprint(err), backup, "%s: the error message names the backup", what)
	b, _ := f.file(backup)
	assert.Equal(t, text, b, "%s: the backup holds the original bytes", what)
	assert.Equal(t, []string{repairPath, backup}, f.paths(),
		"%s: only the original and its backup are left — the temporary file is removed after a failure", what)
}

// Rule 10.7.1: opening never repairs; an explicit repair (on the real file
// system, through OSRepairFS) makes the file appendable again.
func TestLab10_7_RepairIsExplicitOpenNeverRepairs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	committed := repairCommitted(t)
	text := committed + repairTail
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))

	s := jsonlMustOpen(t, session.OSFileIO{}, path, "a file with an unterminated tail")
	err := fakeWaitPending(t, fakeAppend(t, s, assistantText("c", "b", "next"), "Append(c)"), "Append(c)")
	require.True(t, errors.Is(err, session.ErrNeedsRepair), "Append on a file with a tail = %s; want ErrNeedsRepair", fakeDescribe(err))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, text, string(raw), "opening and a refused append change nothing")
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, names, 1, "opening must not repair, back up or write anything: %v", names)

	res := repairMustRun(t, session.OSRepairFS{}, path, "explicit repair on disk")
	assert.Equal(t, path+".bak-1", res.BackupPath, "RepairResult.BackupPath")
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, committed, string(raw), "the repaired file holds the committed lines only")
	bak, err := os.ReadFile(path + ".bak-1")
	require.NoError(t, err, "the backup must exist on disk")
	assert.Equal(t, text, string(bak), "the backup holds the original bytes, tail included")
	names, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, names, 2, "the file and its backup, no temporary file left: %v", names)

	s2 := jsonlMustOpen(t, session.OSFileIO{}, path, "reopening after the repair")
	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s2, assistantText("c", "b", "next"), "Append(c)"), "Append(c)"),
		"after an explicit repair the file is appendable again")
	got, err := fakeEntries(t, s2, "Entries after the repair")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, ids(got))
}

// Rule 10.7.2: before anything else changes, the original bytes, tail
// included, are written to a new backup file with WriteNewFile.
func TestLab10_7_BackupFirstHoldsOriginalBytes(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	res := repairMustRun(t, f, repairPath, "repair")

	backup := repairPath + ".bak-1"
	assert.Equal(t, backup, res.BackupPath, "RepairResult.BackupPath: the first free path+\".bak-<n>\"")
	got, ok := f.file(backup)
	require.True(t, ok, "no file at %s; files: %v", backup, f.paths())
	assert.Equal(t, text, got, "the backup holds every original byte, the tail included")
	changes := f.changes()
	require.NotEmpty(t, changes, "a file with a tail must be repaired")
	first := changes[0]
	assert.Equal(t, "WriteNewFile", first.Op, "the first call that changes anything must be the backup, written with "+
		"WriteNewFile (which never overwrites); calls: %v", changes)
	assert.Equal(t, backup, first.Path, "the first change must write the backup; calls: %v", changes)
	assert.Equal(t, text, string(first.Data), "the backup is written from the original bytes")
	assert.Equal(t, 1, strings.Count(fmt.Sprint(f.recorded()), `ReadFile("`+repairPath+`")`),
		"the file is read once, and the repair decides from those bytes; calls: %v", f.recorded())
}

// Rule 10.7.2: an existing backup is never overwritten; the repair takes the
// next free number.
func TestLab10_7_BackupNeverOverwritten(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{
		repairPath:            text,
		repairPath + ".bak-1": "an older backup\n",
		repairPath + ".bak-2": "another older backup",
	})
	res := repairMustRun(t, f, repairPath, "repair with two older backups")
	assert.Equal(t, repairPath+".bak-3", res.BackupPath, "the first path+\".bak-<n>\" that does not exist")
	b1, _ := f.file(repairPath + ".bak-1")
	b2, _ := f.file(repairPath + ".bak-2")
	b3, _ := f.file(repairPath + ".bak-3")
	assert.Equal(t, "an older backup\n", b1, "an existing backup must never be overwritten")
	assert.Equal(t, "another older backup", b2, "an existing backup must never be overwritten")
	assert.Equal(t, text, b3, "the new backup holds the original bytes")
	for _, c := range f.changes() {
		if c.Op != "WriteNewFile" {
			assert.NotContains(t, []string{c.Path, c.To}, repairPath+".bak-1", "%v touches an older backup", c)
			assert.NotContains(t, []string{c.Path, c.To}, repairPath+".bak-2", "%v touches an older backup", c)
		}
	}
}

// Rule 10.7.3, 10.7.4: only the tail is cut, the result says what was cut,
// and the original is replaced by renaming a complete temporary file over it.
func TestLab10_7_CutsOnlyTheTail(t *testing.T) {
	committed := repairCommitted(t)
	for _, tc := range []struct {
		name, keep string
		line       int
	}{
		{"two lines then the tail", committed, 3},
		{"blank lines before the tail count", committed + "\n\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.keep + repairTail
			f := newRepairFake(map[string]string{repairPath: text})
			res := repairMustRun(t, f, repairPath, tc.name)
			got, _ := f.file(repairPath)
			assert.Equal(t, tc.keep, got, "the repaired file is the text up to and including its last \"\\n\"")
			assert.Equal(t, session.RepairResult{BackupPath: repairPath + ".bak-1", TailLine: tc.line,
				RemovedBytes: len(repairTail), Entries: 2}, res, "RepairResult")
			assert.True(t, res.Repaired(), "Repaired() after cutting a tail")

			var rename *repairCall
			for _, c := range f.changes() {
				assert.NotEqual(t, repairPath, c.Path, "%v: the original is never written, truncated or removed "+
					"in place — a failure half way would destroy committed lines; write a temporary file and rename it", c)
				if c.Op == "Rename" && c.To == repairPath {
					c := c
					rename = &c
				}
			}
			require.NotNil(t, rename, "no Rename(temporary, %q): the repaired content must be renamed over the "+
				"original; calls: %v", repairPath, f.changes())
			assert.NotEqual(t, repairPath+".bak-1", rename.Path, "the backup must stay; rename a temporary file")
			var wrote string
			for _, c := range f.changes() {
				if c.Op == "WriteFile" && c.Path == rename.Path {
					wrote = string(c.Data)
				}
			}
			assert.Equal(t, tc.keep, wrote, "the temporary file %q is written with the committed text", rename.Path)
			assert.Equal(t, []string{repairPath, repairPath + ".bak-1"}, f.paths(), "files after the repair")
		})
	}
}

// Rule 10.7.3: every committed byte stays identical: the repair cuts bytes,
// it never decodes and re-encodes lines.
func TestLab10_7_CommittedBytesIdentical(t *testing.T) {
	a := recoverLine(t, user("a", "", "héllo, 世界 <&>"))
	// Keys in another order and spaces around them: a valid line that
	// json.Marshal would never write like this.
	b := `{ "parentId" : "a", "id" : "b", "type" : "message", "timestamp" : 2, "message" : ` +
		`{"timestamp":2,"role":"assistant","content":[{"text":"yo","type":"text"}]} }`
	m := recoverLine(t, metadata("m", "b"))
	oddCommitted := a + "\r\n" + "\n" + " \t\r\n" + b + "\n" + m + "\n"
	for _, tc := range []struct {
		name, keep, tail string
		line, entries    int
	}{
		{"CRLF, blank lines, spacing, unicode", oddCommitted, `{"type":"meta`, 6, 3},
		{"a tail after trailing blanks", oddCommitted + " \t\r\n", "\f{", 7, 3},
		{"nothing committed", "", `{"type":"message","id":"a"`, 1, 0},
		// A torn write can stop inside a character: RemovedBytes counts
		// bytes, len(tail), never runes.
		{"a Chinese tail cut inside a character", oddCommitted, `{"type":"message","id":"c","message":"名字` + "\xe5\x90", 6, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.keep + tc.tail
			f := newRepairFake(map[string]string{repairPath: text})
			res := repairMustRun(t, f, repairPath, tc.name)
			got, ok := f.file(repairPath)
			require.True(t, ok, "the session file must still exist after the repair")
			assert.Equal(t, tc.keep, got, "every committed byte identical: the text up to and including the last \"\\n\"")
			assert.Equal(t, tc.line, res.TailLine, "RepairResult.TailLine")
			assert.Equal(t, len(tc.tail), res.RemovedBytes, "RepairResult.RemovedBytes: the tail's length in bytes, "+
				"%d for %q (not its %d characters)", len(tc.tail), tc.tail, len([]rune(tc.tail)))
			assert.Equal(t, tc.entries, res.Entries, "RepairResult.Entries")
			bak, _ := f.file(res.BackupPath)
			assert.Equal(t, text, bak, "the backup holds the original bytes")
		})
	}
}

// Rule 10.7.4: a failed write of the new content leaves the original
// unchanged, removes the temporary file and names the backup.
func TestLab10_7_FailedWriteLeavesOriginal(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	diskFull := errors.New("no space left on device")
	f.failOn("WriteFile", 1, diskFull, 10)
	_, err := repairRun(t, f, repairPath, "repair with a failing write")
	repairRequireUnchanged(t, f, err, diskFull, text, "the write of the new content failed after 10 bytes")
	for _, c := range f.changes() {
		assert.False(t, c.Op == "Rename" && c.To == repairPath, "%v after the write failed: a half-written "+
			"file must never replace the original", c)
	}
}

// Rule 10.7.4: a failed rename leaves the original unchanged, removes the
// temporary file and names the backup.
func TestLab10_7_FailedRenameLeavesOriginal(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	denied := errors.New("permission denied")
	f.failOn("Rename", 1, denied, 0)
	_, err := repairRun(t, f, repairPath, "repair with a failing rename")
	repairRequireUnchanged(t, f, err, denied, text, "the rename failed")
}

// Rule 10.7.2, 10.7.4: when the backup cannot be written, nothing else is
// done: no new content, no rename.
func TestLab10_7_FailedBackupChangesNothing(t *testing.T) {
	text := repairCommitted(t) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	diskFull := errors.New("no space left on device")
	f.failOn("WriteNewFile", 1, diskFull, 5)
	_, err := repairRun(t, f, repairPath, "repair with a failing backup")
	require.Error(t, err, "the backup failed: the repair must fail")
	assert.True(t, errors.Is(err, diskFull), "error = %s; want the backup's failure (errors.Is)", fakeDescribe(err))
	var re *session.RepairError
	assert.False(t, errors.As(err, &re), "error = %s; want the backup's failure, not a *RepairError: a *RepairError "+
		"says where the backup is, and there is none (lab 10.7)", fakeDescribe(err))
	got, _ := f.file(repairPath)
	assert.Equal(t, text, got, "without a backup the original must not change")
	for _, c := range f.changes() {
		assert.Equal(t, "WriteNewFile", c.Op, "%v after the backup failed: without a backup, nothing else may happen", c)
	}
}

// Rule 10.7.5: a file with a committed bad line is refused with its line
// number, and nothing is written: a repair cuts a tail, it does not fix
// corruption.
func TestLab10_7_CommittedBadLineRefused(t *testing.T) {
	text := repairCommitted(t) + "not json\n" + jsonlLine(t, user("c", "", "later")) + repairTail
	f := newRepairFake(map[string]string{repairPath: text})
	_, err := repairRun(t, f, repairPath, "repair of a file whose line 3 is bad")
	var le *session.LineError
	require.True(t, errors.As(err, &le), "error = %s; want the *LineError of RecoverJSONL — lab 10.7: a committed "+
		"bad line is corruption, which a repair must refuse", fakeDescribe(err))
	assert.Equal(t, 3, le.Line, "LineError.Line")
	assert.Empty(t, f.changes(), "a refused repair writes nothing, not even a backup")
	got, _ := f.file(repairPath)
	assert.Equal(t, text, got)
}

// Rule 10.7.5: a file without a tail is left untouched: no backup, and the
// result says there was nothing to do.
func TestLab10_7_NoTailNothingToDo(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		entries    int
	}{
		{"committed lines only", repairCommitted(t), 2},
		{"committed lines and blank lines", repairCommitted(t) + "\n \n", 2},
		{"a blank last line without a newline", repairCommitted(t) + " \t\r", 2},
		{"an empty file", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRepairFake(map[string]string{repairPath: tc.text})
			res := repairMustRun(t, f, repairPath, tc.name)
			assert.Equal(t, session.RepairResult{Entries: tc.entries}, res, "RepairResult of a file without a tail")
			assert.False(t, res.Repaired(), "Repaired() without a tail")
			assert.Empty(t, f.changes(), "a file without a tail is left untouched: no backup, no write, no rename")
			got, _ := f.file(repairPath)
			assert.Equal(t, tc.text, got)
		})
	}
}
