//go:build linux

package class

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coursekit/course/grader/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireBrowserEnv makes a missing browser a failure instead of a skip;
// CI sets it after installing chromium (.ci/run).
const requireBrowserEnv = "COURSE_REQUIRE_BROWSER"

// chromiumTimeout bounds each run of the browser.
const chromiumTimeout = 2 * time.Minute

// Window of the screenshot, in CSS pixels at a device scale factor of 1.
const shotWidth, shotHeight = 1200, 1600

// chromium returns the path of a Chromium browser, or skips the test
// saying why (fails it when COURSE_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH (Debian: apt-get install chromium), so the page is not rendered in a real browser"
	if os.Getenv(requireBrowserEnv) == "1" {
		t.Fatalf("%s; %s=1 says this machine must have one", msg, requireBrowserEnv)
	}
	t.Skip(msg)
	return ""
}

// TestWriteHTML_RendersInChromium renders the page of a class in headless
// Chromium: a screenshot that must be a PNG of the window's size showing
// the charts, and the DOM the browser built, which must hold the histogram,
// the exercise table and the student rows, a hostile name as text.
func TestWriteHTML_RendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: rendering the page in headless Chromium takes 10 to 30 seconds")
	}
	bin := chromium(t)
	dir := t.TempDir()

	reports, notGraded := class()
	reports = append(reports, reportOf("<script>alert(1)</script>", 4, fail71(report.StatusFail), pass72()))
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	pagePath := filepath.Join(dir, "report.html")
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, s, Options{}))
	require.NoError(t, os.WriteFile(pagePath, page.Bytes(), 0o644))
	pageURL := "file://" + pagePath
	shotPath := filepath.Join(dir, "shot.png")

	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	start := time.Now()
	// The two runs share nothing (a profile and a home each), so they run
	// at once.
	var wg sync.WaitGroup
	var shotOut, domOut run
	wg.Add(2)
	go func() {
		defer wg.Done()
		shotOut = runChromium(ctx, bin, filepath.Join(dir, "shot-home"),
			"--screenshot="+shotPath, fmt.Sprintf("--window-size=%d,%d", shotWidth, shotHeight), pageURL)
	}()
	go func() {
		defer wg.Done()
		domOut = runChromium(ctx, bin, filepath.Join(dir, "dom-home"), "--dump-dom", pageURL)
	}()
	wg.Wait()
	t.Logf("chromium took %s for the screenshot and the DOM (run at once)", time.Since(start).Round(time.Millisecond))
	for _, r := range []run{shotOut, domOut} {
		if r.strays > 0 {
			t.Logf("chromium %s left %d processes outside its process group (its crash handler); they were killed", r.what, r.strays)
		}
	}
	require.NoError(t, shotOut.err, "chromium --screenshot %s: %s", pageURL, tail(shotOut.stderr))
	require.NoError(t, domOut.err, "chromium --dump-dom %s: %s", pageURL, tail(domOut.stderr))

	// The screenshot: a PNG of the window's size, not blank, the charts
	// drawn in their colour.
	f, err := os.Open(shotPath)
	require.NoError(t, err, "chromium --screenshot=%s wrote no file; its stderr: %s", shotPath, tail(shotOut.stderr))
	img, err := png.Decode(f)
	f.Close()
	require.NoError(t, err, "decoding chromium's screenshot as PNG")
	assert.Equal(t, shotWidth, img.Bounds().Dx(), "the screenshot's width, for --window-size=%d,%d", shotWidth, shotHeight)
	assert.Equal(t, shotHeight, img.Bounds().Dy(), "the screenshot's height, for --window-size=%d,%d", shotWidth, shotHeight)
	colours := map[uint32]int{}
	white, barBlue := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			colours[r<<16|g<<8|b]++
			switch {
			case r == 0xff && g == 0xff && b == 0xff:
				white++
			case r == 0x2b && g == 0x6c && b == 0xb0: // svg .bar
				barBlue++
			}
		}
	}
	total := img.Bounds().Dx() * img.Bounds().Dy()
	assert.Greater(t, len(colours), 20, "the screenshot has %d colours: a blank or failed render", len(colours))
	assert.Less(t, white, total*98/100, "the screenshot is %d%% white: nothing was drawn", 100*white/total)
	assert.Greater(t, barBlue, 2000, "the screenshot has %d pixels of the charts' bar colour #2b6cb0: the SVG charts were not drawn", barBlue)

	// The DOM the browser built from the page.
	doc := parseDOM(t, bytes.NewReader(domOut.stdout), false)
	hist := doc.ID("histogram")
	require.NotNil(t, hist, "chromium's DOM has no #histogram; it begins: %.300s", domOut.stdout)
	assert.Equal(t, "svg", hist.Name)
	assert.Len(t, hist.All(func(n *node) bool { return n.Name == "rect" && n.HasClass("bar") }), Bins, "the histogram's bars in chromium's DOM")
	require.NotNil(t, doc.ID("pass-rates"), "chromium's DOM has no #pass-rates chart")
	exTable := doc.ID("exercise-table")
	require.NotNil(t, exTable, "chromium's DOM has no exercise table")
	assert.Len(t, exTable.Rows(), 2, "the exercise table's rows in chromium's DOM")
	students := doc.ID("student-table")
	require.NotNil(t, students, "chromium's DOM has no student table")
	var names []string
	for _, tr := range students.Rows() {
		names = append(names, tr.Cells()[0].Text())
	}
	assert.Equal(t, []string{"<script>alert(1)</script>", "alice", "bob", "carol", "dave"}, names,
		"the student rows in chromium's DOM, the hostile name as text")
	assert.Empty(t, doc.Tag("script"), "chromium's DOM has a <script> element: a name was not escaped")
	assert.Equal(t, "Lab 7: class report", doc.Tag("title")[0].Text())
}

// run is what one run of chromium did.
type run struct {
	what           string
	stdout, stderr []byte
	err            error
	strays         int // processes that outlived the group and were killed
}

// runChromium runs the browser headless with args, in a process group of
// its own and with a private profile and home under home, bounded by ctx.
// Whatever it started is killed before it returns: the whole process
// group, and the crash handler, which leaves the group but names the home
// directory on its command line.
func runChromium(ctx context.Context, bin, home string, args ...string) run {
	r := run{what: args[0]}
	if err := os.MkdirAll(home, 0o700); err != nil {
		r.err = err
		return r
	}
	full := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir=" + filepath.Join(home, "profile"),
	}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "DBUS_SESSION_BUS_ADDRESS=disabled:")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a child holding the pipes must not keep Wait waiting
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		// The browser's helpers (zygotes, renderers) stay in its group.
		if kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			err = errors.Join(err, fmt.Errorf("killing chromium's process group: %w", kerr))
		}
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("chromium did not finish in time (each run has %s): %w", chromiumTimeout, ctx.Err())
	}
	r.strays = killStrays(home)
	r.stdout, r.stderr, r.err = stdout.Bytes(), stderr.Bytes(), err
	return r
}

// killStrays kills every process whose command line names dir (only a
// process this test started can: dir is its own temporary directory), and
// waits until they are gone. It returns how many it found.
func killStrays(dir string) int {
	found := 0
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesNaming(dir)
		if len(pids) == 0 || time.Now().After(deadline) {
			return found
		}
		found = max(found, len(pids))
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond) // polling /proc for the kill to take effect; nothing to wait on
	}
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(s string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		// A zombie has an empty cmdline, so this one still runs.
		out = append(out, pid)
	}
	return out
}

// tail is the end of a browser's stderr, for a failure message.
func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	if s == "" {
		return "(nothing on stderr)"
	}
	return s
}
