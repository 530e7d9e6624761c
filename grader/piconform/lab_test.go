package piconform

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/solutions"
)

// chapter is the lab whose store speaks pi.
const chapter = "11"

// fixturesDir is where the lab keeps pi's fixtures, relative to the lab's
// directory (and so to a workspace of it).
const fixturesDir = "testdata/pi"

// theLab returns the lab under test.
func theLab(t *testing.T) *lab.Lab {
	t.Helper()
	c, err := lab.Load()
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Lookup(chapter)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// candidate is a store.go the suite holds to pi.
type candidate struct {
	name string // "reference", or the alternative's directory
	src  []byte
}

// candidates returns the reference solution and every alternative. In a
// student release, which has none, it skips t.
func candidates(t *testing.T, l *lab.Lab) []candidate {
	t.Helper()
	out := []candidate{{"reference", releasetest.Solution(t, l)}}
	dir := path.Join(l.Slug, "alternatives")
	alts, err := fs.ReadDir(solutions.FS, dir)
	if err != nil {
		t.Fatalf("solutions/%s: %v", dir, err)
	}
	for _, d := range alts {
		src, err := fs.ReadFile(solutions.FS, path.Join(dir, d.Name(), l.Editable[0]))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, candidate{d.Name(), src})
	}
	return out
}

// goTool finds the go command running these tests.
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the suite, which builds a lab workspace with the go command")
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command on PATH nor at %s", p)
	}
	return p
}

// driver is testdata/driver, built in a workspace of the lab with one
// candidate's store.go.
type driver struct {
	bin       string
	workspace string
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*driver{} // by candidate name: built once for every test
	buildDir string                 // removed by TestMain
)

func TestMain(m *testing.M) {
	var err error
	if buildDir, err = os.MkdirTemp("", "piconform-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(buildDir)
	os.Exit(code)
}

// driverFor builds, once, the driver over candidate c.
func driverFor(t *testing.T, l *lab.Lab, c candidate) *driver {
	t.Helper()
	goCmd := goTool(t)
	buildsMu.Lock()
	defer buildsMu.Unlock()
	if d, ok := builds[c.name]; ok {
		return d
	}
	ws := filepath.Join(buildDir, c.name)
	if err := l.WriteGradingDir(ws, c.src, false); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "driver", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "piconform-driver"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "piconform-driver", "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(buildDir, c.name+".driver")
	if code, out := offline.Run(t, 5*time.Minute, ws, goCmd, "build", "-o", bin, "./piconform-driver"); code != 0 {
		t.Fatalf("go build of the driver over %s: exit %d\n%s", c.name, code, out)
	}
	d := &driver{bin: bin, workspace: ws}
	builds[c.name] = d
	return d
}

// driverRequest and driverResponse are testdata/driver's request and
// response (see there).
type driverRequest struct {
	Open   []openRequest   `json:"open,omitempty"`
	Append []appendRequest `json:"append,omitempty"`
}

type openRequest struct {
	Path   string   `json:"path"`
	Leaves []string `json:"leaves"`
}

type appendRequest struct {
	Path     string            `json:"path"`
	Messages []json.RawMessage `json:"messages"`
	Budget   int               `json:"budget"`
	Keep     int               `json:"keep"`
}

type driverResponse struct {
	Open   []openResult   `json:"open"`
	Append []appendResult `json:"append"`
}

type failure struct {
	Error   string `json:"error"`
	Kind    string `json:"kind"`
	Line    int    `json:"line"`
	Version int    `json:"version"`
}

type openResult struct {
	Path    string       `json:"path"`
	Failure *failure     `json:"failure"`
	Leaf    string       `json:"leaf"`
	Leaves  []leafResult `json:"leaves"`
}

type leafResult struct {
	Leaf          string            `json:"leaf"`
	Failure       *failure          `json:"failure"`
	Messages      []json.RawMessage `json:"messages"`
	ThinkingLevel string            `json:"thinkingLevel"`
	Model         *piModel          `json:"model"`
	Differs       string            `json:"differs"`
}

type appendResult struct {
	Path       string            `json:"path"`
	Failure    *failure          `json:"failure"`
	IDs        []string          `json:"ids"`
	Compaction string            `json:"compaction"`
	Leaf       string            `json:"leaf"`
	Messages   []json.RawMessage `json:"messages"`
}

// do runs the driver on req.
func (d *driver) do(t *testing.T, req driverRequest) driverResponse {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.bin)
	cmd.Dir = d.workspace
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the driver: %v\n%s", err, stderr.String())
	}
	var resp driverResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		t.Fatalf("the driver's response: %v\n%.500s", err, stdout.String())
	}
	return resp
}
