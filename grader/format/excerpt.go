package format

import (
	"strings"

	"github.com/coursekit/course/grader/safetext"
)

// FailureExcerpt keeps the lines of a test's output a person needs: the
// testify block, without the === RUN / --- FAIL framing, at most 30 lines,
// control characters made visible.
func FailureExcerpt(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		framing := strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") ||
			strings.HasPrefix(t, "--- PASS") || strings.HasPrefix(t, "--- SKIP") // not testify's "--- Expected"
		if framing || t == "" {
			continue
		}
		keep = append(keep, safetext.Printable(line))
		if len(keep) == 30 {
			keep = append(keep, "…")
			break
		}
	}
	if len(keep) == 0 {
		return "(no output: the test printed nothing before it ended or was stopped)\n"
	}
	return strings.Join(keep, "\n") + "\n"
}

// CompilerLine picks the first line of a build's output that says what is
// wrong (not the "# package" header).
func CompilerLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return "see the build output"
}
