package textcol_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/textcol"
)

func TestWriteAlignsByWidthOnScreen(t *testing.T) {
	red := func(s string) string { return "\x1b[31m" + s + "\x1b[0m" }
	var b strings.Builder
	require.NoError(t, textcol.Write(&b, [][]textcol.Cell{
		{textcol.Plain("NAME"), textcol.Plain("RESULT")},
		{textcol.Plain("王小明"), {Text: "FAIL", Paint: red}},
		{textcol.Plain("bob"), textcol.Plain("pass")},
	}))
	assert.Equal(t, "NAME    RESULT\n王小明  \x1b[31mFAIL\x1b[0m\nbob     pass\n", b.String(),
		"a wide rune counts two columns, colour codes none, and the last cell is not padded")
}

func ExampleWrite() {
	_ = textcol.Write(os.Stdout, [][]textcol.Cell{
		{textcol.Plain("EXERCISE"), textcol.Plain("PASSED")},
		{textcol.Plain("10.1"), textcol.Plain("12/12")},
	})
	// Output:
	// EXERCISE  PASSED
	// 10.1      12/12
}
