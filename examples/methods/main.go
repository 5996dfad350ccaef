// Command methods serves the exported methods of a value as tools. Their
// descriptions and hints come from their doc comments, through a file that
// go generate writes:
//
//	go generate ./examples/methods && go run ./examples/methods
package main

//go:generate go run github.com/ferry-mcp/ferry/cmd/ferry gen -type Library

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/ferry-mcp/ferry"
)

// Book is a book of the library.
type Book struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	LentTo string `json:"lentTo,omitempty"`
}

// Library lends books; its methods are its tools. Tool handlers run
// concurrently, on every transport, so its methods are safe for concurrent
// use.
type Library struct {
	mu    sync.Mutex // guards books
	books []Book
}

// FindBooksIn is the input of find_books.
type FindBooksIn struct {
	Query string `json:"query" doc:"Part of the title, e.g. 'Rome'." minLength:"1"`
	Limit int    `json:"limit,omitzero" doc:"At most this many books." minimum:"1" maximum:"50" default:"10"`
}

// Books is a list of books. Books is never nil: omitzero keeps a nil
// slice from being written as null, so the output schema says "array",
// and required says it is always there.
type Books struct {
	Books []Book `json:"books,omitzero" required:"true"`
}

// FindBooks searches the books of the library by title.
//
//ferry:title Find books
//ferry:readonly
//ferry:closedworld
func (l *Library) FindBooks(ctx context.Context, in FindBooksIn) (Books, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := Books{Books: []Book{}}
	for _, b := range l.books {
		if in.Limit > 0 && len(out.Books) == in.Limit { // the server fills in the default, 10
			break
		}
		if strings.Contains(strings.ToLower(b.Title), strings.ToLower(in.Query)) {
			out.Books = append(out.Books, b)
		}
	}
	return out, nil
}

// LendBookIn is the input of lend_book.
type LendBookIn struct {
	BookID int    `json:"bookId" doc:"The id of the book, as find_books returns it."`
	Reader string `json:"reader" doc:"The name of the reader." minLength:"1"`
}

// LendBook lends a book to a reader.
//
//ferry:title Lend a book
//ferry:additive
//ferry:closedworld
func (l *Library) LendBook(ctx context.Context, in LendBookIn) (Book, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, b := range l.books {
		if b.ID != in.BookID {
			continue
		}
		if b.LentTo != "" {
			return Book{}, ferry.Conflict("'" + b.Title + "' is already lent to " + b.LentTo + ".")
		}
		l.books[i].LentTo = in.Reader
		return l.books[i], nil
	}
	return Book{}, ferry.NotFound("There is no such book: use find_books for its id.")
}

// newServer returns a server with the tools of lib.
func newServer(lib *Library, logger *slog.Logger) *ferry.Server {
	srv := ferry.NewServer("library", "1.0.0", &ferry.ServerOptions{
		Instructions: "Search for books before lending them to a reader.",
		Logger:       logger,
	})
	ferry.AddMethods(srv, lib)
	return srv
}

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := newServer(&Library{books: []Book{{ID: 1, Title: "SPQR: A History of Ancient Rome"}}}, logger)
	if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		logger.Error("serve", "err", err)
		os.Exit(1)
	}
}
