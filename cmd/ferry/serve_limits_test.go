package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ferry serve says the per-caller limits it applies, and its flags set
// them: a call over the rate is refused naming the limit and its flag.
func TestServeLimits(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	def := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	if want := "ferry serve: limits per caller: 32 calls at once, 50 a second with bursts of 100 (-max-calls-per-caller, -call-rate, -call-burst)\n"; !strings.Contains(def.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, def.stderr.String())
	}
	set := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-max-calls-per-caller", "4", "-call-rate", "0.001", "-call-burst", "1"})
	if want := "ferry serve: limits per caller: 4 calls at once, 0.001 a second with bursts of 1 (-max-calls-per-caller, -call-rate, -call-burst)\n"; !strings.Contains(set.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, set.stderr.String())
	}
	if want := "ferry serve: result budget: 100000 bytes per tool result; a larger one is cut, a list at a whole row with hasMore set (-max-result-bytes)\n"; !strings.Contains(def.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, def.stderr.String())
	}
	if r := set.call(t, "list_products", nil); r.IsError {
		t.Fatalf("first call: %s", r.text())
	}
	r := set.call(t, "list_products", nil)
	if want := "unavailable: too many calls: a caller may make 0.001 a second, bursts of 1 (CallRate, CallBurst); retry in 1000s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)"; !r.IsError || r.text() != want {
		t.Errorf("second call: %s; want %q", r.text(), want)
	}
	none := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-max-calls-per-caller", "0", "-call-rate", "0"})
	if want := "ferry serve: limits per caller: none (-max-calls-per-caller, -call-rate, -call-burst)\n"; !strings.Contains(none.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, none.stderr.String())
	}
	for range 3 {
		if r := none.call(t, "list_products", nil); r.IsError {
			t.Fatalf("no limits: %s", r.text())
		}
	}
}

// Limits that mean nothing are refused before anything is opened.
func TestServeLimitFlagsRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-calls-per-caller", "-1"}, "-max-calls-per-caller -1: give a whole number of at least 0 (0: no limit)"},
		{[]string{"-call-rate", "-5"}, "-call-rate -5: give calls a second above 0, such as 50 (0: no limit)"},
		{[]string{"-call-rate", "NaN"}, "-call-rate NaN: give calls a second above 0, such as 50 (0: no limit)"},
		{[]string{"-call-burst", "0"}, "-call-burst 0: give a whole number of at least 1"},
	} {
		code, stderr := failServe(t, append([]string{"-db", "/nonexistent/x.db"}, tt.args...))
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// The limits read as English whatever their values.
func TestDescribeLimits(t *testing.T) {
	for _, c := range []struct {
		maxCalls, burst int
		rate            float64
		want            string
	}{
		{1, 1, 1, "1 call at once, 1 a second with bursts of 1"},
		{32, 100, 50, "32 calls at once, 50 a second with bursts of 100"},
		{1, 0, 0, "1 call at once, no rate limit"},
		{0, 5, 2, "any number of calls at once, 2 a second with bursts of 5"},
		{0, 0, 0, "none"},
	} {
		if got := describeLimits(c.maxCalls, c.rate, c.burst); got != c.want {
			t.Errorf("describeLimits(%d, %g, %d) = %q, want %q", c.maxCalls, c.rate, c.burst, got, c.want)
		}
	}
}

// ferry serve says each call's deadlines, the flags that set them and
// the tables whose config gives a timeout of their own; a table's
// timeout bounds its calls' SQL in place of -statement-timeout.
func TestServeDeadlines(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	def := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	if want := "ferry serve: deadlines: each call 1m0s (-call-timeout), its SQL 10s (-statement-timeout)\n"; !strings.Contains(def.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, def.stderr.String())
	}
	conf := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(conf, []byte("tables:\n  products:\n    timeout: 2m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	set := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-call-timeout", "5s", "-statement-timeout", "3s", "-config", conf})
	if want := "ferry serve: deadlines: each call 5s (-call-timeout), its SQL 3s (-statement-timeout); tables of their own (config timeout): products 2m0s\n"; !strings.Contains(set.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, set.stderr.String())
	}
	if r := set.call(t, "list_products", nil); r.IsError {
		t.Errorf("list_products: %s", r.text())
	}
}

// -max-result-bytes bounds each result: a list over it keeps whole rows
// with hasMore set, and says so.
func TestServeResultBudget(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	if _, err := d.db.Exec(`WITH RECURSIVE c(x) AS (SELECT 10 UNION ALL SELECT x + 1 FROM c WHERE x < 60)
		INSERT INTO products (sku, name, price, cost_price) SELECT 'SKU-' || x, 'Product ' || x, x, 1 FROM c`); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-max-result-bytes", "2000"})
	if want := "ferry serve: result budget: 2000 bytes per tool result"; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
	}
	r := s.call(t, "list_products", nil)
	if r.IsError || !strings.Contains(r.text(), "items to fit the result budget of 2,000 bytes; hasMore is set") {
		t.Errorf("list_products: %s", r.text())
	}
	if _, err := parseServeFlags([]string{"-db", "x.db", "-max-result-bytes", "10"}, &env{stdout: io.Discard, stderr: io.Discard, getenv: envFunc(nil)}); err == nil || !strings.Contains(err.Error(), "-max-result-bytes 10: give at least 1000") {
		t.Errorf("-max-result-bytes 10: %v", err)
	}
}
