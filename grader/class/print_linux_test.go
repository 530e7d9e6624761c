//go:build linux

package class

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledongthuc/pdf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// printDirEnv names a directory to keep the printed PDF and the page in,
// for a person to look at them.
const printDirEnv = "COURSE_PRINT_DIR"

// printWidth is the width of a US Letter page less the page's margins
// (12 mm each side), in CSS pixels: what the print stylesheet lays out in.
const printWidth = 725

// Pages the big class may print on: its details printed in full need more
// than the tables alone (about 7 pages); a page per student, or a page
// per table row, needs many more.
const minPrintPages, maxPrintPages = 10, 24

// printProbe measures the page laid out by its print stylesheet in a
// window as wide as a printed page, and writes what is wrong into
// <pre id="probe"> as JSON: the test's only script, in its own copy.
const printProbe = `<script>
(function () {
  var problems = [];
  var vw = document.documentElement.clientWidth;
  var main = document.querySelector("main").getBoundingClientRect();
  if (document.documentElement.scrollWidth > vw) {
    problems.push("the page is " + document.documentElement.scrollWidth + "px wide in a window of " + vw + "px");
  }
  var tables = document.querySelectorAll("table");
  tables.forEach(function (t, i) {
    var name = t.id || (t.className + " table " + i);
    if (t.getBoundingClientRect().right > vw + 0.5) {
      problems.push(name + ": its right edge is at " + t.getBoundingClientRect().right + "px, past the page's " + vw + "px");
    }
    t.querySelectorAll("tr").forEach(function (tr) {
      var last = tr.lastElementChild;
      var cs = getComputedStyle(last);
      if (parseFloat(cs.borderRightWidth) < 0.5 || cs.borderRightStyle === "none") {
        problems.push(name + ": the last cell of a row has no right border");
      }
    });
  });
  var bars = document.querySelectorAll("#pass-rates li");
  bars.forEach(function (li) {
    var label = li.querySelector(".label"), track = li.querySelector(".track");
    if (label.getBoundingClientRect().right > track.getBoundingClientRect().left + 0.5) {
      problems.push("the label " + JSON.stringify(label.textContent) + " runs into its bar's track");
    }
    if (label.scrollWidth > label.clientWidth + 1) {
      problems.push("the label " + JSON.stringify(label.textContent) + " overflows its column");
    }
  });
  [["pass-rates", document.getElementById("pass-rates")], ["histogram", document.getElementById("histogram")]].forEach(function (c) {
    if (c[1] && c[1].getBoundingClientRect().width < 0.9 * main.width) {
      problems.push("the chart " + c[0] + " is " + c[1].getBoundingClientRect().width + "px wide of the page's " + main.width + "px");
    }
  });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({width: vw, tables: tables.length, bars: bars.length, problems: problems});
  document.body.appendChild(out);
  document.currentScript.remove(); // its text is no HTML a parser takes
})();
</script>
`

// probeResult is what printProbe found.
type probeResult struct {
	Width, Tables, Bars int
	Problems            []string
}

