package entity

import (
	"time"

	"github.com/ferry-mcp/ferry/entity/internal/filter"
	"github.com/ferry-mcp/ferry/schema"
)

// Type is the kind of a field's values, as tools and filters see them.
// Its String method returns its name: "text", "integer", "number",
// "boolean", "timestamp", "date", "uuid", "json" or "array". It is the filter language's
// own type, so that a field's type needs no translation to be filtered.
type Type = filter.Type

// The field types. A column whose type maps to none of them is left out of
// the entity, with a note in its description.
const (
	// Text is a string: TEXT, VARCHAR, CHAR, enums.
	Text Type = filter.Text
	// Integer is a whole number that fits in an int64.
	Integer Type = filter.Integer
	// Number is a floating or fixed-point number, served as a JSON number.
	Number Type = filter.Number
	// Boolean is true or false.
	Boolean Type = filter.Boolean
	// Timestamp is an instant, served as RFC 3339 text in UTC.
	Timestamp Type = filter.Timestamp
	// Date is a calendar date, served as YYYY-MM-DD.
	Date Type = filter.Date
	// UUID is a UUID, served as its canonical text.
	UUID Type = filter.UUID
	// JSON is any JSON value (PostgreSQL json and jsonb, MySQL's JSON,
	// MariaDB's JSON alias, a SQLite column declared JSON), served as
	// the value itself. A filter compares a member by path
	// (attrs.color == "red") or tests the whole for null.
	JSON Type = filter.JSON
	// Array is a PostgreSQL array (text[], integer[], ...) of the field's
	// Items, served as a JSON array. A filter tests membership
	// ("x" in tags) or null. Other engines have no arrays.
	Array Type = filter.Array
)

// Field is one column of an entity, as its tools name and treat it.
type Field struct {
	// Name is the field's name in tool arguments and results: the
	// column's name, or the struct field's JSON name.
	Name string
	// Column is the column's name in the database. It is only ever
	// written into SQL quoted by the dialect.
	Column string
	// Type is the kind of the field's values.
	Type Type
	// Items is the type of an Array field's elements: Text, Integer,
	// Number, Boolean or UUID. Elements may be null.
	Items Type
	// Nullable says the column accepts NULL.
	Nullable bool
	// Generated says the database computes the value (identity, serial,
	// generated columns): it is read but never written.
	Generated bool
	// HasDefault says the database fills the value when create omits it.
	HasDefault bool
	// Filterable, Sortable and Searchable say whether filter, orderBy and
	// search may use the field. A filterable field may also group an
	// aggregate's records.
	Filterable, Sortable, Searchable bool
	// Aggregatable says the aggregate tool may sum, average, and take the
	// least and greatest of the field (an integer or a number), or take
	// its least and greatest (text, a date or a timestamp). The entity
	// gets an aggregate tool when one of its fields is aggregatable.
	Aggregatable bool
	// Description documents the field in the tools' schemas.
	Description string
	// Enum lists the allowed values of a text field, or is empty.
	Enum []string
	// References names the entity and field this one refers to (a
	// foreign key), or is nil.
	References *Reference
	// Schema, if not nil, is the JSON Schema of the field's values, with
	// the validation keywords writes are checked against (entities from
	// Go types get it from the struct's tags). If nil, one is derived
	// from Type, Enum and Description.
	Schema *schema.Schema

	// What the column's SQL type holds beyond Type, as the database
	// enforces it. [Introspect] sets them on PostgreSQL and MySQL (SQLite
	// enforces no declared size, so there they stay zero); for a Go type,
	// set them on the entity [Of] returns. The write tools' schemas say
	// them (maxLength, multipleOf, minimum, maximum), and a value the
	// column would cut, round or refuse is refused with a sentence
	// naming the field before it reaches the database. For an Array
	// field they are its items' (varchar(20)[], integer[]).

	// MaxLength, if not zero, is the most characters a text column holds
	// (varchar(n), char(n)).
	MaxLength int
	// Padded says the column is char(n): the database pads its values
	// with spaces that are not part of them (PostgreSQL compares
	// 'ab' and 'ab   ' equal, MySQL strips them when read). A value is
	// served and filtered without them, and a write ending in a space,
	// which the column would drop, is refused.
	Padded bool
	// Precision and Scale, if Precision is not zero, are a fixed-point
	// column's digits and the digits of them after the point: 8 and 2 for
	// numeric(8,2), which holds -999999.99 to 999999.99 in steps of 0.01.
	Precision, Scale int
	// Minimum and Maximum, if not nil, are the least and greatest values
	// of an integer column (-2147483648 and 2147483647 for a 32-bit one).
	Minimum, Maximum *int64
	// TimeStep, if not zero, is the finest step of a timestamp column
	// that keeps less than the microsecond: time.Second for MySQL's
	// datetime and PostgreSQL's timestamp(0), time.Millisecond for
	// datetime(3) or timestamp(3). A value between two steps, which
	// PostgreSQL would round and MySQL cut, is refused.
	TimeStep time.Duration
}

// Reference is a relation: a field holding another entity's key.
type Reference struct {
	// Entity is the referenced entity's Name, Field its field's Name.
	Entity, Field string
}

// Entity is a table or view served as tools.
type Entity struct {
	// Name is the singular snake_case name tools are named after:
	// "product" gives get_product and create_product.
	Name string
	// Plural is the plural name: "products" gives list_products.
	Plural string
	// Schema and Table locate the table; Schema may be empty.
	Schema, Table string
	// Description documents the entity in its tools' descriptions.
	Description string
	// Fields are the entity's columns, hidden ones left out, in column
	// order.
	Fields []*Field
	// Key is the Name of the single-column primary key field, or empty
	// for a table with none (which gets read tools only).
	Key string
	// NaturalKey is the Name of a unique field get, update and delete
	// also accept, such as "sku", or empty.
	NaturalKey string
	// View says the entity cannot be written (a view, or a table the
	// caller made read-only).
	View bool
	// KeyNote says why Key is empty, when [Introspect] knows: "its
	// primary key has 2 columns (order_id, line)". Tool descriptions say
	// it beside the entity's lack of a get tool.
	KeyNote string
	// CreateNote says why a table that is written has no create tool,
	// when [Introspect] knows: a column left out of Fields (by
	// ExcludeColumns, or of a type not served) is NOT NULL with no
	// default, so no insert could leave it out: "its column meta (bytea)
	// is required and not served". Get, list, update and delete are
	// served as usual.
	CreateNote string
	// Unserved lists the columns [Introspect] left out because their
	// types are not served (bytes, intervals, arrays of dates, ...), in
	// column order;
	// columns left out on purpose (ExcludeColumns) are not listed.
	Unserved []Column
}

// Column is a database column as its catalog describes it.
type Column struct {
	// Name is the column's name in the database.
	Name string
	// Type is its type as the database writes it: "bytea",
	// "interval", "varbinary(10)".
	Type string
}

// Field returns the field named name, or nil.
func (e *Entity) Field(name string) *Field {
	for _, f := range e.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Engine names a database engine entity tools speak.
type Engine string

// The engines.
const (
	SQLite     Engine = "sqlite"
	PostgreSQL Engine = "postgres"
	MySQL      Engine = "mysql" // MySQL and MariaDB
)
