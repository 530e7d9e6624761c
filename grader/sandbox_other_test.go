//go:build !linux

package grader

import "testing"

// Without /proc and the sandbox's user ids there is nothing to look at.
func assertNoProcessLeft(*testing.T, string, ...string) {}

func assertNothingWritten(*testing.T) {}
