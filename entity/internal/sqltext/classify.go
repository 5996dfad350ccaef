package sqltext

import (
	"fmt"
	"strings"
)

// Class is what a statement does, as [Classify] tells it.
type Class struct {
	// Verb is the statement's first keyword, in upper case.
	Verb string
	// Write says the statement changes data: an INSERT, UPDATE, DELETE,
	// MERGE or REPLACE, or a WITH whose statements hold one.
	Write bool
	// Destructive says a write may delete or overwrite rows (DELETE,
	// MERGE, REPLACE anywhere in it).
	Destructive bool
	// Limited says a read bounds its rows itself (LIMIT, OFFSET or FETCH
	// outside parentheses).
	Limited bool
	// Writes names the writing keywords a read holds (a data-modifying
	// WITH, a FOR UPDATE), so that the caller can say why it is not a
	// read.
	Writes []string
}

// reads are the verbs of statements that only read.
var reads = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true}

// writes are the verbs of statements that change data.
var writes = map[string]bool{"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "REPLACE": true}

// Code returns the tokens that are neither white space nor comments,
// without a final semicolon; a semicolon before the end (a second
// statement) is an error.
func Code(toks []Token) ([]Token, error) {
	var out []Token
	for _, t := range toks {
		if t.Kind == Space || t.Kind == Comment {
			continue
		}
		out = append(out, t)
	}
	for i, t := range out {
		if t.Kind == Punct && t.Text == ";" {
			if i != len(out)-1 {
				return nil, &Error{out[i+1].Pos, "a second statement after the first one's semicolon: write one statement per query"}
			}
			out = out[:i]
		}
	}
	if len(out) == 0 {
		return nil, &Error{0, "no statement"}
	}
	return out, nil
}

// Classify tells what the statement of code (from [Code]) does. It refuses
// statements other than reads and data writes: DDL, transaction control,
// SET, CALL, PRAGMA, a SELECT ... INTO, and a write's RETURNING (a write
// answers with the rows it changed).
func Classify(code []Token) (Class, error) {
	var c Class
	i := 0
	for i < len(code) && code[i].Kind == Punct && code[i].Text == "(" {
		i++
	}
	if i == len(code) || code[i].Kind != Word {
		return c, &Error{code[0].Pos, "the statement does not start with a keyword"}
	}
	c.Verb = strings.ToUpper(code[i].Text)
	if !reads[c.Verb] && !writes[c.Verb] {
		return c, &Error{code[i].Pos, fmt.Sprintf("%s statements are not served: a query is one SELECT, WITH, VALUES, INSERT, UPDATE, DELETE, MERGE or REPLACE", c.Verb)}
	}
	c.Write = writes[c.Verb]
	depth := 0
	for j, t := range code {
		if t.Kind == Punct {
			switch t.Text {
			case "(":
				depth++
			case ")":
				depth--
			}
			continue
		}
		if t.Kind != Word {
			continue
		}
		w := strings.ToUpper(t.Text)
		switch w {
		case "INSERT", "UPDATE", "DELETE", "MERGE":
			if !c.Write {
				c.Writes = append(c.Writes, w)
			}
			c.Destructive = c.Destructive || w == "DELETE" || w == "MERGE"
		case "INTO":
			if !c.Write && !writeBefore(code, j) {
				return c, &Error{t.Pos, "SELECT ... INTO is not served: it writes"}
			}
		case "RETURNING":
			return c, &Error{t.Pos, "RETURNING is not served: a write query answers with the number of rows it changed"}
		case "LIMIT", "OFFSET", "FETCH":
			if depth == 0 {
				c.Limited = true
			}
		}
	}
	if c.Verb == "REPLACE" {
		c.Destructive = true
	}
	if c.Verb == "WITH" && len(c.Writes) > 0 {
		c.Write, c.Writes = true, nil
		// A WITH that holds a write is one: it runs as the write it holds.
	}
	return c, nil
}

// writeBefore says a writing verb comes before code[j] (INSERT INTO,
// MERGE INTO).
func writeBefore(code []Token, j int) bool {
	for _, t := range code[:j] {
		if t.Kind == Word && writes[strings.ToUpper(t.Text)] {
			return true
		}
	}
	return false
}
