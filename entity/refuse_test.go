package entity

import "testing"

func TestArticle(t *testing.T) {
	for noun, want := range map[string]string{
		"user": "a user", "unit": "a unit", "url": "a url", "euro_price": "a euro_price", "order": "an order",
		"item": "an item", "umbrella": "an umbrella", "hour_log": "an hour_log", "product": "a product", "": "a ",
	} {
		if got := article(noun); got != want {
			t.Errorf("article(%q) = %q, want %q", noun, got, want)
		}
	}
}
