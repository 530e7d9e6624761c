// Package capped keeps the first bytes of what a program writes and counts
// the rest: a program the grader runs can print without end, and the
// grader must not hold it all.
package capped

import (
	"bytes"
	"sync"
)

// Buffer keeps the first Max bytes written to it and counts the rest. It
// is safe for concurrent use (a program's stdout and stderr).
type Buffer struct {
	Max     int
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int64
}

// Write keeps what fits and always reports all of p written, so that the
// writer never stops on an error of ours.
func (c *Buffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := min(c.Max-c.buf.Len(), len(p))
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// Bytes returns what was kept.
func (c *Buffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}

// String returns what was kept.
func (c *Buffer) String() string { return string(c.Bytes()) }

// Dropped returns how many bytes were not kept.
func (c *Buffer) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}
