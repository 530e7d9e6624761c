package autograder_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/release"
)

// shared holds what several tests only read, made once for the package:
// a student release of the course (made from a clean checkout of it).
var shared struct {
	once    sync.Once
	dir     string
	release string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// sharedRelease returns a student release of the course made once for all
// the tests of the package: copy it before changing anything in it.
func sharedRelease(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "course-autograder-test-*"); shared.err != nil {
			return
		}
		shared.release = filepath.Join(shared.dir, "course-student")
		_, shared.err = release.Make(courseCheckout(t), shared.release)
	})
	require.NoError(t, shared.err, "making the student release the tests share")
	return shared.release
}
