package filter

import (
	"fmt"
	"sync"
	"testing"
)

// TestCacheBounded shows a translated filter is cached, the cache keeps
// at most two generations however many distinct filters arrive, and a
// cached filter translates as a fresh one does.
func TestCacheBounded(t *testing.T) {
	env := fixtureEnv(t)
	translate := func(expr string) string {
		var args []any
		sql, err := env.Translate(expr, SQLite, func(i int) string { return fixtureFields[i].Name },
			func(v any, _ Type) string { args = append(args, v); return "?" })
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(sql, args)
	}
	first := translate(`stock > 5 && name.contains("x")`)
	if _, ok := env.cache.get(`stock > 5 && name.contains("x")`); !ok {
		t.Fatal("a translated filter is not in the cache")
	}
	for i := range 5 * cacheSize {
		translate(fmt.Sprintf("stock > %d", i))
	}
	if n := len(env.cache.cur) + len(env.cache.old); n > 2*cacheSize {
		t.Errorf("the cache holds %d expressions, more than %d", n, 2*cacheSize)
	}
	if again := translate(`stock > 5 && name.contains("x")`); again != first {
		t.Errorf("translated again after eviction: %s, first %s", again, first)
	}
	if again := translate(`stock > 5 && name.contains("x")`); again != first {
		t.Errorf("translated from the cache: %s, first %s", again, first)
	}
}

// TestConcurrentTranslate translates from many goroutines at once; run
// with -race.
func TestConcurrentTranslate(t *testing.T) {
	env := fixtureEnv(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				expr := fmt.Sprintf("stock > %d || note.contains(%q)", i%40, fmt.Sprint(g))
				if _, err := env.Translate(expr, PostgreSQL, func(int) string { return "c" }, func(any, Type) string { return "$1" }); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
