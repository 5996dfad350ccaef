package filter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// filterTable is the filter table: each valid expression with the exact
// ids of the fixture rows it keeps, the same on every engine and the
// same as cel-go's own evaluation of it over each row.
var filterTable = []struct {
	expr string
	want []int64
}{
	{`name == "apple"`, []int64{1}},
	{`name != "apple"`, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`name < "apple"`, []int64{2, 7, 8, 9}},
	{`name >= "a"`, []int64{1, 3, 4, 5, 6, 8, 10, 11, 12, 13}},
	{`name > "Z"`, []int64{1, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13}},
	{`name <= "Apple"`, []int64{2, 7}},
	{`"apple" == name`, []int64{1}},
	{`"b" > name`, []int64{1, 2, 3, 7, 8, 9, 13}},
	{`name in ["apple", "Apple", "x"]`, []int64{1, 2}},
	{`name in ["APPLE"]`, []int64{}},
	{`name == "apple "`, []int64{3}},
	{`name == "é"`, []int64{11}},
	{`name == "e\u0301"`, []int64{12}},
	{`name > "äpple"`, []int64{5, 10, 11}},
	{`name >= "😀"`, []int64{5}},
	{`note == null`, []int64{2}},
	{`note != null`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note == "red fruit"`, []int64{3}},
	{`note != "red fruit"`, []int64{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!(note == "red fruit")`, []int64{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!(note != "red fruit")`, []int64{3}},
	{`note == ""`, []int64{7}},
	{`note in ["red fruit", null]`, []int64{2, 3}},
	{`!(note in ["red fruit", null])`, []int64{1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!(note in ["red fruit"])`, []int64{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note < "a"`, []int64{1, 4, 7, 8}},
	{`stock > 5`, []int64{4, 6, 13}},
	{`!(stock > 5)`, []int64{1, 3, 5, 7, 8, 9, 11, 12}},
	{`stock > 5 || stock == null`, []int64{2, 4, 6, 10, 13}},
	{`!(stock > 5) || name == "Apple"`, []int64{1, 2, 3, 5, 7, 8, 9, 11, 12}},
	{`!(stock > 5 && name == "Apple")`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!(stock > 5 || name == "Apple")`, []int64{1, 3, 5, 7, 8, 9, 11, 12}},
	{`stock != 5`, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`stock == 5`, []int64{1}},
	{`!(stock == 5)`, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`stock in [0, 5, 100]`, []int64{1, 3, 4}},
	{`stock in [1, null]`, []int64{2, 7, 10}},
	{`!(stock in [0, 5])`, []int64{2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`stock < 2.5`, []int64{3, 5, 7, 8, 9}},
	{`stock >= 2.5`, []int64{1, 4, 6, 11, 12, 13}},
	{`stock > -1.5`, []int64{1, 3, 4, 5, 6, 7, 8, 11, 12, 13}},
	{`stock <= 3000000000`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13}},
	{`stock < -3000000000`, []int64{}},
	{`stock > 5u`, []int64{4, 6, 13}},
	{`stock >= 18446744073709551615u`, []int64{}},
	{`!(stock < 18446744073709551615u)`, []int64{}},
	{`100 < stock`, []int64{6}},
	{`stock in [5.0, 5.5, "5"]`, []int64{1}},
	{`!(stock in [5.5, "x"])`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`qty > 1099511627775`, []int64{5}},
	{`qty == 0`, []int64{2}},
	{`qty < 0.5`, []int64{2, 3}},
	{`cost > 100`, []int64{5}},
	{`cost >= 99.99`, []int64{2, 3, 5}},
	{`cost == 100.0`, []int64{2}},
	{`cost != 0.0`, []int64{1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`cost < 1e10`, []int64{1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`cost > -1`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`price == null`, []int64{2, 7, 10, 12}},
	{`price > 0`, []int64{1, 3, 6, 8, 9, 11, 13}},
	{`price != 2.0`, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!(price > 0.0)`, []int64{4, 5}},
	{`price in [2.0, 100]`, []int64{1, 3}},
	{`price < 0.01`, []int64{4, 5, 13}},
	{`active`, []int64{1, 4, 7, 9, 13}},
	{`!active`, []int64{3, 5, 8, 11}},
	{`active == true`, []int64{1, 4, 7, 9, 13}},
	{`active != true`, []int64{2, 3, 5, 6, 8, 10, 11, 12}},
	{`active == false`, []int64{3, 5, 8, 11}},
	{`!(active == true)`, []int64{2, 3, 5, 6, 8, 10, 11, 12}},
	{`active || stock > 5`, []int64{1, 4, 6, 7, 9, 13}},
	{`!active || stock > 5`, []int64{3, 4, 5, 6, 8, 11, 13}},
	{`active && true`, []int64{1, 4, 7, 9, 13}},
	{`active < true`, []int64{3, 5, 8, 11}},
	{`!(active >= true)`, []int64{3, 5, 8, 11}},
	{`due == date("2024-01-01")`, []int64{1, 8, 13}},
	{`due > date("2024-01-01")`, []int64{3, 5, 6, 9, 11, 12}},
	{`due < timestamp("2024-01-01T10:00:00Z")`, []int64{1, 4, 8, 13}},
	{`due <= timestamp("2023-12-31T23:59:59Z")`, []int64{4}},
	{`due >= timestamp("2024-01-01T00:00:01Z")`, []int64{3, 5, 6, 9, 11, 12}},
	{`due != timestamp("2024-01-01T10:00:00Z")`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`due == timestamp("2024-01-01T10:00:00Z")`, []int64{}},
	{`due == null`, []int64{2, 7, 10}},
	{`due in [date("2024-01-01"), date("2024-02-29"), timestamp("2024-05-01T01:00:00Z")]`, []int64{1, 3, 8, 13}},
	{`seen > timestamp("2024-01-01T10:00:00Z")`, []int64{3, 5, 9, 11, 13}},
	{`seen >= timestamp("2024-01-01T11:00:00+01:00")`, []int64{1, 3, 5, 9, 11, 13}},
	{`seen == timestamp("2024-02-29T23:59:59.5Z")`, []int64{3}},
	{`seen < date("2024-01-01")`, []int64{4, 7}},
	{`seen != null`, []int64{1, 3, 4, 5, 6, 7, 9, 11, 13}},
	{`!(seen < timestamp("2024-03-01T00:00:00Z"))`, []int64{5, 9, 11}},
	{`seen == timestamp("2024-01-01T10:00:00.000001Z")`, []int64{13}},
	{`uid == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, []int64{1}},
	{`uid == "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"`, []int64{}},
	{`uid != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`uid < "b"`, []int64{1, 4}},
	{`uid > "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, []int64{3, 6}},
	{`uid.startsWith("a0ee")`, []int64{1}},
	{`uid.contains("BB6D")`, []int64{}},
	{`uid in ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"]`, []int64{1}},
	{`name.contains("pp")`, []int64{1, 2, 3, 4, 10, 13}},
	{`name.contains("PP")`, []int64{}},
	{`note.contains("%")`, []int64{4}},
	{`note.contains("_")`, []int64{5}},
	{`name.contains("%")`, []int64{8}},
	{`name.contains("\\")`, []int64{6}},
	{`note.contains("'")`, []int64{6}},
	{`note.contains("\"")`, []int64{6}},
	{`name.startsWith("a")`, []int64{1, 3, 8, 13}},
	{`name.startsWith("A")`, []int64{2}},
	{`name.endsWith(" ")`, []int64{3}},
	{`name.endsWith("e")`, []int64{1, 2, 4, 5, 10}},
	{`name.startsWith("😀")`, []int64{5}},
	{`name.endsWith("🍎")`, []int64{13}},
	{`name.endsWith("le")`, []int64{1, 2, 4, 5, 10}},
	{`note.contains("")`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!note.contains("")`, []int64{}},
	{`!note.startsWith("red")`, []int64{1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note.endsWith("\u0301")`, []int64{11}},
	{`name.contains("e")`, []int64{1, 2, 3, 4, 5, 9, 10, 12, 13}},
	{`note.startsWith("-- c /*")`, []int64{8}},
	{`(stock > 5 || cost > 100.0) && !(name == "Apple")`, []int64{4, 5, 6, 13}},
	{`!(!(stock > 5))`, []int64{4, 6, 13}},
	{`true`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`false`, []int64{}},
	{`false || name == "Apple"`, []int64{2}},
	{`!(true && note == null)`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`name.lowerAscii() == "apple"`, []int64{1, 2}},
	{`name.lowerAscii() != "apple"`, []int64{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`name.lowerAscii() == "Apple"`, []int64{}},
	{`name.lowerAscii() < "apple"`, []int64{7, 8}},
	{`"zebra" == name.lowerAscii()`, []int64{9}},
	{`name.lowerAscii().contains("pp")`, []int64{1, 2, 3, 4, 10, 13}},
	{`name.lowerAscii().startsWith("a")`, []int64{1, 2, 3, 8, 13}},
	{`name.lowerAscii().endsWith("le")`, []int64{1, 2, 4, 5, 10}},
	{`name.lowerAscii() in ["apple", "zebra"]`, []int64{1, 2, 9}},
	{`note.lowerAscii() == "red fruit"`, []int64{1, 3}},
	{`!(note.lowerAscii() == "red fruit")`, []int64{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note.lowerAscii() != "red fruit"`, []int64{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note.lowerAscii().contains("äpple")`, []int64{}},
	{`note.lowerAscii().contains("")`, []int64{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`!note.lowerAscii().contains("")`, []int64{}},
	{`note.lowerAscii() in ["red fruit", null]`, []int64{1, 3}},
	{`!(note.lowerAscii() in ["red fruit", null])`, []int64{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`note.lowerAscii().startsWith("ä")`, []int64{}},
	{`note.lowerAscii() >= "a"`, []int64{1, 3, 5, 6, 9, 10, 11, 12, 13}},
	{`seen > timestamp("0001-01-01T00:00:00Z")`, []int64{1, 3, 4, 5, 6, 7, 9, 11, 13}},
	{`seen < timestamp("9999-12-31T23:59:59.999999Z")`, []int64{1, 3, 4, 5, 6, 7, 9, 11, 13}},
	{`due > date("0001-01-01")`, []int64{1, 3, 4, 5, 6, 8, 9, 11, 12, 13}},
	{`due <= date("9999-12-31")`, []int64{1, 3, 4, 5, 6, 8, 9, 11, 12, 13}},
	{`qty == 9223372036854775807`, []int64{}},
	{`qty > -9223372036854775808`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`qty < 9223372036854775807u`, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	{`cost > 1.7976931348623157e308`, []int64{}},
	{`cost < -1.7976931348623157e308`, []int64{}},
	{`price == -0.0`, []int64{5}},
	{`stock in [2147483647, -2147483648]`, []int64{6, 9}},
	{`stock > 2147483647`, []int64{}},
	{`stock >= 9007199254740991.0`, []int64{}},
	{`name.contains("😀 ")`, []int64{5}},
	{`name.endsWith("\u0301")`, []int64{12}},
	{`name.startsWith("e\u0301")`, []int64{12}},
	{`note.contains("\U0001F4AF")`, []int64{13}},
	{`stock >= 0 && stock <= 5 && note != null`, []int64{1, 3, 7, 8, 11, 12}},
}

// TestFilterTableMatchesCEL checks the table against cel-go's evaluation,
// so that the ids written below are CEL's meaning and not a guess.
func TestFilterTableMatchesCEL(t *testing.T) {
	env := fixtureEnv(t)
	for _, tt := range filterTable {
		got := celIDs(t, env, tt.expr)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: cel-go keeps %#v, the table says %#v", tt.expr, got, tt.want)
		}
	}
}

// TestFilterTable runs every expression of the table on SQLite,
// PostgreSQL and MariaDB and requires exactly the table's rows.
func TestFilterTable(t *testing.T) {
	env := fixtureEnv(t)
	forEachEngine(t, func(t *testing.T, e *engine) {
		for _, tt := range filterTable {
			got, err := e.selectIDs(t, env, tt.expr)
			if err != nil {
				t.Errorf("%s: refused: %v", tt.expr, err)
				continue
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: got %v, want %v", tt.expr, got, tt.want)
			}
		}
	})
}
