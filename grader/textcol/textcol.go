// Package textcol writes aligned columns of text for terminals. Columns are
// padded by each text's width on screen (wide runes count two), so colour
// codes added by a cell's paint function do not misalign them, as they do
// with text/tabwriter.
package textcol

import (
	"io"
	"strings"

	"github.com/rivo/uniseg"
)

// Cell is a table cell: its text and how to paint it (nil: as it is).
type Cell struct {
	Text  string
	Paint func(string) string
}

// Plain is a cell of text without paint.
func Plain(text string) Cell { return Cell{Text: text} }

// Write writes rows as aligned columns two spaces apart; the last cell of
// a row is not padded.
func Write(w io.Writer, rows [][]Cell) error {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(c.Text))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			text := c.Text
			if c.Paint != nil {
				text = c.Paint(text)
			}
			b.WriteString(text)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-uniseg.StringWidth(c.Text)+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
