package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type hintRun struct {
	stdout, stderr string
	err            error
}

// hintIn runs `course hint args...` in the workspace dir of lab 7.
func hintIn(t *testing.T, dir string, getenv func(string) string, args ...string) hintRun {
	t.Helper()
	var out, errOut bytes.Buffer
	opts := &HintOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Catalog: demoCatalog(t, false), Getenv: getenv}
	err := execute(newCmdHint(opts), append(args, "--dir", dir)...)
	return hintRun{out.String(), errOut.String(), err}
}

func readSeen(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(HintStatePath)))
	require.NoError(t, err)
	return string(data)
}

func TestHintOneAtATimeAndRemembered(t *testing.T) {
	dir := demoWorkspace(t)
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(HintStatePath)))
	require.True(t, os.IsNotExist(err))

	r := hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.Equal(t, "Hint 1 of 3 for 7.1 One:\n\n  Start at the leaf.\n\n2 more: course hint 7.1\n", r.stdout)
	assert.Empty(t, r.stderr)
	assert.JSONEq(t, `{"seen": {"7.1": 1}}`, readSeen(t, dir))

	r = hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.Equal(t, "Hint 2 of 3 for 7.1 One:\n\n  Walk up the parents,\n  then reverse.\n\n1 more: course hint 7.1\n", r.stdout)

	r = hintIn(t, dir, noEnv, "1") // the short id
	require.NoError(t, r.err)
	assert.Equal(t, "Hint 3 of 3 for 7.1 One:\n\n  Stop at the root.\n\nThat was the last hint; course hint 7.1 --all shows them all.\n", r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 3}}`, readSeen(t, dir))

	for range 2 {
		r = hintIn(t, dir, noEnv, "7.1")
		require.NoError(t, r.err)
		assert.Equal(t, "You have seen all 3 hints for 7.1. The last one again:\n\n"+
			"Hint 3 of 3 for 7.1 One:\n\n  Stop at the root.\n\ncourse hint 7.1 --all shows them all.\n", r.stdout)
	}

	entries, err := os.ReadDir(filepath.Join(dir, ".course"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"hints.json", "workspace.json"}, names, "no temporary file left behind")
}

func TestHintAll(t *testing.T) {
	dir := demoWorkspace(t)
	r := hintIn(t, dir, noEnv, "7.1", "--all")
	require.NoError(t, r.err)
	assert.Equal(t, "Hint 1 of 3 for 7.1 One:\n\n  Start at the leaf.\n\n"+
		"Hint 2 of 3 for 7.1 One:\n\n  Walk up the parents,\n  then reverse.\n\n"+
		"Hint 3 of 3 for 7.1 One:\n\n  Stop at the root.\n", r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 3}}`, readSeen(t, dir), "all are seen")
}

func TestHintLanguage(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"flag":                {nil, []string{"--lang", "zh"}, "提示 1/3（7.1 One）：\n\n  从叶子开始。\n\n还有 2 条：course hint 7.1\n"},
		"LANG":                {map[string]string{"LANG": "zh_CN.UTF-8"}, nil, "提示 1/3"},
		"LC_ALL wins":         {map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, nil, "Hint 1 of 3"},
		"LC_ALL":              {map[string]string{"LC_ALL": "zh_TW"}, nil, "提示 1/3"},
		"flag wins":           {map[string]string{"LANG": "zh_CN.UTF-8"}, []string{"--lang", "en"}, "Hint 1 of 3"},
		"default is English":  {nil, nil, "Hint 1 of 3"},
		"LC_MESSAGES":         {map[string]string{"LC_MESSAGES": "zh_CN", "LANG": "en_GB"}, nil, "提示 1/3"},
		"another locale":      {map[string]string{"LANG": "fr_FR.UTF-8"}, nil, "Hint 1 of 3"},
		"uppercase zh locale": {map[string]string{"LANG": "ZH_cn"}, nil, "提示 1/3"},
	} {
		t.Run(name, func(t *testing.T) {
			r := hintIn(t, demoWorkspace(t), env(tc.env), append([]string{"7.1"}, tc.args...)...)
			require.NoError(t, r.err)
			assert.True(t, strings.HasPrefix(r.stdout, tc.want), r.stdout)
		})
	}
}

func TestHintChineseFallsBackToEnglish(t *testing.T) {
	dir := demoWorkspace(t)
	r := hintIn(t, dir, noEnv, "7.1", "--all", "--lang", "zh")
	require.NoError(t, r.err)
	assert.Contains(t, r.stdout, "提示 3/3（7.1 One）：\n\n  Stop at the root.\n", "no Chinese text: the English one")
}

func TestHintNoneForAnExercise(t *testing.T) {
	dir := demoWorkspace(t)
	r := hintIn(t, dir, noEnv, "7.2")
	require.NoError(t, r.err)
	assert.Equal(t, "There are no hints for 7.2 Two yet. Read the handout (README.md), and run course test 7.2.\n", r.stdout)
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(HintStatePath)))
	assert.True(t, os.IsNotExist(err), "nothing to remember")
}

func TestHintUsageErrors(t *testing.T) {
	dir := demoWorkspace(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"7.9"}, `chapter 7 has no exercise "7.9" (known: 7.3, 7.1, 7.2)`},
		{[]string{"7.1", "--lang", "fr"}, `--lang "fr": must be en or zh`},
	} {
		r := hintIn(t, dir, noEnv, tc.args...)
		assert.Equal(t, ExitUsage, exitCode(t, r.err), tc.args)
		assert.EqualError(t, r.err, tc.want)
		assert.Empty(t, r.stdout)
	}
}

func TestHintStartsOverOnAnUnreadableState(t *testing.T) {
	dir := demoWorkspace(t)
	p := filepath.Join(dir, filepath.FromSlash(HintStatePath))
	require.NoError(t, os.WriteFile(p, []byte("{not json"), 0o644))
	r := hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.True(t, strings.HasPrefix(r.stdout, "Hint 1 of 3 for 7.1 One:"))
	assert.Contains(t, r.stderr, "course hint: starting over with the hints seen: "+p+": ")
	assert.JSONEq(t, `{"seen": {"7.1": 1}}`, readSeen(t, dir), "repaired")
}

func TestHintKeepsOtherExercisesState(t *testing.T) {
	dir := demoWorkspace(t)
	p := filepath.Join(dir, filepath.FromSlash(HintStatePath))
	require.NoError(t, os.WriteFile(p, []byte(`{"seen": {"7.2": 4, "7.1": 1}}`), 0o644))
	r := hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.True(t, strings.HasPrefix(r.stdout, "Hint 2 of 3"), r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 2, "7.2": 4}}`, readSeen(t, dir))
}

func TestHintColour(t *testing.T) {
	var tty termBuffer
	opts := &HintOptions{IO: IOStreams{In: strings.NewReader(""), Out: &tty, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalog(t, false), Getenv: noEnv}
	require.NoError(t, execute(newCmdHint(opts), "7.1", "--dir", demoWorkspace(t)))
	assert.Equal(t, "\x1b[32mHint 1 of 3 for 7.1 One:\x1b[0m\n\n  Start at the leaf.\n\n\x1b[2m2 more: course hint 7.1\x1b[0m\n", tty.String())
}
