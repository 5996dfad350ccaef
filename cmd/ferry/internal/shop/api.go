package shop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/route"
)

// API is the shop's REST API under /api. Its handlers are the only code
// that changes orders: the order tools reach them through the same key
// middleware as any other caller (see [Service]).
type API struct {
	store  *Store
	logger *slog.Logger
}

// Routes registers the API's handlers on mux.
func (a *API) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/products/{sku}", a.product)
	mux.HandleFunc("GET /api/orders", a.orders)
	mux.HandleFunc("POST /api/orders", a.place)
	mux.HandleFunc("GET /api/orders/{id}", a.order)
	mux.HandleFunc("GET /api/orders/{id}/history", a.history)
	mux.HandleFunc("POST /api/orders/{id}/cancel", a.cancel)
	mux.HandleFunc("POST /api/orders/{id}/ship", a.ship)
}

// fieldError is one entry of a problem's errors, in huma's shape.
type fieldError struct {
	Message  string `json:"message"`
	Location string `json:"location"`
	Value    any    `json:"value,omitempty"`
}

// problem is an RFC 9457 problem document.
type problem struct {
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []fieldError `json:"errors,omitempty"`
}

func writeProblem(w http.ResponseWriter, status int, detail string, errs ...fieldError) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem{Title: http.StatusText(status), Status: status, Detail: detail, Errors: errs})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers an error the handlers do not know as a 500 that says
// nothing of it, and logs it with the request's id.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	id, _ := route.RequestID(r)
	a.logger.ErrorContext(r.Context(), "api: request failed", "method", r.Method, "path", r.URL.Path, "request_id", id, "err", err)
	writeProblem(w, http.StatusInternalServerError, "")
}

// orderID reads the {id} of the path; it answers 404 itself when it is
// not an order number.
func orderID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		writeProblem(w, http.StatusNotFound, "No order "+strconv.Quote(r.PathValue("id"))+"; order numbers are whole numbers from 1.")
		return 0, false
	}
	return id, true
}

func (a *API) product(w http.ResponseWriter, r *http.Request) {
	p, err := a.store.Product(r.Context(), r.PathValue("sku"))
	switch {
	case errors.Is(err, errNotFound):
		writeProblem(w, http.StatusNotFound, "No product has SKU "+strconv.Quote(r.PathValue("sku"))+".")
	case err != nil:
		a.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, p)
	}
}

func (a *API) order(w http.ResponseWriter, r *http.Request) {
	id, ok := orderID(w, r)
	if !ok {
		return
	}
	o, err := a.store.Order(r.Context(), id)
	a.answerOrder(w, r, id, o, err)
}

// answerOrder answers an order, or the store's error about it.
func (a *API) answerOrder(w http.ResponseWriter, r *http.Request, id int64, o Order, err error) {
	switch {
	case errors.Is(err, errNotFound):
		writeProblem(w, http.StatusNotFound, fmt.Sprintf("No order %d.", id))
	case errors.Is(err, errShipped):
		writeProblem(w, http.StatusConflict, fmt.Sprintf("Order %d has shipped; it can no longer be cancelled. Arrange a return with the customer instead.", id))
	case errors.Is(err, errCanceled):
		writeProblem(w, http.StatusConflict, fmt.Sprintf("Order %d is cancelled; it cannot ship.", id))
	case err != nil:
		a.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, o)
	}
}

func (a *API) history(w http.ResponseWriter, r *http.Request) {
	id, ok := orderID(w, r)
	if !ok {
		return
	}
	h, err := a.store.History(r.Context(), id)
	switch {
	case errors.Is(err, errNotFound):
		writeProblem(w, http.StatusNotFound, fmt.Sprintf("No order %d.", id))
	case err != nil:
		a.fail(w, r, err)
	default:
		writeJSON(w, http.StatusOK, h)
	}
}

func (a *API) orders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := OrderFilter{Limit: 20, Status: q.Get("status")}
	var errs []fieldError
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			errs = append(errs, fieldError{Message: "must be a whole number from 1 to 100", Location: "query.limit", Value: v})
		}
		f.Limit = n
	}
	if v := q.Get("customer_id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			errs = append(errs, fieldError{Message: "must be a customer number", Location: "query.customer_id", Value: v})
		}
		f.CustomerID = n
	}
	switch f.Status {
	case "", "placed", "shipped", "cancelled":
	default:
		errs = append(errs, fieldError{Message: "must be placed, shipped or cancelled", Location: "query.status", Value: f.Status})
	}
	if len(errs) > 0 {
		writeProblem(w, http.StatusBadRequest, "The query is not valid.", errs...)
		return
	}
	list, err := a.store.Orders(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, OrderList{Orders: list})
}

// NewOrder is the body of POST /api/orders. An Idempotency-Key header
// makes it safe to send again (see [Store.PlaceOrder]).
type NewOrder struct {
	CustomerID int64     `json:"customer_id" doc:"The customer's number, from list_customers or get_customer." minimum:"1"`
	Lines      []NewLine `json:"lines" doc:"What to order: one line per product." minItems:"1" maxItems:"20"`
}

// PlaceOrderIn is the input of place_order: the body of POST /api/orders,
// and its Idempotency-Key header.
type PlaceOrderIn struct {
	NewOrder
	IdempotencyKey string `json:"idempotency_key,omitzero" doc:"Any unique text, such as a UUID: a retry with the same key returns the order placed the first time instead of ordering twice." maxLength:"100" in:"header=Idempotency-Key"`
}

var skuPattern = regexp.MustCompile(`^[A-Z]{3}-[0-9]{3}$`)

