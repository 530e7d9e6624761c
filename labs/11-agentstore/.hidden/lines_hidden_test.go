package agentstore_test

import "strings"

// splitLines splits text into its lines, each with its "\n".
func splitLines(text string) []string {
	return strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
}

func joinLines(lines []string) string {
	out := strings.Join(lines, "")
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}
