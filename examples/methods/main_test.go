package main

import (
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry/examples/internal/exampletest"
)

// Handlers run concurrently: lending and searching from many clients at
// once must not race on the books (go test -race), and a book is lent once.
func TestToolsAreSafeForConcurrentCalls(t *testing.T) {
	lib := &Library{books: []Book{{ID: 1, Title: "SPQR: A History of Ancient Rome"}}}
	url := exampletest.Serve(t, newServer(lib, slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	var mu sync.Mutex // guards lent
	lent := 0
	for range 8 {
		wg.Go(func() {
			if !strings.Contains(exampletest.Call(t, url, "lend_book", `{"bookId":1,"reader":"Ada"}`), `"isError":true`) {
				mu.Lock()
				lent++
				mu.Unlock()
			}
		})
		wg.Go(func() { exampletest.Call(t, url, "find_books", `{"query":"rome"}`) })
	}
	wg.Wait()
	if lent != 1 {
		t.Errorf("the book was lent %d times, want once", lent)
	}
}

// find_books returns at most limit books, and 10 when the model leaves
// limit out, as its schema publishes.
func TestFindBooksAppliesItsLimit(t *testing.T) {
	lib := &Library{}
	for i := range 12 {
		lib.books = append(lib.books, Book{ID: i + 1, Title: "Rome, volume " + strconv.Itoa(i+1)})
	}
	url := exampletest.Serve(t, newServer(lib, slog.New(slog.DiscardHandler)))
	for _, tt := range []struct {
		args string
		want int
	}{
		{`{"query":"rome","limit":2}`, 2},
		{`{"query":"rome"}`, 10},
		{`{"query":"rome","limit":50}`, 12},
	} {
		if got := strings.Count(exampletest.Call(t, url, "find_books", tt.args), `\"id\"`); got != tt.want {
			t.Errorf("find_books %s: %d books, want %d", tt.args, got, tt.want)
		}
	}
}
