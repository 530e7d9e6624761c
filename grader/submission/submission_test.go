package submission

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An archive with two members of the same name could be graded on either;
// a person reading it would see one. It is refused, naming the member.
func TestReadSubmissionRefusesAnArchiveWithTwoMembersOfOneName(t *testing.T) {
	dir := t.TempDir()
	names := []string{"session.go", "./session.go"}

	var members [][2]string
	for i, n := range names {
		members = append(members, [2]string{n, "package session // copy " + string(rune('a'+i)) + "\n"})
	}
	zipPath := zipOf(t, members)

	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		body := []byte("package session\n")
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, _ = tw.Write(body)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	tarPath := filepath.Join(dir, "bob.tar.gz")
	require.NoError(t, os.WriteFile(tarPath, tb.Bytes(), 0o644))

	for _, p := range []string{zipPath, tarPath} {
		sub, err := Read(p, []string{"session.go"})
		var se *Error
		require.True(t, errors.As(err, &se), "Read(%s with session.go twice) = %v, %v; want a *Error", filepath.Base(p), sub, err)
		assert.ErrorIs(t, err, ErrBad)
		assert.Contains(t, se.Reason, "two entries named session.go")
	}
}

// A .tar.gz is read only up to maxInflatedSize of what it inflates to,
// whatever its members declare: one that unpacks to more (a gzip bomb with
// session.go at the end) is refused as such, not graded as holding no
// session.go.
func TestReadSubmissionRefusesAnArchiveThatInflatesPastTheLimit(t *testing.T) {
	defer func(n int64) { maxInflatedSize = n }(maxInflatedSize)
	maxInflatedSize = 64 << 10

	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for _, m := range []struct {
		name string
		size int
	}{{"build.cache", 128 << 10}, {"session.go", 16}} {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: int64(m.size), Typeflag: tar.TypeReg}))
		_, err := tw.Write(bytes.Repeat([]byte(" "), m.size))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	p := filepath.Join(t.TempDir(), "mallory.tar.gz")
	require.NoError(t, os.WriteFile(p, tb.Bytes(), 0o644))

	sub, err := Read(p, []string{"session.go"})
	var se *Error
	require.ErrorAs(t, err, &se, "Read(a .tar.gz of 144 KiB unpacked, limit 64 KiB) = %v, %v; want a *Error", sub, err)
	assert.ErrorIs(t, err, ErrBad)
	assert.Equal(t, "unpacks to more than 64 KiB, far more than a workspace holds", se.Reason)
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, tb.Bytes(), data, "the submission is untouched")
}

// A directory is listed only up to maxDirEntries: one of millions of files
// (which a student on a shared machine can make in a minute) is not read
// whole into memory before the count stops it. What is allocated tells:
// a listing of every entry costs at least one allocation per entry.
func TestReadSubmissionListsAHugeDirectoryOnlyUpToTheLimit(t *testing.T) {
	defer func(n int) { maxDirEntries = n }(maxDirEntries)
	maxDirEntries = 10
	const entries = 3000
	dir := t.TempDir()
	for i := range entries {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", i)), nil, 0o644))
	}
	var err error
	allocs := testing.AllocsPerRun(1, func() { _, err = Read(dir, []string{"session.go"}) })
	assert.ErrorContains(t, err, "holds more than 10 files and directories")
	assert.Less(t, allocs, float64(entries)/4, "Read of a directory of %d files, limit 10: %.0f allocations; want far fewer than one per file", entries, allocs)
	list, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, list, entries, "the submission is untouched")
}

// TestReadSubmissionTakesTheOnlyGoFileWhateverItsName: a directory (as
// Gradescope's /autograder/submission holds an upload) or an archive with
// one Go file that is not the lab's by name is read as that file, as a
// lone file is; tests and other files do not count. Two such files are an
// error naming them, of kind Crowded; none, Missing. A lab of two files
// takes nothing by another name.
func TestReadSubmissionTakesTheOnlyGoFileWhateverItsName(t *testing.T) {
	src := []byte("package session\n")
	write := func(dir string, files map[string]string) string {
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		}
		return dir
	}
	one := write(t.TempDir(), map[string]string{"alice.go": string(src), "alice_test.go": "package session_test\n", "notes.txt": "hi"})
	sub, err := Read(one, []string{"session.go"})
	require.NoError(t, err, "Read(a directory holding alice.go)")
	assert.Equal(t, src, sub.Files["session.go"])
	assert.Equal(t, "alice.go", sub.Found["session.go"])

	sub, err = Read(zipOf(t, [][2]string{{"lab/Alice.GO", string(src)}}), []string{"session.go"})
	require.NoError(t, err, "Read(a zip holding lab/Alice.GO)")
	assert.Equal(t, "lab/Alice.GO", sub.Found["session.go"])

	// What macOS's Finder zips with a lone file: its attributes beside it,
	// as a hidden "._" file, and again under __MACOSX.
	attributes := "\x00\x05\x16\x07"
	sub, err = Read(zipOf(t, [][2]string{{"alice.go", string(src)}, {"__MACOSX/._alice.go", attributes}, {"._alice.go", attributes}}), []string{"session.go"})
	require.NoError(t, err, "Read(a zip Finder made of alice.go)")
	assert.Equal(t, "alice.go", sub.Found["session.go"])
	sub, err = Read(write(t.TempDir(), map[string]string{"alice.go": string(src), "._alice.go": "\x00\x05", ".go": "x"}), []string{"session.go"})
	require.NoError(t, err, "Read(a directory of alice.go, ._alice.go and .go)")
	assert.Equal(t, "alice.go", sub.Found["session.go"])

	named := write(t.TempDir(), map[string]string{"session.go": string(src), "helper.go": "package session\n"})
	sub, err = Read(named, []string{"session.go"})
	require.NoError(t, err)
	assert.Equal(t, "session.go", sub.Found["session.go"], "the file of the lab's name comes first")

	two := write(t.TempDir(), map[string]string{"alice.go": string(src), "sub/bob.go": string(src)})
	_, err = Read(two, []string{"session.go"})
	var se *Error
	require.ErrorAs(t, err, &se, "Read(a directory holding alice.go and sub/bob.go)")
	assert.Equal(t, Crowded, se.Kind)
	assert.Equal(t, "holds no session.go, and 2 other .go files that could be it (alice.go, sub/bob.go): name the one to grade session.go, or hand it in alone", se.Reason)

	none := write(t.TempDir(), map[string]string{"alice_test.go": "package session_test\n", "README.md": "#"})
	_, err = Read(none, []string{"session.go"})
	require.ErrorAs(t, err, &se)
	assert.Equal(t, Missing, se.Kind)
	assert.Equal(t, "holds no session.go", se.Reason)

	_, err = Read(one, []string{"session.go", "store.go"})
	require.ErrorAs(t, err, &se, "a lab of two files takes no file by another name")
	assert.Equal(t, "holds no session.go", se.Reason)
}

// zipOf writes a zip of members (name, content), in their order, and
// returns its path.
func zipOf(t *testing.T, members [][2]string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.Create(m[0])
		require.NoError(t, err)
		_, err = w.Write([]byte(m[1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	p := filepath.Join(t.TempDir(), "submission.zip")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}
