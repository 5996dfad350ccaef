package entity

// Searcher turns a search argument into an SQL condition over an entity's
// table, for the list tool's search argument. With no Searcher an
// entity's list tool has no search argument at all.
type Searcher interface {
	// Match returns a condition that keeps the rows of e whose searchable
	// fields match text, the table being named by alias, and an
	// expression ordering the rows by relevance, best first when sorted
	// ascending (or "" for none). Every value from text is bound through
	// bind, which returns its placeholder; nothing from text is ever
	// written into the SQL. The list tool writes the condition before
	// the rank, so with positional placeholders ("?") Match binds the
	// condition's values first, then the rank's. An error is a refusal
	// the model reads, of the search argument: a [ferry.Refusal] keeps
	// its code (others are invalid), and its sentence is shown once, led
	// by "search: " unless it starts with "search" already. Match runs
	// concurrently, and more than once per call (for the page and for its
	// count). A Searcher that also has a
	// method Condition(e, alias, text, bind) (cond string, err error),
	// Match's condition binding nothing for a rank, as this package's
	// searchers do, has it used for counts.
	Match(e *Entity, alias, text string, bind func(v any) string) (cond, rank string, err error)
}