// TestWriteHTML_PrintsInChromium prints the page of a class of 41 to PDF
// in headless Chromium and reads the PDF back: how many pages, the run's
// header on the first, every student's details in full (folded on
// screen), and no heading left alone at the foot of a page. A copy of the
// page laid out by its print stylesheet at a page's width is measured in
// the browser: every table within the page and with its right border, the
// charts as wide as the page, the exercises' labels within their column.
func TestWriteHTML_PrintsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: printing the page in headless Chromium takes 10 to 30 seconds")
	}
	bin := chromium(t)
	dir := t.TempDir()
	if keep := os.Getenv(printDirEnv); keep != "" {
		dir = keep
	}
	s := bigSummary(t)
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, s, Options{}))
	pagePath, probePath, pdfPath := filepath.Join(dir, "report.html"), filepath.Join(dir, "probe.html"), filepath.Join(dir, "report.pdf")
	require.NoError(t, os.WriteFile(pagePath, page.Bytes(), 0o644))
	probe := strings.Replace(page.String(), "@media print {", "@media all {", 1)
	require.NotEqual(t, page.String(), probe, "the page has no print stylesheet to lay its copy out with")
	probe = strings.Replace(probe, "</body>", printProbe+"</body>", 1)
	require.NoError(t, os.WriteFile(probePath, []byte(probe), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var printed, measured run
	wg.Add(2)
	go func() {
		defer wg.Done()
		printed = runChromium(ctx, bin, filepath.Join(dir, "print-home"), "--print-to-pdf="+pdfPath, "--no-pdf-header-footer", "file://"+pagePath)
	}()
	go func() {
		defer wg.Done()
		measured = runChromium(ctx, bin, filepath.Join(dir, "probe-home"), "--dump-dom", fmt.Sprintf("--window-size=%d,2000", printWidth), "file://"+probePath)
	}()
	wg.Wait()
	require.NoError(t, printed.err, "chromium --print-to-pdf: %s", tail(printed.stderr))
	require.NoError(t, measured.err, "chromium --dump-dom of the print layout: %s", tail(measured.stderr))

	doc := parseDOM(t, bytes.NewReader(measured.stdout), false)
	out := doc.ID("probe")
	require.NotNil(t, out, "the probe wrote nothing: did chromium run its script? The DOM begins: %.300s", measured.stdout)
	var found probeResult
	require.NoError(t, json.Unmarshal([]byte(out.Text()), &found), "the probe's JSON: %s", out.Text())
	assert.Equal(t, printWidth, found.Width, "the probe's window width")
	assert.Equal(t, len(parseDOM(t, bytes.NewReader(page.Bytes()), true).Tag("table")), found.Tables, "the probe measured every table")
	assert.Equal(t, len(s.Exercises), found.Bars, "the probe measured every bar of the pass rates")
	assert.Empty(t, found.Problems, "the page laid out for print, %dpx wide", printWidth)

	pages := readPDF(t, pdfPath)
	t.Logf("%d students print on %d pages", len(s.Students), len(pages))
	assert.GreaterOrEqual(t, len(pages), minPrintPages, "the printed class: too few pages for every student's details")
	assert.LessOrEqual(t, len(pages), maxPrintPages, "the printed class: too many pages")
	assert.Contains(t, squeeze(strings.Join(pages[0], "")), squeeze("Graded2026-12-02 09:30 – 09:40 UTC"), "the run's header is printed on page 1")
	assert.Contains(t, squeeze(strings.Join(pages[0], "")), squeeze("Flags--sandbox strict --timeout 30s"), "the flags are printed as text")
	all := squeeze(strings.Join(slices.Concat(pages...), ""))
	for i := range bigClassSize {
		if i%8 == 1 || i%8 == 2 {
			marker := fmt.Sprintf("ofstudent%dwalksthewrongway", i)
			assert.Contains(t, all, marker, "the printout holds the failure message of student %d: its details are printed", i)
		}
	}
	headings := []string{"Overview", "Students", "Scores", "Exercises", "Failed tests", "Rules most often broken", "Time",
		"Rules and hints", "7.1 First", "7.2 Second", "Each student"}
	for _, st := range s.Students {
		headings = append(headings, visible(st.Name)+" "+studentRowOf(st).Score)
	}
	for _, head := range parseDOM(t, bytes.NewReader(page.Bytes()), true).Tag("thead") {
		headings = append(headings, head.Text()) // a table's header row without a row under it
	}
	for n, rows := range pages[:len(pages)-1] {
		last := rows[len(rows)-1]
		for _, h := range headings {
			assert.NotEqual(t, squeeze(h), squeeze(last), "page %d ends with the heading %q, alone: its section starts on page %d", n+1, h, n+2)
		}
	}
}

// readPDF reads the text of each page of a PDF, its lines top to bottom.
func readPDF(t *testing.T, path string) [][]string {
	t.Helper()
	f, r, err := pdf.Open(path)
	require.NoError(t, err, "reading the PDF chromium printed")
	defer f.Close()
	var pages [][]string
	for n := 1; n <= r.NumPage(); n++ {
		rows, err := r.Page(n).GetTextByRow()
		require.NoError(t, err, "the text of page %d", n)
		slices.SortFunc(rows, func(a, b *pdf.Row) int { return int(a.Position - b.Position) })
		var lines []string
		for _, row := range rows {
			var b strings.Builder
			for _, w := range row.Content {
				b.WriteString(w.S)
			}
			lines = append(lines, ligatures.Replace(b.String()))
		}
		require.NotEmpty(t, lines, "page %d of the PDF has no text", n)
		pages = append(pages, lines)
	}
	return pages
}

// ligatures spells out the ligatures a PDF's fonts draw.
var ligatures = strings.NewReplacer("ﬁ", "fi", "ﬂ", "fl", "ﬀ", "ff", "ﬃ", "ffi", "ﬄ", "ffl")

// squeeze drops white space: a PDF's text breaks lines where the page did.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}
