package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// MaxDocumentBytes bounds what [Load] reads of a document, and of each
// file or URL its $refs name.
const MaxDocumentBytes = 64 << 20

// MaxReferencedFiles bounds how many other files or URLs the $refs of a
// document may name.
const MaxReferencedFiles = 256

// methods are the HTTP methods whose operations can become tools, in the
// order a path item lists them.
var methods = []string{"GET", "PUT", "POST", "DELETE", "HEAD", "PATCH"}

// A Document is an OpenAPI 3.0 or 3.1 document, parsed, with every $ref
// resolved: its operations are what [Document.Tools] turns into tools. It
// is safe for concurrent use once loaded.
type Document struct {
	model    *v3.Document
	ops      []*Operation
	location string // where it was read from, for messages
}

// Operation is one operation of a document: a method on a path.
type Operation struct {
	// ID is the operationId, or empty when the document gives none.
	ID string
	// Method is the HTTP method, upper case: GET, PUT, POST, DELETE,
	// HEAD or PATCH. (OPTIONS and TRACE operations are not listed.)
	Method string
	// Path is the path template, as the document writes it.
	Path string
	// Tags are the operation's tags, in order.
	Tags []string
	// Summary and Description are the operation's.
	Summary, Description string
	// Deprecated says the document marks it deprecated.
	Deprecated bool

	op   *v3.Operation
	item *v3.PathItem
}

// String names the operation as messages do: its id and route, such as
// getPet (GET /pets/{petId}).
func (o *Operation) String() string {
	if o.ID == "" {
		return o.Method + " " + o.Path
	}
	return o.ID + " (" + o.Method + " " + o.Path + ")"
}

// Load reads the document at location: a file path, or an http:// or
// https:// URL, fetched with http.DefaultClient under ctx. JSON and YAML
// are both read. A $ref may name another file beside a file document (in
// its directory or below it, never above), or another URL under a URL
// document's own directory; no other file and no other host is read.
// Everything read is bounded by [MaxDocumentBytes] and
// [MaxReferencedFiles].
func Load(ctx context.Context, location string) (*Document, error) {
	if isURL(location) {
		return loadURL(ctx, location)
	}
	abs, err := filepath.Abs(location)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	data, err := readFile(abs)
	if err != nil {
		return nil, err
	}
	cfg := newConfig()
	dir := filepath.Dir(abs)
	cfg.BasePath, cfg.SpecFilePath = dir, filepath.Base(abs)
	cfg.AllowFileReferences = true
	lfs, err := newBoundedFS(dir)
	if err != nil {
		return nil, err
	}
	cfg.LocalFS = lfs
	d, err := parse(data, location, cfg)
	if broken := lfs.errs(); broken != nil {
		return nil, fmt.Errorf("openapi: %s: %w", location, joinLines(broken))
	}
	return d, err
}

// Parse reads a document from data (JSON or YAML). Its $refs may name
// only its own parts ("#/components/schemas/Pet"): use [Load] for a
// document split into files.
func Parse(data []byte) (*Document, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("openapi: the document is larger than %d bytes", MaxDocumentBytes)
	}
	return parse(data, "the document", newConfig())
}

// newConfig is the parser's configuration: no file or remote references
// (Load allows them, bounded), no logging, and no circular reference
// check, since the conversion to tools cuts recursion itself.
func newConfig() *datamodel.DocumentConfiguration {
	cfg := datamodel.NewDocumentConfiguration()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.SkipCircularReferenceCheck = true
	cfg.SkipJSONConversion = true
	return cfg
}

