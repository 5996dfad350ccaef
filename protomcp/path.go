package protomcp

import (
	"strconv"

	"github.com/ferry-mcp/ferry/schema"
)

// path is the location of a value in a tool's arguments, in the form the
// root's schema errors use ([schema.Error.Path]): items[2].sku, with a
// name that is not a plain identifier written as ["a b"]. The document
// itself is "".
type path string

// field returns p followed by the property name.
func (p path) field(name string) path { return path(schema.JoinPath(string(p), name)) }

// index returns p followed by the array index i.
func (p path) index(i int) path { return p + path("["+strconv.Itoa(i)+"]") }

// String returns the path.
func (p path) String() string { return string(p) }
