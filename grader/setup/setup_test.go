package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"

	"github.com/coursekit/course/grader/lab"
)

// TestSetupLoadTakesARecordOnlyWhileItsFilesAreThere: a kept answer is
// taken while every file it names is there, and not once one is gone. The
// files are the test's own: the real helpers in the grader's cache
// directory are shared with every grader running beside the test.
func TestSetupLoadTakesARecordOnlyWhileItsFilesAreThere(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	modCache := t.TempDir()
	t.Setenv("GOMODCACHE", modCache)
	reqs, err := l.Requirements()
	require.NoError(t, err)
	for _, m := range reqs {
		escaped, err := module.EscapePath(m.Path)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(modCache, escaped+"@"+m.Version), 0o755))
	}

	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(name), 0o700))
		return p
	}
	base := filepath.Join(dir, "cache")
	require.NoError(t, os.MkdirAll(filepath.Join(base, "a"), 0o700))
	file("cache/a/entry")
	rec := setupRecord{Test2JSON: file("test2json"), CheckHelper: file("checker"), CacheHelper: file("buildcache"),
		CacheBase: base, Exports: map[string]string{"strings": file("strings.a")}}
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	p := filepath.Join(dir, "setup.json")
	require.NoError(t, os.WriteFile(p, data, 0o600))

	s := &state{cfg: Config{Lab: l}}
	_, ok := s.loadSetup(p)
	require.True(t, ok, "loadSetup(%s) refused a record whose files are all there", p)

	for _, gone := range []string{rec.CheckHelper, rec.Exports["strings"]} {
		require.NoError(t, os.Rename(gone, gone+".away"))
		_, ok = s.loadSetup(p)
		assert.False(t, ok, "loadSetup took a record naming %s, which is gone: the set-up must ask again", filepath.Base(gone))
		require.NoError(t, os.Rename(gone+".away", gone))
	}
	require.NoError(t, os.RemoveAll(filepath.Join(base, "a")))
	_, ok = s.loadSetup(p)
	assert.False(t, ok, "loadSetup took a record whose build cache is empty")
}
