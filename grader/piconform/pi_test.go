package piconform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requirePiEnv makes a missing node or pi package a failure instead of a
// skip; CI sets it after installing the pinned package (.ci/run).
const requirePiEnv = "COURSE_REQUIRE_PI"

// piDir is the node project that pins pi.
var piDir = filepath.Join("testdata", "pi")

// piTimeout bounds one run of the script.
const piTimeout = 2 * time.Minute

// piRunner runs pi.mjs with node.
type piRunner struct {
	node    string
	dir     string // absolute piDir
	version string // pi's version, as installed and pinned
}

// skipOrFail skips t saying why, or fails it where COURSE_REQUIRE_PI is set.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(requirePiEnv) != "" {
		t.Fatalf("%s; %s is set, so this machine must run pi", why, requirePiEnv)
	}
	t.Skip(why)
}

// pinned returns the version of pi that package.json pins.
func pinned(t *testing.T) string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile(filepath.Join(piDir, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Join(piDir, "package.json"), err)
	}
	v := pkg.Dependencies[piPackage]
	if v == "" || strings.ContainsAny(v, "^~<>=* ") {
		t.Fatalf("%s must pin %s to one version, not %q", filepath.Join(piDir, "package.json"), piPackage, v)
	}
	return v
}

// piPackage is pi's npm package.
const piPackage = "@mariozechner/pi-coding-agent"

// findPi returns a runner of the pinned pi, or skips t saying what is
// missing (fails it under COURSE_REQUIRE_PI).
func findPi(t *testing.T) *piRunner {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping pi, which runs node")
	}
	want := pinned(t)
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "no node on PATH (node 20 or newer; Debian: apt-get install nodejs npm), so pi cannot run")
	}
	dir, err := filepath.Abs(piDir)
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(piPackage), "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		skipOrFail(t, fmt.Sprintf("pi is not installed: run `npm ci --ignore-scripts` in %s (about 200 MB, once)", dir))
	}
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil {
		t.Fatalf("the installed %s: %v", piPackage, err)
	}
	if pkg.Version != want {
		t.Fatalf("%s %s is installed in %s, but package.json pins %s: run `npm ci --ignore-scripts` there", piPackage, pkg.Version, dir, want)
	}
	return &piRunner{node: node, dir: dir, version: want}
}

// run runs `node pi.mjs args...` and returns what it printed. pi gets a
// home of its own, so that nothing of the machine's ~/.pi is read.
func (p *piRunner) run(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), piTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.node, append([]string{"pi.mjs"}, args...)...)
	cmd.Dir = p.dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, ".pi", "agent"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("node pi.mjs %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// piContext is what pi's buildSessionContext returns.
type piContext struct {
	Messages      []json.RawMessage `json:"messages"`
	ThinkingLevel string            `json:"thinkingLevel"`
	Model         *piModel          `json:"model"`
}

type piModel struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

func (m *piModel) String() string {
	if m == nil {
		return "none"
	}
	return m.Provider + "/" + m.ModelID
}

// piLeaf is pi's context at one leaf of a session. Name is the fixture's
// name for it ("" when pi read a file live).
type piLeaf struct {
	Name    string    `json:"name"`
	Leaf    string    `json:"leaf"`
	Context piContext `json:"context"`
}

// label is how a report names the leaf.
func (l piLeaf) label() string {
	if l.Name != "" {
		return l.Name
	}
	return l.Leaf
}

// piSession is what pi says of one session file: a fixture's
// NAME.context.json, or one file of `pi.mjs read`.
type piSession struct {
	Pi      string `json:"pi"`
	Session string `json:"session"`
	File    string `json:"file"`
	// Migrated: the file is of an older version, which pi migrates.
	// Rewritten: pi changed the file when it opened it (a migration, or
	// a file without a header). Changed: what the script changed in a file
	// pi wrote, to see what pi does with a file the lab refuses.
	Migrated  bool     `json:"migrated"`
	Rewritten bool     `json:"rewritten"`
	Changed   string   `json:"changed"`
	OpenLeaf  *string  `json:"openLeaf"`
	Entries   int      `json:"entries"`
	Leaves    []piLeaf `json:"leaves"`
}

// read runs `pi.mjs read files...`.
func (p *piRunner) read(t *testing.T, files ...string) []piSession {
	t.Helper()
	return p.decode(t, p.run(t, append([]string{"read"}, files...)...))
}

// cont runs `pi.mjs continue prompt files...`: pi appends one exchange to
// each file.
func (p *piRunner) cont(t *testing.T, prompt string, files ...string) []piSession {
	t.Helper()
	got := p.decode(t, p.run(t, append([]string{"continue", prompt}, files...)...))
	if len(got) != len(files) {
		t.Fatalf("pi.mjs continue: %d files in its answer, want %d", len(got), len(files))
	}
	return got
}

func (p *piRunner) decode(t *testing.T, out []byte) []piSession {
	t.Helper()
	var doc struct {
		Pi    string      `json:"pi"`
		Files []piSession `json:"files"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("pi.mjs printed what is not its JSON: %v\n%.500s", err, out)
	}
	if doc.Pi != p.version {
		t.Fatalf("pi.mjs ran pi %s, want the pinned %s", doc.Pi, p.version)
	}
	return doc.Files
}
