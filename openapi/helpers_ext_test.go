package openapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry/openapi"
)

var github struct {
	once sync.Once
	data []byte
	err  error
}

// githubJSON returns GitHub's REST API description, gunzipped once.
func githubJSON(t testing.TB) []byte {
	t.Helper()
	github.once.Do(func() {
		f, err := os.Open(filepath.Join("testdata", "github", "api.github.com.json.gz"))
		if err != nil {
			github.err = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			github.err = err
			return
		}
		var b bytes.Buffer
		_, github.err = io.Copy(&b, zr)
		github.data = b.Bytes()
	})
	if github.err != nil {
		t.Fatal(github.err)
	}
	return github.data
}

// loadGitHub parses GitHub's REST API description.
func loadGitHub(t testing.TB) *openapi.Document {
	t.Helper()
	d, err := openapi.Parse(githubJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
