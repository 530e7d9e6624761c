package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
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

func TestHintOneRungAtATimeAndRemembered(t *testing.T) {
	dir := demoWorkspace(t)
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(HintStatePath)))
	require.True(t, os.IsNotExist(err))

	r := hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.Equal(t, "Rung 1 of 4 for 7.1 One: locate (定位)\n\n  Start at the leaf.\n\nNext rung, signature (签名): course hint 7.1\n", r.stdout)
	assert.Empty(t, r.stderr)
	assert.JSONEq(t, `{"seen": {"7.1": 1}}`, readSeen(t, dir))

	r = hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.Equal(t, "Rung 2 of 4 for 7.1 One: signature (签名)\n\n  func Walk(leaf string) []string\n\nNext rung, pseudocode (伪代码): course hint 7.1\n", r.stdout)

	r = hintIn(t, dir, noEnv, "1") // the short id
	require.NoError(t, r.err)
	assert.Equal(t, "Rung 3 of 4 for 7.1 One: pseudocode (伪代码)\n\n  Walk up the parents,\n  then reverse.\n\nNext rung, local code (局部): course hint 7.1\n", r.stdout)

	r = hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.Equal(t, "Rung 4 of 4 for 7.1 One: local code (局部)\n\n  at = parent[at]\n\n"+
		"That was the last rung: the rest of the code is yours. course hint 7.1 --all shows the whole ladder.\n", r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 4}}`, readSeen(t, dir))

	for range 2 {
		r = hintIn(t, dir, noEnv, "7.1")
		require.NoError(t, r.err)
		assert.Equal(t, "You have climbed all 4 rungs for 7.1. The last one again:\n\n"+
			"Rung 4 of 4 for 7.1 One: local code (局部)\n\n  at = parent[at]\n\ncourse hint 7.1 --all shows the whole ladder.\n", r.stdout)
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
	assert.Equal(t, "Rung 1 of 4 for 7.1 One: locate (定位)\n\n  Start at the leaf.\n\n"+
		"Rung 2 of 4 for 7.1 One: signature (签名)\n\n  func Walk(leaf string) []string\n\n"+
		"Rung 3 of 4 for 7.1 One: pseudocode (伪代码)\n\n  Walk up the parents,\n  then reverse.\n\n"+
		"Rung 4 of 4 for 7.1 One: local code (局部)\n\n  at = parent[at]\n", r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 4}}`, readSeen(t, dir), "all are seen")
}

func TestHintLanguage(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"flag":                {nil, []string{"--lang", "zh"}, "第 1/4 级（7.1 One）：定位（locate）\n\n  从叶子开始。\n\n下一级是签名（signature）：course hint 7.1\n"},
		"LANG":                {map[string]string{"LANG": "zh_CN.UTF-8"}, nil, "第 1/4 级"},
		"LC_ALL wins":         {map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, nil, "Rung 1 of 4"},
		"LC_ALL":              {map[string]string{"LC_ALL": "zh_TW"}, nil, "第 1/4 级"},
		"flag wins":           {map[string]string{"LANG": "zh_CN.UTF-8"}, []string{"--lang", "en"}, "Rung 1 of 4"},
		"default is English":  {nil, nil, "Rung 1 of 4"},
		"LC_MESSAGES":         {map[string]string{"LC_MESSAGES": "zh_CN", "LANG": "en_GB"}, nil, "第 1/4 级"},
		"another locale":      {map[string]string{"LANG": "fr_FR.UTF-8"}, nil, "Rung 1 of 4"},
		"uppercase zh locale": {map[string]string{"LANG": "ZH_cn"}, nil, "第 1/4 级"},
	} {
		t.Run(name, func(t *testing.T) {
			r := hintIn(t, demoWorkspace(t), env(tc.env), append([]string{"7.1"}, tc.args...)...)
			require.NoError(t, r.err)
			assert.True(t, strings.HasPrefix(r.stdout, tc.want), r.stdout)
		})
	}
}

func TestHintInChinese(t *testing.T) {
	dir := demoWorkspace(t)
	r := hintIn(t, dir, noEnv, "7.1", "--all", "--lang", "zh")
	require.NoError(t, r.err)
	assert.Contains(t, r.stdout, "第 4/4 级（7.1 One）：局部（local code）\n\n  at = parent[at]（一步）\n")
}

// TestHintOfTheOlderUnnamedList: a lab whose hints are still the unnamed
// list shows them numbered, without a rung.
func TestHintOfTheOlderUnnamedList(t *testing.T) {
	labsFS := fstest.MapFS{
		"go.mod":                   {Data: []byte("module github.com/coursekit/course/labs\n\ngo 1.22\n")},
		"07-demo/.meta/lab.json":   {Data: []byte(demoManifest)},
		"07-demo/demo.go":          {Data: []byte("package demo\n")},
		"07-demo/demo_test.go":     {Data: []byte(demoTests)},
		"07-demo/" + lab.HintsPath: {Data: []byte(`{"7.1": [{"en": "Start at the leaf.", "zh": "从叶子开始。"}, {"en": "Stop at the root."}]}`)},
	}
	c, err := lab.LoadFS(labsFS, fstest.MapFS{"07-demo/demo.go": {Data: []byte("package demo\n")}})
	require.NoError(t, err)
	var out bytes.Buffer
	opts := &HintOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
		Catalog: func() (*lab.Catalog, error) { return c, nil }, Getenv: noEnv}
	require.NoError(t, execute(newCmdHint(opts), "7.1", "--dir", demoWorkspace(t)))
	assert.Equal(t, "Hint 1 of 2 for 7.1 One:\n\n  Start at the leaf.\n\n1 more: course hint 7.1\n", out.String())
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
	assert.True(t, strings.HasPrefix(r.stdout, "Rung 1 of 4 for 7.1 One:"))
	assert.Contains(t, r.stderr, "course hint: starting over with the hints seen: "+p+": ")
	assert.JSONEq(t, `{"seen": {"7.1": 1}}`, readSeen(t, dir), "repaired")
}

func TestHintKeepsOtherExercisesState(t *testing.T) {
	dir := demoWorkspace(t)
	p := filepath.Join(dir, filepath.FromSlash(HintStatePath))
	require.NoError(t, os.WriteFile(p, []byte(`{"seen": {"7.2": 4, "7.1": 1}}`), 0o644))
	r := hintIn(t, dir, noEnv, "7.1")
	require.NoError(t, r.err)
	assert.True(t, strings.HasPrefix(r.stdout, "Rung 2 of 4"), r.stdout)
	assert.JSONEq(t, `{"seen": {"7.1": 2, "7.2": 4}}`, readSeen(t, dir))
}

func TestHintColour(t *testing.T) {
	var tty termBuffer
	opts := &HintOptions{IO: IOStreams{In: strings.NewReader(""), Out: &tty, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalog(t, false), Getenv: noEnv}
	require.NoError(t, execute(newCmdHint(opts), "7.1", "--dir", demoWorkspace(t)))
	assert.Equal(t, "\x1b[32mRung 1 of 4 for 7.1 One: locate (定位)\x1b[0m\n\n  Start at the leaf.\n\n\x1b[2mNext rung, signature (签名): course hint 7.1\x1b[0m\n", tty.String())
}
