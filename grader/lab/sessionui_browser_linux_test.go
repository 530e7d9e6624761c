//go:build linux

package lab_test

// The session page in a real browser: headless Chromium, driven through
// its DevTools protocol over a pipe (--remote-debugging-pipe: no port, no
// network), loads the page of a session the agent wrote with the
// reference solution, a mouse click on an entry of another branch switches
// the leaf, and the page then shows that branch's context.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

// requireBrowser makes a missing browser a failure instead of a skip; CI
// sets it after installing chromium (.ci/run).
const requireBrowser = "COURSE_REQUIRE_BROWSER"

// screenshotDir, when set, is where the test also keeps its screenshots,
// to look at.
const screenshotDir = "COURSE_SCREENSHOT_DIR"

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH (Debian: apt-get install chromium), so the session page is not clicked in a real browser"
	if os.Getenv(requireBrowser) == "1" {
		t.Fatalf("%s; %s=1 says this machine must have one", msg, requireBrowser)
	}
	t.Skip(msg)
	return ""
}

func TestSessionUIClickSwitchesTheLeafInChromium(t *testing.T) {
	eachAgentLab(t, func(t *testing.T, l *lab.Lab) {
		browser := findChromium(t)
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		dir := filepath.Join(t.TempDir(), "solution")
		require.NoError(t, l.WriteGradingDir(dir, sol, false))
		bin := buildCommands(t, dir)

		// A session with a compaction, then a second branch from the first answer.
		agent(t, dir, bin, "-budget", "300")
		firstAnswer, otherLeaf := sessionIDs(t, filepath.Join(dir, ".teaching-agent", "session.jsonl"))
		agent(t, dir, bin, "-from", firstAnswer, "read go.mod")

		base := startSessionUI(t, dir, bin)
		before := apiState(t, base)
		require.NotEqual(t, otherLeaf, before.Leaf, "the page opens on the second run's last entry")

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		b := startBrowser(t, ctx, browser)
		page := b.open(t, base+"/")
		shown := page.dom(t)
		assert.Equal(t, before.Leaf, shown.Leaf, "the page's leaf")
		assert.Equal(t, before.Entries, shown.Rows, "a row for every entry")
		assert.Equal(t, len(before.Context), len(shown.Context), "the context's messages")
		page.screenshot(t, "sessionui-before-click.png")

		page.click(t, "#e-"+otherLeaf+" button")
		after := page.dom(t)
		assert.Equal(t, otherLeaf, after.Leaf, "the clicked entry is the leaf")
		assert.Equal(t, otherLeaf, apiState(t, base).Leaf, "the server's store switched")
		assert.NotEqual(t, shown.Context, after.Context, "the context follows the leaf")
		assert.Equal(t, len(apiState(t, base).Context), len(after.Context))
		assert.Contains(t, strings.Join(after.Context, "\n"), "I wrote the note", "the first run's branch ends with its note")
		img := page.screenshot(t, "sessionui-after-click.png")
		assertDrawn(t, img)
	})
}

// buildCommands builds the lab's agent and page once, offline.
func buildCommands(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	for _, c := range agentCommands {
		r := runGo(t, dir, "build", "-o", filepath.Join(bin, filepath.Base(c)), c)
		require.Equal(t, 0, r.code, "go build %s\n%s", c, r.tail())
	}
	return bin
}

func agent(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	code, out := offline.Run(t, time.Minute, dir, filepath.Join(bin, "agent"), args...)
	require.Equal(t, 0, code, "agent %v\n%s", args, out)
}

// sessionIDs returns the first answer of the session (the assistant's first
// message that calls no tool) and the last entry of the file.
func sessionIDs(t *testing.T, path string) (first, last string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Message struct {
				Role       string `json:"role"`
				StopReason string `json:"stopReason"`
			} `json:"message"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		if first == "" && e.Message.Role == "assistant" && e.Message.StopReason == "stop" {
			first = e.ID
		}
		if e.Type != "session" {
			last = e.ID
		}
	}
	require.NotEmpty(t, first)
	return first, last
}

// startSessionUI starts the page on a free port and returns its address.
func startSessionUI(t *testing.T, dir, bin string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "sessionui"), "-addr", "127.0.0.1:0")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "http://"); ok {
			addr, _, _ := strings.Cut(rest, " ")
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return "http://" + strings.TrimSuffix(addr, "/")
		}
	}
	t.Fatalf("sessionui printed no address: %s", stderr.String())
	return ""
}

// uiState is the part of GET /api/state the test compares.
type uiState struct {
	Leaf    string            `json:"leaf"`
	Entries int               `json:"entries"`
	Context []json.RawMessage `json:"context"`
}

func apiState(t *testing.T, base string) uiState {
	t.Helper()
	resp, err := http.Get(base + "/api/state")
	require.NoError(t, err)
	defer resp.Body.Close()
	var s uiState
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
	return s
}

// assertDrawn checks a screenshot shows the page: not blank, the leaf's
// frame in its colour.
func assertDrawn(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	colours, leaf := map[uint32]bool{}, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			colours[r<<16|g<<8|b] = true
			if r == 0xd9 && g == 0x77 && b == 0x06 { // the leaf's frame, --leaf
				leaf++
			}
		}
	}
	assert.Greater(t, len(colours), 50, "the screenshot has %d colours: a blank or failed render", len(colours))
	assert.Greater(t, leaf, 100, "the screenshot has %d pixels of the leaf's colour: the leaf is not framed in view", leaf)
}

// ---- a DevTools protocol client over --remote-debugging-pipe ------------------

// browser is a headless Chromium and the pipe to its DevTools.
type browser struct {
	ctx    context.Context
	w      io.Writer
	msgs   chan cdpMessage
	events []cdpMessage
	next   int
}

type cdpMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Result    json.RawMessage `json:"result"`
	Params    json.RawMessage `json:"params"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts Chromium with a profile and a home of its own, in a
// process group of its own, all of it killed when t ends.
func startBrowser(t *testing.T, ctx context.Context, bin string) *browser {
	t.Helper()
	home := t.TempDir()
	toBrowser, fromTest, err := os.Pipe()
	require.NoError(t, err)
	toTest, fromBrowser, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1400,1000",
		"--user-data-dir="+filepath.Join(home, "profile"), "--remote-debugging-pipe", "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "DBUS_SESSION_BUS_ADDRESS=disabled:")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3: it reads; fd 4: it writes
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	toBrowser.Close()
	fromBrowser.Close()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		fromTest.Close()
		killProcessesNaming(home)
	})
	b := &browser{ctx: ctx, w: fromTest, msgs: make(chan cdpMessage, 64)}
	go b.read(toTest)
	return b
}

