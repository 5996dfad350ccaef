package entity

import (
	"regexp"
	"strings"
	"testing"
)

func TestSnake(t *testing.T) {
	tests := []struct{ in, want string }{
		{"products", "products"},
		{"Product", "product"},
		{"OrderItems", "order_items"},
		{"order items", "order_items"},
		{"order-items", "order_items"},
		{"order.items", "order_items"},
		{"1st-quarter", "1st_quarter"},
		{"select", "select"},
		{"HTTPServer", "http_server"},
		{"userID", "user_id"},
		{"UserIDs", "user_ids"},
		{"URLsByHost", "urls_by_host"},
		{"HTTPSession", "http_session"},
		{"Base64Text", "base64_text"},
		{"item2", "item2"},
		{"  __Weird--Name__  ", "weird_name"},
		{"Größe", "groesse"},
		{"Café Orders", "cafe_orders"},
		{"商品", "u5546_u54c1"},
		{"", "unnamed"},
		{"---", "unnamed"},
		{"🙂", "unnamed"},
		{"a\x00b", "a_b"},
		{"\xff\xfe", "unnamed"},
	}
	valid := regexp.MustCompile(`^[a-z0-9_]+$`)
	for _, tt := range tests {
		got := snake(tt.in)
		if got != tt.want {
			t.Errorf("snake(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !valid.MatchString(got) || strings.HasPrefix(got, "_") || strings.HasSuffix(got, "_") || strings.Contains(got, "__") {
			t.Errorf("snake(%q) = %q, not a clean [a-z0-9_] fragment", tt.in, got)
		}
	}
}

func TestSingularPlural(t *testing.T) {
	// Each row is singular, plural; singular(plural) must give the
	// singular back, plural(singular) the plural, and singular(singular)
	// must not change it.
	tests := []struct{ one, many string }{
		{"product", "products"},
		{"order_item", "order_items"},
		{"person", "people"},
		{"child", "children"},
		{"status", "statuses"},
		{"address", "addresses"},
		{"category", "categories"},
		{"box", "boxes"},
		{"series", "series"},
		{"data", "data"},
		{"information", "information"},
		{"news", "news"},
		{"species", "species"},
		{"day", "days"},
		{"key", "keys"},
		{"city", "cities"},
		{"company", "companies"},
		{"class", "classes"},
		{"bus", "buses"},
		{"virus", "viruses"},
		{"batch", "batches"},
		{"dish", "dishes"},
		{"tax", "taxes"},
		{"index", "indexes"},
		{"quiz", "quizzes"},
		{"buzz", "buzzes"},
		{"analysis", "analyses"},
		{"base", "bases"},
		{"leaf", "leaves"},
		{"knife", "knives"},
		{"roof", "roofs"},
		{"archive", "archives"},
		{"hero", "heroes"},
		{"photo", "photos"},
		{"shoe", "shoes"},
		{"movie", "movies"},
		{"cookie", "cookies"},
		{"cache", "caches"},
		{"house", "houses"},
		{"cause", "causes"},
		{"response", "responses"},
		{"course", "courses"},
		{"case", "cases"},
		{"purchase", "purchases"},
		{"database", "databases"},
		{"size", "sizes"},
		{"alias", "aliases"},
		{"man", "men"},
		{"woman", "women"},
		{"mouse", "mice"},
		{"criterion", "criteria"},
		{"matrix", "matrices"},
		{"user", "users"},
		{"area", "areas"},
		{"line_item", "line_items"},
		{"sales_person", "sales_people"},
		{"product_category", "product_categories"},
		{"1st_quarter", "1st_quarters"},
		{"select", "selects"},
	}
	for _, tt := range tests {
		if got := plural(tt.one); got != tt.many {
			t.Errorf("plural(%q) = %q, want %q", tt.one, got, tt.many)
		}
		if got := singular(tt.many); got != tt.one {
			t.Errorf("singular(%q) = %q, want %q", tt.many, got, tt.one)
		}
		if got := singular(tt.one); got != tt.one {
			t.Errorf("singular(%q) = %q, want it unchanged", tt.one, got)
		}
	}
	if len(tests) < 40 {
		t.Fatalf("only %d words; the table needs 40 or more", len(tests))
	}
}

func TestEntityNames(t *testing.T) {
	tests := []struct{ table, one, many string }{
		{"products", "product", "products"},
		{"product", "product", "products"},
		{"Product", "product", "products"},
		{"order items", "order_item", "order_items"},
		{"OrderItems", "order_item", "order_items"},
		{"1st-quarter", "1st_quarter", "1st_quarters"},
		{"select", "select", "selects"},
		{"people", "person", "people"},
		{"categories", "category", "categories"},
		{"data", "data", "data"},
		{"", "unnamed", "unnameds"},
	}
	for _, tt := range tests {
		one, many := entityNames(tt.table)
		if one != tt.one || many != tt.many {
			t.Errorf("entityNames(%q) = %q, %q; want %q, %q", tt.table, one, many, tt.one, tt.many)
		}
	}
}

func TestToolName(t *testing.T) {
	if got := toolName("get", "product"); got != "get_product" {
		t.Errorf(`toolName("get", "product") = %q`, got)
	}
	if got := toolName("list", "products"); got != "list_products" {
		t.Errorf(`toolName("list", "products") = %q`, got)
	}
	exact := strings.Repeat("a", MaxToolName-len("list_"))
	if got := toolName("list", exact); got != "list_"+exact {
		t.Errorf("a name of exactly %d bytes was changed to %q", MaxToolName, got)
	}
	long1 := strings.Repeat("warehouse_", 10) + "one"
	long2 := strings.Repeat("warehouse_", 10) + "two"
	a, b := toolName("update", long1), toolName("update", long2)
	for _, n := range []string{a, b} {
		if len(n) > MaxToolName || !regexp.MustCompile(`^update_[a-z0-9_]+_[0-9a-f]{8}$`).MatchString(n) {
			t.Errorf("toolName of a long name = %q (%d bytes)", n, len(n))
		}
		if strings.Contains(n, "__") {
			t.Errorf("toolName of a long name = %q, with a doubled underscore", n)
		}
	}
	if a == b {
		t.Errorf("two long names share the shortening %q", a)
	}
	if again := toolName("update", long1); again != a {
		t.Errorf("toolName is not deterministic: %q then %q", a, again)
	}
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{}
	var got []string
	for _, n := range []string{"product", "product", "order", "product", "product_2"} {
		got = append(got, uniqueName(n, taken))
	}
	want := "product product_2 order product_3 product_2_2"
	if strings.Join(got, " ") != want {
		t.Errorf("uniqueName gave %q, want %q", strings.Join(got, " "), want)
	}
}

func FuzzSnake(f *testing.F) {
	for _, s := range []string{"OrderItems", "order items", "1st-quarter", "商品", "", "Größe"} {
		f.Add(s)
	}
	valid := regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)
	f.Fuzz(func(t *testing.T, s string) {
		got := snake(s)
		if !valid.MatchString(got) {
			t.Fatalf("snake(%q) = %q", s, got)
		}
		one, many := entityNames(s)
		if !valid.MatchString(one) || !valid.MatchString(many) {
			t.Fatalf("entityNames(%q) = %q, %q", s, one, many)
		}
		if n := toolName("delete", many); len(n) > MaxToolName {
			t.Fatalf("toolName(delete, %q) = %q, %d bytes", many, n, len(n))
		}
	})
}
