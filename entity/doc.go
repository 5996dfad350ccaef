// Package entity serves a service's records to agents as tools: get,
// list (with a filter, paging, ordering and search), create, update and
// delete, generated from Go struct types or read from a live SQLite,
// PostgreSQL or MySQL/MariaDB database. A model never sends SQL: filters
// are CEL expressions checked against the fields an entity allows and
// translated into parameterized SQL.
//
//	type Product struct {
//		ID   int64   `json:"id" entity:"key"`
//		SKU  string  `json:"sku" entity:"natural" maxLength:"20"`
//		Name string  `json:"name" entity:"filter,sort" minLength:"1"`
//		Cost float64 `json:"cost" entity:"filter,sort" minimum:"0"`
//	}
//
//	set, err := entity.NewSet(srv, db, nil) // db: a *sql.DB
//	if err != nil {
//		return err
//	}
//	if _, err := entity.Add[Product](set, nil); err != nil {
//		return err // names the type and field it cannot map
//	}
//	set.AddResources("shop") // shop://entities, shop://relationships
//
// # Tools
//
// An entity named product (table products) gets get_product (by key,
// {"id": 7}, or natural key, {"sku": "A-1"}), list_products, create_product,
// update_product (only the fields given change) and delete_product. Get and
// list are read-only; delete is destructive; update is idempotent; none
// reaches an open world. An entity with no single-column key, or a view,
// gets read tools only, and its tools say why ([Entity.KeyNote]); one
// whose left-out column must be given a value gets no create tool
// ([Entity.CreateNote]). Write tools can be left out one by one
// ([Options.Exclude]) or all together ([Options.ReadOnly],
// [SetOptions.ReadOnly]); a server made read-only hides them, since they
// are not marked read-only. Every tool has an output schema: one record is
// {"data": {...}}, a page {"data": [...], "paging": {"totalCount",
// "skip", "top", "hasMore"}}. A refusal ("not-found: no product with id
// 7", "conflict: a product with sku \"A-1\" exists") carries its code and
// validationErrors with paths in structured content as well as the text.
//
// # Lists
//
// skip defaults to 0 and top to [DefaultTop], at most [MaxTop]; out of
// range is refused, not clamped. The SQL reads top+1 rows to learn
// hasMore, never more. orderBy ("cost desc, name") takes sortable fields;
// the key always comes last, so pages never overlap, and text orders by
// code point on every engine. totalCount costs a second query (COUNT(*)
// with the same conditions) unless the page is the last one;
// [Options.SkipTotalCount] leaves it out. filter is a CEL expression over
// the filterable fields, with CEL's meaning, NULLs included; a field whose
// name CEL cannot write (in, null, 1abc) is not filterable, and the list
// tool says so. search appears only when the entity has a [Searcher]
// ([CreateSearchIndex]).
//
// # Relations
//
// A reference field ([Field.References]: a foreign key [Introspect]
// found, or a Go field's ref tag) is a relation, named after the field
// without its _id suffix (category_id gives category). get and list take
// expand: ["category"], which nests the record it refers to, one level:
// {"category_id": 3, "category": {"id": 3, "name": "Tea"}}. A list reads
// each relation's records with one query for the whole page, never one
// per record. The referenced entity's own fields (its hidden columns
// left out), scope and read hook apply, and the caller must be allowed
// its get or list tool (else expand is refused as forbidden); a null
// reference, or one to a record outside the caller's scope, is null.
// A filter may name the referenced record's filterable fields as
// relation.field (customer.country == "NL"), null in the same cases; the
// list reads them through a LEFT JOIN on the reference, with the
// referenced entity's scope in its condition.
//
// # Aggregates
//
// An entity with an aggregatable field ([Field.Aggregatable], the
// aggregate role of the entity tag) also gets aggregate_<plural>:
// aggregates ["count", "sum(cost)", "avg(cost)", "min(cost)",
// "max(cost)"] over the records the list tool's filter keeps, as a whole
// or per group of up to [MaxGroupBy] filterable fields (a date or
// timestamp by "due:day", "due:month" or "due:year", the first day of it
// in UTC), with orderBy over the call's groups and aggregates, and skip
// and top over the groups. The names a call may use are enums of its
// input schema, so nothing of a call's text becomes SQL. Groups are told
// apart as filters compare (text by code point, whatever the column's
// collation folds; NULL is a group of its own); sums skip nulls and are
// the engine's exact ones for integers and fixed-point columns; avg is
// the sum over the count of values summed, as a double, the same on
// every engine; over no value sum, avg, min and max are null. The scope
// and read hooks apply as to a list.
//
// # Transactions and timeouts
//
// Every call runs in a transaction of its own: reads in read-only ones
// (PostgreSQL BEGIN ... REPEATABLE READ READ ONLY, so that a page and its
// count see one snapshot; MySQL START TRANSACTION READ ONLY; SQLite
// PRAGMA query_only on the call's connection), so a write a hook attempts
// in them fails (a hook is the service's own code: one that sets the
// transaction read-write again is not stopped). Each statement is
// bounded by [SetOptions.Timeout], or the entity's own [Options.Timeout],
// on the engine (PostgreSQL statement_timeout, MariaDB
// max_statement_time) and by the context; a statement that runs out is
// refused as unavailable. An entity with a Timeout of its own gives its
// tools a deadline a little beyond it, in place of the server's. A
// call waits for a connection of the pool, and for its turn to write,
// within its deadline, and is refused as unavailable when the deadline
// passes (see [NewSet] on bounding the pool and on SQLite). A
// constraint violation is a refusal naming the field: unique is a
// conflict, a foreign key to nothing, NOT NULL and CHECK are invalid.
// Errors are read without importing drivers: PostgreSQL's SQLSTATE,
// SQLite's extended result codes, MySQL's error numbers.
//
// # Values
//
// Timestamps are served as RFC 3339 in UTC and stored as time.Time, in
// UTC, on PostgreSQL and MySQL, and as [SQLiteTimeLayout] text on SQLite
// (microseconds, so text order is time order); a call's timestamp finer
// than a microsecond is refused, as a filter's is, not cut short. Dates
// are YYYY-MM-DD, UUIDs their canonical text (PostgreSQL's uuid type, text
// elsewhere), booleans 0/1 on SQLite and MySQL. Numbers are JSON numbers:
// a DECIMAL or NUMERIC is served digit for digit as the database writes
// it, and written from the digits the call sent.
//
// A JSON field ([JSON]: PostgreSQL json and jsonb, MySQL's JSON,
// MariaDB's JSON (a LONGTEXT with a json_valid CHECK), a SQLite column
// declared JSON or so checked) is served as the value it holds, its
// output schema any JSON value; a write takes the value itself, checked
// (no NUL character, no number beyond a double's range, at most
// [MaxJSONDepth] levels) and bound as its JSON text. A filter compares a
// member, named by path, with a literal by == or != or in [...]
// (attrs.color == "red", attrs["first-name"] != "x"; a missing member
// makes the comparison null, as CEL's error) and tests the whole with
// == null. A PostgreSQL array of text, integers, numbers, booleans or
// UUIDs ([Array]) is served as a JSON array, its schema an array of its
// items (with their column's sizes), written from one and filtered by
// membership ("x" in tags). Neither is sorted, grouped or aggregated.
//
// What a record shows is what a filter matches, on every engine. A
// char(n) value comes without the spaces that pad it, as PostgreSQL
// compares char(n) values and MySQL reads them. A number JSON cannot
// write (NaN and the infinities, which PostgreSQL's number types and
// SQLite's REAL hold) is served as null and is null to filters:
// price == null finds it, price > 1e308 does not, nor does
// !(price > 1e308); so on those engines a number field is "number or
// null" in output schemas and filters, whatever its column's NOT NULL
// says. orderBy sorts such a number as the database does (PostgreSQL puts
// Infinity and then NaN after every number, -Infinity before), so that an
// index on the column keeps serving the order, as it keeps serving a
// filter's comparison.
//
// What a column holds ([Field]'s MaxLength, Padded, Precision, Scale,
// Minimum, Maximum and TimeStep, which [Introspect] reads on PostgreSQL
// and MySQL, and Enum, which it reads from an enum type or a
// CHECK (col IN (...)) on every engine) is in the create and update
// schemas (maxLength, multipleOf, minimum, maximum, enum), and a value the column would round, cut or refuse
// is refused with a sentence naming the field: a numeric(8,2) column
// refuses 1.239 rather than store 1.24, a char(n) one "ab " rather than
// store "ab", a timestamp(0) or MySQL datetime one 05.6 seconds rather
// than store 06 or 05.
//
// Keys and natural keys are looked up exactly (by code point) whatever
// the column's collation, so that a scope's tenant "A" never reads tenant
// "a". Where a unique column's collation counts two values equal (MariaDB's
// usual collations ignore case, accents and trailing spaces; SQLite's
// NOCASE ignores ASCII case), a write's conflict names the value the
// record holds, which get finds.
//
// # Queries
//
// An operator's own SQL becomes tools too: [ParseQueries] and
// [ReadQueries] read named statements from .sql files (-- name: X :many,
// with @name parameters and @param lines that type and bound them), and
// [Set.AddQuery] serves each as a tool. The model never writes SQL: the
// statement is the operator's, read once at start-up as the engine reads
// it (strings, quoted names and comments of each engine), refused unless
// it is one read or one write, prepared and described by the database,
// and every argument is bound. A read runs in a read-only transaction
// under the Set's timeout, with a row cap that says hasMore; a write
// (only on a Set that is not read-only) answers rowsAffected.
//
// # Hooks and scopes
//
// [Hooks] run in the call's transaction before it reads or writes, and
// may refuse or fill fields (created_by from the principal). A [Scope]
// ties every read and write to the caller's rows (tenant_id from a
// claim): a row outside it is not found, a create gets the value forced,
// an update cannot move a row out.
package entity