// read passes every message from the browser on, until the pipe closes.
func (b *browser) read(r io.ReadCloser) {
	defer close(b.msgs)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) == nil {
			b.msgs <- m
		}
	}
}

// receive waits for the next message from the browser.
func (b *browser) receive() (cdpMessage, error) {
	select {
	case m, ok := <-b.msgs:
		if !ok {
			return m, errors.New("the browser closed its DevTools pipe")
		}
		return m, nil
	case <-b.ctx.Done():
		return cdpMessage{}, fmt.Errorf("waiting for the browser: %w", b.ctx.Err())
	}
}

// call sends a command and returns its result; events that arrive before
// it are kept for wait.
func (b *browser) call(t *testing.T, session, method string, params any) json.RawMessage {
	t.Helper()
	b.next++
	msg, err := json.Marshal(map[string]any{"id": b.next, "sessionId": session, "method": method, "params": params})
	require.NoError(t, err)
	_, err = b.w.Write(append(msg, 0))
	require.NoError(t, err, "%s", method)
	for {
		m, err := b.receive()
		require.NoError(t, err, "%s", method)
		switch {
		case m.ID == b.next && m.Error != nil:
			t.Fatalf("%s: %s", method, m.Error.Message)
		case m.ID == b.next:
			return m.Result
		case m.Method != "":
			b.events = append(b.events, m)
		}
	}
}

// wait returns once the event method has come for session.
func (b *browser) wait(t *testing.T, session, method string) {
	t.Helper()
	for i, m := range b.events {
		if m.Method == method && m.SessionID == session {
			b.events = append(b.events[:i], b.events[i+1:]...)
			return
		}
	}
	for {
		m, err := b.receive()
		require.NoError(t, err, "waiting for %s", method)
		if m.Method == method && m.SessionID == session {
			return
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// tab is one page of the browser.
type tab struct {
	b       *browser
	session string
}

// open makes a new page, attached with its own session, and loads url.
func (b *browser) open(t *testing.T, url string) *tab {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	require.NoError(t, json.Unmarshal(b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &target))
	var att struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att))
	p := &tab{b, att.SessionID}
	b.call(t, p.session, "Page.enable", map[string]any{})
	b.call(t, p.session, "Page.navigate", map[string]any{"url": url})
	b.wait(t, p.session, "Page.loadEventFired")
	return p
}

// eval evaluates a JavaScript expression in the page and decodes its value into out.
func (p *tab) eval(t *testing.T, expr string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	raw := p.b.call(t, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	require.NoError(t, json.Unmarshal(raw, &r))
	require.Nil(t, r.ExceptionDetails, "%s: %s", expr, raw)
	require.NoError(t, json.Unmarshal(r.Result.Value, out), "%s: %s", expr, raw)
}

// shownPage is what the browser's DOM shows.
type shownPage struct {
	Leaf    string   `json:"leaf"`
	Rows    int      `json:"rows"`
	Context []string `json:"context"`
}

func (p *tab) dom(t *testing.T) shownPage {
	t.Helper()
	var s shownPage
	p.eval(t, `({leaf: document.querySelector(".row.leaf")?.dataset.id ?? "", rows: document.querySelectorAll(".row").length,
		context: [...document.querySelectorAll("#context li.msg")].map(li => li.textContent.replace(/\s+/g, " ").trim())})`, &s)
	return s
}

// click scrolls the element into view and clicks its middle with the
// mouse, as a person does, then waits for the page it leads to.
func (p *tab) click(t *testing.T, selector string) {
	t.Helper()
	var at struct{ X, Y float64 }
	p.eval(t, `(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &at)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		p.b.call(t, p.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1})
	}
	p.b.wait(t, p.session, "Page.loadEventFired")
}

// screenshot takes a PNG of the page's window, and keeps it under name in
// COURSE_SCREENSHOT_DIR when that is set.
func (p *tab) screenshot(t *testing.T, name string) []byte {
	t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	require.NoError(t, json.Unmarshal(p.b.call(t, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}), &shot))
	img, err := base64.StdEncoding.DecodeString(shot.Data)
	require.NoError(t, err)
	if dir := os.Getenv(screenshotDir); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), img, 0o644))
		t.Logf("screenshot: %s", filepath.Join(dir, name))
	}
	return img
}

// killProcessesNaming kills what the browser left outside its process
// group (its crash handler): the processes whose command line names dir,
// the browser's own home, which nothing else names.
func killProcessesNaming(dir string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(dir)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
