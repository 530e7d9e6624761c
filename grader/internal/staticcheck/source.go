package staticcheck

import "embed"

// Source is this package and its helper program (helper/), as files of a
// module of their own: the grader writes them out with a go.mod and builds
// the helper once per Go toolchain.
//
//go:embed staticcheck.go rules.go sizerules.go staticdata.go sizes.go generics.go source.go helper/main.go helper/limit_unix.go helper/limit_other.go
var Source embed.FS

// ModulePath is the module the Source files belong to, named in the
// helper's go.mod.
const ModulePath = "github.com/coursekit/course"

// Dir is where the Source files sit inside that module.
const Dir = "grader/internal/staticcheck"
