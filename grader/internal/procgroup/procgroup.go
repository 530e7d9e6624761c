// Package procgroup starts a command in a process group of its own and
// kills the whole group: the program and everything it started.
package procgroup
