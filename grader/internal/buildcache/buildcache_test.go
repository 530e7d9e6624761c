package buildcache

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// session plays the go command's side: it sends reqs (a put's body on the
// line after it) and returns every response, the greeting first.
func session(t *testing.T, s *Store, reqs []request, bodies map[int64][]byte) []response {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range reqs {
		require.NoError(t, enc.Encode(r))
		if b, ok := bodies[r.ID]; ok {
			require.NoError(t, enc.Encode(base64.StdEncoding.EncodeToString(b)))
		}
	}
	var out bytes.Buffer
	require.NoError(t, s.Serve(&in, &out))
	var res []response
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r response
		require.NoError(t, dec.Decode(&r))
		res = append(res, r)
	}
	return res
}

func TestStoreKeepsWhatIsPutAndServesItBack(t *testing.T) {
	dir := t.TempDir()
	action, output, body := []byte{1, 2, 3}, []byte{9, 9}, []byte("compiled")
	res := session(t, &Store{Dir: dir, Writable: true}, []request{
		{ID: 1, Command: cmdPut, ActionID: action, OutputID: output, BodySize: int64(len(body))},
		{ID: 2, Command: cmdGet, ActionID: action},
		{ID: 3, Command: cmdGet, ActionID: []byte{7}},
		{ID: 4, Command: cmdClose},
	}, map[int64][]byte{1: body})
	require.Len(t, res, 5, "the greeting and one response per request: %+v", res)
	assert.ElementsMatch(t, []string{cmdGet, cmdPut, cmdClose}, res[0].KnownCommands, "a writable store offers put")
	require.Empty(t, res[1].Err, "put")
	got := res[2]
	assert.False(t, got.Miss, "get after put")
	assert.Equal(t, output, got.OutputID)
	assert.Equal(t, int64(len(body)), got.Size)
	data, err := os.ReadFile(got.DiskPath)
	require.NoError(t, err)
	assert.Equal(t, body, data, "the file get names holds what was put")
	assert.True(t, res[3].Miss, "get of an action never put")
	assert.Equal(t, int64(4), res[4].ID, "close is answered")
}

// A read-only store never offers put, refuses one if it comes anyway, and
// writes nothing: what a student's build makes stays the go command's.
func TestReadOnlyStoreWritesNothing(t *testing.T) {
	dir := t.TempDir()
	res := session(t, &Store{Dir: dir}, []request{
		{ID: 1, Command: cmdPut, ActionID: []byte{1}, OutputID: []byte{2}, BodySize: 4},
		{ID: 2, Command: cmdGet, ActionID: []byte{1}},
	}, map[int64][]byte{1: []byte("huge")})
	require.Len(t, res, 3)
	assert.NotContains(t, res[0].KnownCommands, cmdPut, "a read-only store must not offer put")
	assert.Contains(t, res[1].Err, "read-only")
	assert.True(t, res[2].Miss)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a read-only store wrote %v", entries)
}

// A put over MaxPut is refused (the go command keeps its own copy); an
// entry whose output file is missing, changed in size or not a regular
// file is a miss, never a path handed to the go command.
func TestStoreRefusesWhatItCannotVouchFor(t *testing.T) {
	res := session(t, &Store{Dir: t.TempDir(), Writable: true, MaxPut: 4}, []request{
		{ID: 1, Command: cmdPut, ActionID: []byte{1}, OutputID: []byte{1}, BodySize: 5},
	}, map[int64][]byte{1: []byte("12345")})
	assert.Contains(t, res[1].Err, "larger than the 4 this cache keeps")

	for name, spoil := range map[string]func(dir, out string){
		"output removed": func(dir, out string) { require.NoError(t, os.Remove(out)) },
		"output grown":   func(dir, out string) { require.NoError(t, os.WriteFile(out, []byte("1234"), 0o600)) },
		"output made a link": func(dir, out string) {
			require.NoError(t, os.Remove(out))
			require.NoError(t, os.Symlink("/etc/passwd", out))
		},
		"entry made gibberish": func(dir, out string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "02"), []byte("{"), 0o600))
		},
	} {
		s := &Store{Dir: t.TempDir(), Writable: true}
		res := session(t, s, []request{{ID: 1, Command: cmdPut, ActionID: []byte{2}, OutputID: []byte{2}, BodySize: 3}}, map[int64][]byte{1: []byte("123")})
		require.Empty(t, res[1].Err)
		spoil(s.Dir, filepath.Join(s.Dir, "o", "02"))
		res = session(t, s, []request{{ID: 1, Command: cmdGet, ActionID: []byte{2}}}, nil)
		assert.True(t, res[1].Miss, "get with the %s: %+v", name, res[1])
	}
}
