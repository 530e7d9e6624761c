package autograder_test

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder"
)

// fakeGoArchive writes a tar.gz shaped like Go's release archive, whose
// go/bin/go only says its version, and returns its path and SHA-256.
func fakeGoArchive(t *testing.T, version string) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "go.tar.gz")
	f, err := os.Create(p)
	require.NoError(t, err)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	script := "#!/bin/sh\n[ \"$1\" = version ] && echo 'go version " + version + " linux/amd64 (fake)' && exit 0\nexit 3\n"
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "go/bin/go", Mode: 0o755, Size: int64(len(script)), Typeflag: tar.TypeReg}))
	_, err = tw.Write([]byte(script))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, f.Close())
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	return p, hex.EncodeToString(sum[:])
}

// setupWithFakeDownload runs setup.sh on a machine without Go, whose curl
// serves archive for any URL (and logs the URL) and whose uname says
// x86_64. It returns the exit status, the output, the Go prefix and the
// log of downloads.
func setupWithFakeDownload(t *testing.T, sums map[string]string, archive string) (int, string, string, string) {
	t.Helper()
	for _, tool := range []string{"bash", "sha256sum", "tar", "gzip", "mktemp", "cut"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	g := &autograder.Gradescope{Source: courseRoot(t), Chapter: "10", GoVersion: "go1.26.8", GoSHA256: sums}
	setup, _, err := g.Scripts()
	require.NoError(t, err)
	dir := t.TempDir()
	script := filepath.Join(dir, "setup.sh")
	require.NoError(t, os.WriteFile(script, setup, 0o755))

	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	log := filepath.Join(dir, "downloads")
	curl := "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift 2;; -*) shift;; *) echo \"$1\" >>\"$FAKE_LOG\"; shift;; esac; done\ncp \"$FAKE_ARCHIVE\" \"$out\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "curl"), []byte(curl), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "uname"), []byte("#!/bin/sh\necho x86_64\n"), 0o755))

	prefix := filepath.Join(dir, "prefix")
	require.NoError(t, os.MkdirAll(prefix, 0o755))
	env := []string{
		"PATH=" + bin + ":/usr/bin:/bin", // no go
		"GO_PREFIX=" + prefix, "AUTOGRADER_ROOT=" + filepath.Join(dir, "autograder"),
		"FAKE_ARCHIVE=" + archive, "FAKE_LOG=" + log, "HOME=" + dir,
	}
	cmd := exec.Command("bash", script)
	cmd.Env = env
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	which := exec.Command("bash", "-c", "command -v go")
	which.Env = env
	if o, err := which.Output(); err == nil && !strings.HasPrefix(string(o), prefix) {
		t.Fatalf("the test machine's go is on the test's PATH (%s): setup.sh would not install one", o)
	}
	downloads, _ := os.ReadFile(log)
	return code, string(out), prefix, string(downloads)
}

func TestSetupInstallsGoOnlyWithThePinnedSHA256(t *testing.T) {
	archive, sum := fakeGoArchive(t, "go1.26.8")
	code, out, prefix, downloads := setupWithFakeDownload(t, map[string]string{"amd64": sum, "arm64": strings.Repeat("0", 64)}, archive)
	assert.Equal(t, "https://go.dev/dl/go1.26.8.linux-amd64.tar.gz\n", downloads)
	assert.Contains(t, out, "setup.sh: SHA-256 "+sum+": as pinned")
	assert.Contains(t, out, "go version go1.26.8 linux/amd64 (fake)", "the verified archive was installed and runs")
	assert.FileExists(t, filepath.Join(prefix, "go", "bin", "go"))
	// The fake go cannot download modules: setup.sh stops there, past the check.
	assert.NotEqual(t, 0, code)
}

func TestSetupRefusesADownloadThatDoesNotMatch(t *testing.T) {
	archive, sum := fakeGoArchive(t, "go1.26.8")
	pinned := strings.Repeat("ab", 32)
	code, out, prefix, downloads := setupWithFakeDownload(t, map[string]string{"amd64": pinned, "arm64": pinned}, archive)
	assert.Equal(t, 1, code, out)
	assert.Equal(t, "https://go.dev/dl/go1.26.8.linux-amd64.tar.gz\n", downloads)
	assert.Contains(t, out, "setup.sh: https://go.dev/dl/go1.26.8.linux-amd64.tar.gz has SHA-256 "+sum+", not "+pinned+
		", pinned when the bundle was made: not installing it")
	assert.NoDirExists(t, filepath.Join(prefix, "go"), "nothing unpacked")
	assert.NotContains(t, out, "go version")
}

func TestSetupRefusesAnArchWithoutAPinnedSHA256(t *testing.T) {
	archive, _ := fakeGoArchive(t, "go1.26.8")
	code, out, prefix, downloads := setupWithFakeDownload(t, map[string]string{"arm64": strings.Repeat("0", 64)}, archive)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "setup.sh: no pinned SHA-256 for go1.26.8.linux-amd64; make the bundle again with --go-sha256 amd64=HEX")
	assert.Empty(t, downloads, "nothing downloaded")
	assert.NoDirExists(t, filepath.Join(prefix, "go"))
}

func TestGoSumsTableIsWellFormed(t *testing.T) {
	vs := autograder.PinnedGoVersions()
	require.NotEmpty(t, vs)
	for _, v := range vs {
		sums, err := autograder.GoSHA256(v, nil)
		require.NoError(t, err)
		assert.Len(t, sums, 2, "%s: a sum for each of amd64 and arm64", v)
		assert.NotEqual(t, sums["amd64"], sums["arm64"], v)
	}
	assert.Contains(t, vs, autograder.DefaultGoVersion())
}

// A grader that never ends still leaves a results.json, when
// run_autograder's limit stops it.
func TestRunAutograderStopsAGraderThatHangs(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout")
	}
	g := &autograder.Gradescope{Source: courseRoot(t), Chapter: "10", Limit: time.Second}
	_, run, err := g.Scripts()
	require.NoError(t, err)
	root := t.TempDir()
	script := filepath.Join(root, "run_autograder")
	require.NoError(t, os.WriteFile(script, run, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "course"), []byte("#!/bin/sh\nexec sleep 60\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "submission"), 0o755))

	start := time.Now()
	code, out := runScript(t, root, script)
	assert.Less(t, time.Since(start), 30*time.Second, "stopped at its limit")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "course grade did not end within 1 seconds")
	r := readResults(t, resultsSchema(t), root)
	assert.Zero(t, r.Score)
	assert.Contains(t, r.Output, "Grading did not finish within 1 seconds")
}
