// Command helper runs the static check of one file in a process of its own,
// so that the grader can bound its time and memory: it reads a JSON
// staticcheck.Request on stdin and writes a JSON staticcheck.Result on
// stdout. Its exit status is 0 whenever it wrote a result.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/coursekit/course/grader/internal/staticcheck"
)

// memoryLimit is the address space the check may use; the grader reports a
// file that needs more as one it could not check.
const memoryLimit = 2 << 30

func main() {
	limitMemory(memoryLimit)
	debug.SetMemoryLimit(memoryLimit / 2)
	in, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, "staticcheck: reading the request:", err)
		os.Exit(2)
	}
	var req staticcheck.Request
	if err := json.Unmarshal(in, &req); err != nil {
		fmt.Fprintln(os.Stderr, "staticcheck: the request:", err)
		os.Exit(2)
	}
	res := staticcheck.Check(&req)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "staticcheck: writing the result:", err)
		os.Exit(2)
	}
}