// parse builds the model of data and lists its operations.
func parse(data []byte, location string, cfg *datamodel.DocumentConfiguration) (*Document, error) {
	doc, err := libopenapi.NewDocumentWithConfiguration(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("openapi: %s is not an OpenAPI document: %w", location, err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.0") && !strings.HasPrefix(v, "3.1") {
		return nil, fmt.Errorf("openapi: %s is OpenAPI or Swagger %q: only 3.0 and 3.1 are read (convert a Swagger 2.0 document first)", location, v)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi: %s: %w", location, joinLines(err))
	}
	if m == nil {
		return nil, fmt.Errorf("openapi: %s has no model", location)
	}
	d := &Document{model: &m.Model, location: location}
	d.list()
	return d, nil
}

// list fills d.ops in document order.
func (d *Document) list() {
	if d.model.Paths == nil || d.model.Paths.PathItems == nil {
		return
	}
	for path, item := range d.model.Paths.PathItems.FromOldest() {
		for _, m := range methods {
			op := operationOf(item, m)
			if op == nil {
				continue
			}
			o := &Operation{ID: op.OperationId, Method: m, Path: path, Tags: op.Tags,
				Summary: op.Summary, Description: op.Description, op: op, item: item}
			o.Deprecated = op.Deprecated != nil && *op.Deprecated
			d.ops = append(d.ops, o)
		}
	}
}

// operationOf returns item's operation of method m, or nil.
func operationOf(item *v3.PathItem, m string) *v3.Operation {
	switch m {
	case "GET":
		return item.Get
	case "PUT":
		return item.Put
	case "POST":
		return item.Post
	case "DELETE":
		return item.Delete
	case "HEAD":
		return item.Head
	case "PATCH":
		return item.Patch
	}
	return nil
}

// Operations returns the document's operations, in the order it lists
// them. The slice is the caller's; the operations are shared.
func (d *Document) Operations() []*Operation {
	return append([]*Operation(nil), d.ops...)
}

// Version returns the document's openapi version, such as "3.1.0".
func (d *Document) Version() string { return d.model.Version }

// Title returns the title of the document's info, or "".
func (d *Document) Title() string {
	if d.model.Info == nil {
		return ""
	}
	return d.model.Info.Title
}

// ServerPath returns the path of the document's first server URL, such
// as "/api" for "https://shop.example/api" or "/api": what [Bind] puts
// before every path by default. It is "" when the document names no
// server, or one at its root.
func (d *Document) ServerPath() string {
	if len(d.model.Servers) == 0 {
		return ""
	}
	u, err := url.Parse(d.model.Servers[0].URL)
	if err != nil || strings.Contains(u.Path, "{") {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// isURL reports whether location is an http or https URL.
func isURL(location string) bool {
	return strings.HasPrefix(location, "http://") || strings.HasPrefix(location, "https://")
}

// readFile reads a file of at most MaxDocumentBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path) //nolint:gosec // the path is the operator's (a flag, the program), not a model's
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	defer f.Close()
	return readBounded(f, path)
}

// readBounded reads r, failing past MaxDocumentBytes.
func readBounded(r io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("openapi: reading %s: %w", what, err)
	}
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("openapi: %s is larger than %d bytes", what, MaxDocumentBytes)
	}
	return data, nil
}

// loadURL fetches a document and parses it, its relative $refs fetched
// from under its own directory.
func loadURL(ctx context.Context, location string) (*Document, error) {
	u, err := url.Parse(location)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("openapi: %q is not a URL", location)
	}
	data, err := fetch(ctx, location)
	if err != nil {
		return nil, err
	}
	base := *u
	base.Path = base.Path[:strings.LastIndexByte(base.Path, '/')+1]
	base.RawQuery, base.Fragment = "", ""
	cfg := newConfig()
	cfg.AllowRemoteReferences = true
	cfg.BaseURL = &base
	cfg.RemoteURLHandler = remoteHandler(ctx, base.String())
	return parse(data, location, cfg)
}

// fetch GETs location, bounded by MaxDocumentBytes.
func fetch(ctx context.Context, location string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, location, nil)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/yaml, */*;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("openapi: fetching the document: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("openapi: fetching %s: %s", location, resp.Status)
	}
	return readBounded(resp.Body, location)
}

// joinLines writes a joined error on one line per error, without
// repeating the same line.
func joinLines(err error) error {
	var lines []string
	seen := map[string]bool{}
	for line := range strings.Lines(err.Error()) {
		line = strings.TrimSpace(line)
		if line != "" && !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	return errors.New(strings.Join(lines, "; "))
}