// validate lists every problem of a new order at once.
func (o *NewOrder) validate() []fieldError {
	var errs []fieldError
	if o.CustomerID < 1 {
		errs = append(errs, fieldError{Message: "must be a customer number", Location: "body.customer_id", Value: o.CustomerID})
	}
	if len(o.Lines) == 0 || len(o.Lines) > 20 {
		errs = append(errs, fieldError{Message: "must hold from 1 to 20 lines", Location: "body.lines"})
	}
	seen := map[string]bool{}
	for i, l := range o.Lines {
		at := fmt.Sprintf("body.lines[%d]", i)
		switch {
		case !skuPattern.MatchString(l.SKU):
			errs = append(errs, fieldError{Message: "must be a SKU such as TEA-003", Location: at + ".sku", Value: l.SKU})
		case seen[l.SKU]:
			errs = append(errs, fieldError{Message: "is on an earlier line already; order it once, with the whole quantity", Location: at + ".sku", Value: l.SKU})
		}
		seen[l.SKU] = true
		if l.Qty < 1 || l.Qty > 50 {
			errs = append(errs, fieldError{Message: "must be from 1 to 50", Location: at + ".qty", Value: l.Qty})
		}
	}
	return errs
}

// decodeBody decodes r's body, at most limit bytes, into v: one JSON
// value with no field v does not have, and nothing after it, so that
// no part of a body is silently ignored.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		return errors.New("there is more after the first JSON value")
	}
	return nil
}

func (a *API) place(w http.ResponseWriter, r *http.Request) {
	var in NewOrder
	if err := decodeBody(w, r, 64<<10, &in); err != nil {
		writeProblem(w, http.StatusBadRequest, "The body is not a new order: "+err.Error()+".")
		return
	}
	if errs := in.validate(); len(errs) > 0 {
		writeProblem(w, http.StatusUnprocessableEntity, "The order is not valid.", errs...)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if utf8.RuneCountInString(key) > 100 { // characters, as the tool's maxLength counts
		writeProblem(w, http.StatusBadRequest, "The Idempotency-Key header is longer than 100 characters.")
		return
	}
	o, replayed, err := a.store.PlaceOrder(r.Context(), in.CustomerID, in.Lines, callersKey(r, key), "by "+caller(r))
	var lines linesError
	switch {
	case errors.Is(err, errKeyReused):
		writeProblem(w, http.StatusUnprocessableEntity, fmt.Sprintf("This idempotency key was used for order %d, which has another customer or other lines; use a new key for a new order.", o.ID))
	case replayed:
		w.Header().Set("Location", fmt.Sprintf("/api/orders/%d", o.ID))
		writeJSON(w, http.StatusOK, o) // placed before with this key: nothing new
	case errors.Is(err, errNotFound):
		writeProblem(w, http.StatusUnprocessableEntity, "The order is not valid.",
			fieldError{Message: "no customer has this number", Location: "body.customer_id", Value: in.CustomerID})
	case errors.As(err, &lines):
		errs := make([]fieldError, len(lines))
		for i, l := range lines {
			errs[i] = fieldError{Message: l.Problem, Location: fmt.Sprintf("body.lines[%d]", l.Line)}
		}
		writeProblem(w, http.StatusConflict, "The order cannot be filled; nothing was ordered.", errs...)
	case err != nil:
		a.fail(w, r, err)
	default:
		w.Header().Set("Location", fmt.Sprintf("/api/orders/%d", o.ID))
		writeJSON(w, http.StatusCreated, o)
	}
}

// cancelBody is the body of POST /api/orders/{id}/cancel.
type cancelBody struct {
	Reason string `json:"reason"`
}

func (a *API) cancel(w http.ResponseWriter, r *http.Request) {
	id, ok := orderID(w, r)
	if !ok {
		return
	}
	var in cancelBody
	if r.ContentLength != 0 {
		if err := decodeBody(w, r, 4<<10, &in); err != nil {
			writeProblem(w, http.StatusBadRequest, "The body is not a cancellation: "+err.Error()+".")
			return
		}
	}
	if utf8.RuneCountInString(in.Reason) > 200 {
		writeProblem(w, http.StatusUnprocessableEntity, "The reason is too long.",
			fieldError{Message: "must be at most 200 characters", Location: "body.reason"})
		return
	}
	if in.Reason == "" {
		in.Reason = "no reason given"
	}
	o, err := a.store.Cancel(r.Context(), id, in.Reason+" ("+caller(r)+")")
	a.answerOrder(w, r, id, o, err)
}

func (a *API) ship(w http.ResponseWriter, r *http.Request) {
	id, ok := orderID(w, r)
	if !ok {
		return
	}
	o, err := a.store.Ship(r.Context(), id)
	a.answerOrder(w, r, id, o, err)
}

// callersKey is the idempotency key as the store keeps it: key within
// the caller's own namespace, so that one caller's key never answers, or
// names, another caller's order. An empty key stays empty.
func callersKey(r *http.Request, key string) string {
	if key == "" {
		return ""
	}
	who := ""
	if p, ok := principal(r); ok {
		who = p.Subject
	}
	return strconv.Itoa(len(who)) + ":" + who + ":" + key
}

// caller names who made the request, for an order's history: the key's
// owner, and the tool when an agent called.
func caller(r *http.Request) string {
	who := "an API client"
	if p, ok := principal(r); ok {
		who = p.Subject
	}
	if tool, ok := route.FromAgent(r); ok {
		return who + " through the " + tool + " tool"
	}
	return who
}
