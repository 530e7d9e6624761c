// Package goenv is the environment the grader runs the go command in: this
// machine's, with the module proxy, workspaces and GOFLAGS of the user
// taken away and the local toolchain forced, so that a build can neither
// download anything nor be changed by the user's settings, and with cgo
// only where the race detector needs it.
package goenv

import (
	"os"
	"strings"
)

// Env is the toolchain's environment; race turns cgo on, which the race
// detector's runtime needs (the static check still forbids import "C").
func Env(race bool) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CGO_ENABLED", "GOWORK", "GOOS", "GOARCH", "GOENV":
			continue
		}
		env = append(env, kv)
	}
	cgo := "CGO_ENABLED=0"
	if race {
		cgo = "CGO_ENABLED=1"
	}
	return append(env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", cgo, "GOWORK=off", "GOENV=off")
}
