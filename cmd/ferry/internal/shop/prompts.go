package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// SummaryArgs are the arguments of the order_summary prompt.
type SummaryArgs struct {
	Customer string `json:"customer" doc:"The customer's e-mail address; completes from the customers."`
}

// RestockArgs are the arguments of the restock_plan prompt.
type RestockArgs struct {
	Category string `json:"category" doc:"The category to restock." enum:"coffee,tea,brewing,cups,snacks,gifts"`
}

// addPrompts registers order_summary, built in code from the customer's
// record, and restock_plan, a template.
func addPrompts(srv *ferry.Server, store *Store) {
	ferry.AddPrompt(srv, ferry.Prompt{Name: "order_summary", Title: "Summarize a customer's orders",
		Description: "Asks for a summary of one customer's orders: what they buy, what is still open, anything to follow up."},
		func(ctx context.Context, a SummaryArgs) ([]ferry.PromptMessage, error) {
			c, placed, total, err := store.customerByEmail(ctx, a.Customer)
			if errors.Is(err, errNotFound) {
				return nil, ferry.NewError(ferry.CodeInvalidParams, "no customer has the e-mail address %q; list_customers finds them", a.Customer)
			} else if err != nil {
				return nil, err
			}
			return []ferry.PromptMessage{
				ferry.UserMessage(ferry.Text(fmt.Sprintf(
					"Summarize the orders of %s (customer %d, %s, %s). Leaving out cancelled ones, they have %s for %s in all.",
					c.Name, c.ID, c.City, c.Country, plural(placed, "order"), euros(total)))),
				ferry.AssistantMessage(ferry.Text(fmt.Sprintf(
					"I will call list_orders with customer_id %d, then get_order for each order still placed, and order_history for any that was cancelled.", c.ID))),
				ferry.UserMessage(ferry.Text("Answer with what they buy most, which orders are still open and for how much, and one line on anything to follow up.")),
			}, nil
		})
	ferry.AddPromptTemplate[RestockArgs](srv, ferry.Prompt{Name: "restock_plan", Title: "Plan a restock",
		Description: "Asks for a purchase plan for one category's low products.",
		Template: `Plan a restock of the {{category}} products. List them with list_products (filter: category == "{{category}}", orderBy: "stock"), ` +
			`pass their SKUs to restock_report, and propose a purchase order from its low lines, most urgent first.`,
		PreferWhen: "prefer restock_report over estimating stock yourself: stock changes with every order."})
}

// customerByEmail returns the customer with email, their number of orders
// and what those cost, cancelled ones left out.
func (s *Store) customerByEmail(ctx context.Context, email string) (Customer, int, int64, error) {
	var c Customer
	var n int
	var total int64
	err := s.db.QueryRowContext(ctx, `SELECT c.id, c.email, c.name, c.city, c.country, c.since,
	(SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id AND o.status != 'cancelled'),
	(SELECT COALESCE(SUM(o.total_cents), 0) FROM orders o WHERE o.customer_id = c.id AND o.status != 'cancelled')
FROM customers c WHERE c.email = ?`, email).Scan(&c.ID, &c.Email, &c.Name, &c.City, &c.Country, &c.Since, &n, &total)
	if errors.Is(err, sql.ErrNoRows) {
		return c, 0, 0, errNotFound
	}
	return c, n, total, err
}

// plural writes n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// maxSuggestions bounds what a completion answers.
const maxSuggestions = 20

// completer answers the completions the prompts' and templates' own
// values do not: customers' e-mail addresses for order_summary, and
// order numbers for shop://orders/{id}. What is typed is compared as a
// prefix, by value, never put into SQL text or a LIKE pattern.
func completer(db *sql.DB) ferry.Completer {
	return func(ctx context.Context, req *ferry.CompleteRequest) (*ferry.CompleteResult, error) {
		var q string
		switch {
		case req.RefType == "ref/prompt" && req.Name == "order_summary" && req.Argument == "customer":
			q = `SELECT email FROM customers WHERE substr(email, 1, length(?1)) = ?1 ORDER BY email LIMIT ?2`
		case req.RefType == "ref/resource" && req.URI == "shop://orders/{id}" && req.Argument == "id":
			q = `SELECT CAST(id AS TEXT) FROM orders WHERE substr(CAST(id AS TEXT), 1, length(?1)) = ?1 ORDER BY id DESC LIMIT ?2`
		default:
			return &ferry.CompleteResult{}, nil
		}
		typed := strings.ToLower(req.Value)
		if len(typed) > 200 {
			return &ferry.CompleteResult{}, nil
		}
		rows, err := db.QueryContext(ctx, q, typed, maxSuggestions+1)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		res := &ferry.CompleteResult{}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			res.Values = append(res.Values, v)
		}
		if len(res.Values) > maxSuggestions {
			res.Values, res.HasMore = res.Values[:maxSuggestions], true
		}
		return res, rows.Err()
	}
}

// orderURI is the resource URI of order id.
func orderURI(id int64) string { return "shop://orders/" + strconv.FormatInt(id, 10) }
