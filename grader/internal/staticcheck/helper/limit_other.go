//go:build !unix

package main

// limitMemory does nothing where there are no rlimits; debug.SetMemoryLimit
// and the grader's deadline still bound the check.
func limitMemory(uint64) {}
