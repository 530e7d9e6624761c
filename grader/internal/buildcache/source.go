package buildcache

import "embed"

// Source is this package and its helper program (helper/), as files of a
// module of their own: the grader writes them out with a go.mod and builds
// the helper once per Go toolchain.
//
//go:embed buildcache.go source.go helper/*.go
var Source embed.FS

// Dir is where the Source files sit inside that module.
const Dir = "grader/internal/buildcache"
