//go:build unix

package lab

import "syscall"

// Flags that make opening a submission's file safe: no final link
// followed, no wait on a FIFO that no one writes.
const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonBlock = syscall.O_NONBLOCK
)
