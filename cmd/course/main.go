// Command course is the course kit's tool: practice workspaces, grading and
// self-checks. All the work is in package cli; main only wires it to the process.
package main

import (
	"os"

	"github.com/coursekit/course/cmd/course/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
