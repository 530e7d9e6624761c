package safetext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMarkdownEscapesMarkupOnce(t *testing.T) {
	assert.Equal(t, `import "os" isn't \*allowed\* &lt;b&gt; \[x\](y) a &amp; b`, Markdown("import \"os\" isn't *allowed* <b> [x](y) a & b"),
		"quotes stay quotes: an entity with an escaped # (&\\#34;) would show as itself")
	assert.Equal(t, `a b \\x1b`, Markdown("a\n  b \x1b"), "a control character made visible, its backslash escaped")
}

func TestCodeSpanAndBlockOutlastTheBackticksInside(t *testing.T) {
	assert.Equal(t, "`a`", CodeSpan("a"))
	assert.Equal(t, "``a`b``", CodeSpan("a`b"))
	assert.Equal(t, "`` `a ``", CodeSpan("`a"), "a backtick at an end is padded with a space")
	assert.Equal(t, "`a\\x0ab`", CodeSpan("a\nb"), "one line")
	assert.Equal(t, "```text\nx\n```\n", CodeBlock("x\n", "text"))
	assert.Equal(t, "`````\n````\n\\x1b[2J\n`````\n", CodeBlock("````\n\x1b[2J", ""), "a fence longer than any run inside")
}
