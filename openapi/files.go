package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/index"
)

// refTimeout bounds the fetch of one URL a $ref names.
const refTimeout = 30 * time.Second

// boundedFS is the parser's file system for the $refs of a file
// document: its own, with every file checked first to be a JSON or YAML
// file in the document's directory or below it (after symbolic links),
// of at most MaxDocumentBytes, and at most MaxReferencedFiles of them.
type boundedFS struct {
	*index.LocalFS
	dir string // absolute, without symbolic links

	mu    sync.Mutex // guards files and broken
	files map[string]bool
	// broken says why files could not be read (refused, or not JSON or
	// YAML), which the parser reports only as references it cannot find.
	broken []error
}

// newBoundedFS returns the file system of a document in dir.
func newBoundedFS(dir string) (*boundedFS, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	cfg := index.CreateClosedAPIIndexConfig()
	cfg.AllowFileLookup = true
	cfg.BasePath = dir
	lfs, err := index.NewLocalFSWithConfig(&index.LocalFSConfig{BaseDirectory: dir, IndexConfig: cfg})
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return &boundedFS{LocalFS: lfs, dir: real, files: map[string]bool{}}, nil
}

// Open implements fs.FS, for the files the parser opens.
func (b *boundedFS) Open(name string) (fs.File, error) {
	if err := b.check(name); err != nil {
		return nil, err
	}
	return b.LocalFS.Open(name)
}

// OpenWithContext is Open, for the parser's lookups of references.
func (b *boundedFS) OpenWithContext(ctx context.Context, name string) (fs.File, error) {
	if err := b.check(name); err != nil {
		return nil, err
	}
	return b.LocalFS.OpenWithContext(ctx, name)
}

// check reports why name may not be read.
func (b *boundedFS) check(name string) (err error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.dir, p)
	}
	fail := func(why string) error {
		err := fmt.Errorf("a $ref may name %s, not %s", why, name)
		b.mu.Lock()
		b.broken = append(b.broken, err) // the parser reports only a reference it cannot find
		b.mu.Unlock()
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".json", ".yaml", ".yml":
	default:
		return fail("only .json, .yaml and .yml files")
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fail("only files that exist")
	}
	if !strings.HasPrefix(real, b.dir+string(filepath.Separator)) {
		return fail("only files in the document's directory or below it")
	}
	info, err := os.Stat(real)
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if info.Size() > MaxDocumentBytes {
		return fail(fmt.Sprintf("files of at most %d bytes", MaxDocumentBytes))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.files[real] {
		return nil
	}
	if len(b.files) >= MaxReferencedFiles {
		return fail(fmt.Sprintf("at most %d files", MaxReferencedFiles))
	}
	b.files[real] = true
	if data, err := os.ReadFile(real); err == nil {
		var v yaml.Node
		if err := yaml.Unmarshal(data, &v); err != nil {
			rel, _ := filepath.Rel(b.dir, real)
			b.broken = append(b.broken, fmt.Errorf("%s: %w", rel, err))
		}
	}
	return nil
}

// errs returns why the files the $refs name could not be read.
func (b *boundedFS) errs() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return errors.Join(b.broken...)
}

// remoteHandler fetches the URLs the $refs of a URL document name: only
// those under base (the document's directory), each bounded in time and
// size, at most MaxReferencedFiles of them.
func remoteHandler(ctx context.Context, base string) func(string) (*http.Response, error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	ctx = context.WithoutCancel(ctx) // the parser may fetch after Load returned
	return func(u string) (*http.Response, error) {
		if !strings.HasPrefix(u, base) || strings.Contains(u[len(base):], "..") {
			return nil, fmt.Errorf("openapi: a $ref may name only URLs under %s, not %s", base, u)
		}
		mu.Lock()
		if !seen[u] && len(seen) >= MaxReferencedFiles {
			mu.Unlock()
			return nil, fmt.Errorf("openapi: a document's $refs may name at most %d URLs", MaxReferencedFiles)
		}
		seen[u] = true
		mu.Unlock()
		fctx, cancel := context.WithTimeout(ctx, refTimeout)
		defer cancel()
		data, err := fetch(fctx, u)
		if err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(data)), ContentLength: int64(len(data))}, nil
	}
}
