package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checksum is a digest of every row of the shop's tables, to tell that a
// refused call changed nothing.
func (d *testDB) checksum(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, q := range []string{
		"SELECT id, sku, name, COALESCE(description, ''), CAST(price AS CHAR(20)), CAST(COALESCE(cost_price, 0) AS CHAR(20)) FROM products ORDER BY id",
		"SELECT id, email, COALESCE(name, ''), '', '', '' FROM customers ORDER BY id",
	} {
		if d.engine != "mysql" {
			q = strings.ReplaceAll(q, "CHAR(20)", "TEXT")
		}
		rows, err := d.db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var id int64
			var a, b, c, e, f string
			if err := rows.Scan(&id, &a, &b, &c, &e, &f); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s\x00%s\n", id, a, b, c, e, f)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// productExists reports whether the shop still has product id.
func (d *testDB) productExists(t *testing.T, id int) bool {
	t.Helper()
	var n int
	q := "SELECT COUNT(*) FROM products WHERE id = " + fmt.Sprint(id)
	if err := d.db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// ferry serve -confirm, with real clients in both eras, on SQLite and
// PostgreSQL: the official Go SDK in a 2025-11-25 session answers the
// elicitation, and the TypeScript SDK v2 pinned to 2026-07-28 answers the
// input_required question and retries. delete_product runs only after
// "accept"; decline, cancel, no answer, a client without the elicitation
// capability and an approval replayed for other arguments leave every row
// as it was.
func TestServeConfirm(t *testing.T) {
	for _, eng := range engines[:2] {
		t.Run(eng.name, func(t *testing.T) {
			d := eng.open(t)
			d.shop(t)
			s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-confirm", "-confirm-timeout", "1s"})
			if want := "confirmation: 4 tools ask the client's user before each call and run only on accept (-confirm)"; !strings.Contains(s.stderr.String(), want) {
				t.Errorf("start-up does not say %q:\n%s", want, s.stderr.String())
			}
			unchanged := d.checksum(t)
			t.Run("go-sdk, 2025-11-25", func(t *testing.T) {
				goSDKConfirm(t, s.url, d, unchanged)
			})
			unchanged = d.checksum(t)
			t.Run("typescript-sdk-v2, 2026-07-28", func(t *testing.T) {
				tsConfirm(t, s.url, d, unchanged)
			})
		})
	}
}

// goSDKConfirm deletes product 1 through the go-sdk client, after every
// way of not confirming it.
func goSDKConfirm(t *testing.T, url string, d *testDB, unchanged string) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dial := func(handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "ferry-confirm-gosdk", Version: "v0.0.0"},
			&mcp.ClientOptions{ElicitationHandler: handler})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	deleteOne := func(cs *mcp.ClientSession) (text string, isError bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_product", Arguments: map[string]any{"id": 1}})
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return text, res.IsError
	}
	// The handlers run on the SDK's goroutines (the late one past its
	// call's end): what they saw is kept under a lock.
	var mu sync.Mutex
	var asked []string
	ask := func(message string) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, message)
	}
	answer := func(action string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ask(req.Params.Message)
			return &mcp.ElicitResult{Action: action}, nil
		}
	}
	late := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		ask(req.Params.Message)
		select { // the person answers after -confirm-timeout
		case <-ctx.Done():
		case <-time.After(4 * time.Second):
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
	for _, tt := range []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want    string
	}{
		{"decline", answer("decline"), `declined: the user declined "Delete product" (delete_product); the tool did not run`},
		{"cancel", answer("cancel"), "declined: the user cancelled the confirmation"},
		{"no answer", late, "declined: the user did not answer the confirmation of \"Delete product\" (delete_product) within 1s"},
		{"no capability", nil, "unavailable: \"Delete product\" (delete_product) needs a person to confirm it, and this client cannot ask its user"},
	} {
		text, isError := deleteOne(dial(tt.handler))
		if !isError || !strings.Contains(text, tt.want) {
			t.Errorf("%s: result %q (isError %v), want %q", tt.name, text, isError, tt.want)
		}
		if got := d.checksum(t); got != unchanged {
			t.Fatalf("%s: the database changed", tt.name)
		}
	}
	want := "Allow \"Delete product\" (delete_product) to run?\nArguments: id=1\nDeletes one product for good."
	mu.Lock()
	if len(asked) != 3 || asked[0] != want {
		t.Errorf("asked %q; want three times %q", asked, want)
	}
	mu.Unlock()
	if text, isError := deleteOne(dial(answer("accept"))); isError || d.productExists(t, 1) {
		t.Errorf("accept: result %q (isError %v); product 1 still there: %v", text, isError, d.productExists(t, 1))
	}
}

// tsOutcome is one line of testdata/ts_confirm_client.mjs.
type tsOutcome struct {
	Case       string   `json:"case"`
	IsError    bool     `json:"isError"`
	ResultType string   `json:"resultType"`
	Text       string   `json:"text"`
	Asked      []string `json:"asked"`
	Rejected   string   `json:"rejected"`
}

// tsConfirm deletes product 2 through the TypeScript SDK v2 client, after
// every way of not confirming it.
func tsConfirm(t *testing.T, url string, d *testDB, unchanged string) {
	run := func(mode string) map[string]tsOutcome {
		t.Helper()
		node := tsNode(t)
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, node, "testdata/ts_confirm_client.mjs", url, mode, "2").Output()
		if err != nil {
			stderr := ""
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("node ts_confirm_client.mjs %s: %v\n%s\n%s", mode, err, out, stderr)
		}
		got := map[string]tsOutcome{}
		for _, line := range lines(string(out)) {
			var o tsOutcome
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			got[o.Case] = o
		}
		return got
	}
	got := run("refuse")
	for name, want := range map[string]string{
		"decline":       `declined: the user declined "Delete product" (delete_product); the tool did not run`,
		"cancel":        "declined: the user cancelled the confirmation",
		"no capability": "this client cannot ask its user (it did not declare the elicitation capability)",
	} {
		if o := got[name]; !o.IsError || !strings.Contains(o.Text, want) {
			t.Errorf("%s: %+v, want a refusal saying %q", name, o, want)
		}
	}
	if o := got["no answer"]; o.Rejected == "" {
		t.Errorf("no answer: %+v; want the call rejected by the client", o)
	}
	if o := got["replay with other arguments"]; o.ResultType != "input_required" || o.Text != "" {
		t.Errorf("replay with other arguments: %+v; want the question asked again", o)
	}
	want := "Allow \"Delete product\" (delete_product) to run?\nArguments: id=2\nDeletes one product for good."
	if o := got["decline"]; len(o.Asked) != 1 || o.Asked[0] != want {
		t.Errorf("the user was asked %q, want %q", o.Asked, want)
	}
	if d.checksum(t) != unchanged || !d.productExists(t, 2) {
		t.Fatal("the database changed without the user's accept")
	}
	if o := run("accept")["accept"]; o.IsError || len(o.Asked) != 1 || d.productExists(t, 2) {
		t.Errorf("accept: %+v; product 2 still there: %v", o, d.productExists(t, 2))
	}
}

// tsNode returns Node 22's path, with the npm packages installed; without
// them it fails under CI and skips elsewhere.
func tsNode(t *testing.T) string {
	t.Helper()
	args := tsServer(t)
	return args[1]
}
