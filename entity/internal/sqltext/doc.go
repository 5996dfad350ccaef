// Package sqltext reads the text of an operator's SQL statement as the
// engine will: it splits it into tokens (strings, quoted names, comments
// and @name parameters each whole, with every engine's quoting rules), so
// that a keyword inside a string is never taken for one, and it tells a
// statement that only reads from one that writes.
//
// It refuses what it cannot read the way the engine does: a MySQL
// executable comment (/*! ... */), a driver's own placeholder (?, $1,
// :name), a second statement, a string or comment left open.
package sqltext
