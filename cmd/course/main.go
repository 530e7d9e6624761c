// Command course is the course kit's tool: practice workspaces, grading and
// self-checks. All the work is in package cli; main only wires it to the process.
package main

import (
	"fmt"

	"github.com/coursekit/course/labs"
	"github.com/coursekit/course/solutions"
)

func main() {
	fmt.Println(labs.FS, solutions.FS)
}
