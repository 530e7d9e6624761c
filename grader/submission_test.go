package grader

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
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

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i, n := range names {
		w, err := zw.Create(n)
		require.NoError(t, err)
		_, _ = w.Write([]byte("package session // copy " + string(rune('a'+i)) + "\n"))
	}
	require.NoError(t, zw.Close())
	zipPath := filepath.Join(dir, "alice.zip")
	require.NoError(t, os.WriteFile(zipPath, zb.Bytes(), 0o644))

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
		sub, err := ReadSubmission(p, []string{"session.go"})
		var se *SubmissionError
		require.True(t, errors.As(err, &se), "ReadSubmission(%s with session.go twice) = %v, %v; want a *SubmissionError", filepath.Base(p), sub, err)
		assert.ErrorIs(t, err, ErrBadSubmission)
		assert.Contains(t, se.Reason, "two entries named session.go")
	}
}
