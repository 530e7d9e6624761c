//go:build !linux

package selfcheck

// workDir is where the self-check grades: the grader's default here.
func workDir() string { return "" }
