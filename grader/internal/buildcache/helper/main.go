// Command helper is the grader's GOCACHEPROG: it serves the go command's
// build cache from a directory (buildcache.Store), read-only unless -write.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/coursekit/course/grader/internal/buildcache"
)

func main() {
	dir := flag.String("dir", "", "the cache directory")
	write := flag.Bool("write", false, "let the go command put outputs into it")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "buildcache: -dir is required")
		os.Exit(2)
	}
	s := &buildcache.Store{Dir: *dir, Writable: *write}
	if err := s.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
