package class

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// node is an element of a parsed page: enough of a DOM to check a page's
// structure without a dependency. The page WriteHTML makes is well-formed
// XML, so a strict parse also proves every tag is closed and every text
// escaped; a browser's serialisation (--dump-dom) is HTML, read leniently.
type node struct {
	Name     string // local name, lower case: "svg", "rect"
	Attr     map[string]string
	Children []*node
	Parent   *node
	own      strings.Builder // text directly inside
	parts    []any           // text (string) and children (*node) in order
}

// parseDOM parses r; strict parses XML, otherwise HTML as a browser
// serialises it.
func parseDOM(t *testing.T, r io.Reader, strict bool) *node {
	t.Helper()
	d := xml.NewDecoder(r)
	if !strict {
		d.Strict = false
		d.AutoClose = xml.HTMLAutoClose
		d.Entity = xml.HTMLEntity
	}
	root := &node{Name: "#document", Attr: map[string]string{}}
	cur := root
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "parsing the page (strict=%v)", strict)
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{Name: strings.ToLower(tok.Name.Local), Attr: map[string]string{}, Parent: cur}
			for _, a := range tok.Attr {
				name := a.Name.Local
				if a.Name.Space != "" && a.Name.Space != "xmlns" && !strings.Contains(a.Name.Space, "/") {
					name = a.Name.Space + ":" + name
				}
				n.Attr[strings.ToLower(name)] = a.Value
			}
			cur.Children = append(cur.Children, n)
			cur.parts = append(cur.parts, n)
			cur = n
		case xml.EndElement:
			if cur.Parent != nil {
				cur = cur.Parent
			}
		case xml.CharData:
			cur.own.Write(tok)
			cur.parts = append(cur.parts, string(tok))
		}
	}
	return root
}

// Text is the text of n and everything inside it, spaces collapsed.
func (n *node) Text() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(n *node) {
		for _, p := range n.parts {
			switch p := p.(type) {
			case string:
				b.WriteString(p)
			case *node:
				walk(p)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// All returns every element below n (n left out) for which keep is true,
// in document order.
func (n *node) All(keep func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(n *node) {
		for _, c := range n.Children {
			if keep(c) {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// Tag returns every element named name below n.
func (n *node) Tag(name string) []*node {
	return n.All(func(c *node) bool { return c.Name == name })
}

// ID returns the element with id, or nil.
func (n *node) ID(id string) *node {
	found := n.All(func(c *node) bool { return c.Attr["id"] == id })
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// HasClass reports whether n's class attribute holds class.
func (n *node) HasClass(class string) bool {
	for _, c := range strings.Fields(n.Attr["class"]) {
		if c == class {
			return true
		}
	}
	return false
}

// Rows returns the rows of a table's body.
func (n *node) Rows() []*node {
	var out []*node
	for _, body := range n.Tag("tbody") {
		for _, tr := range body.Children {
			if tr.Name == "tr" {
				out = append(out, tr)
			}
		}
	}
	return out
}

// Cells returns a row's th and td elements.
func (n *node) Cells() []*node {
	var out []*node
	for _, c := range n.Children {
		if c.Name == "th" || c.Name == "td" {
			out = append(out, c)
		}
	}
	return out
}
