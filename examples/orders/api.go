package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"

	"github.com/ferry-mcp/ferry/route"
)

// API is the service's REST API, served under /api. Its handlers are the
// only code that touches the store: agents reach them through the same
// middleware as every other caller.
type API struct {
	store    *Store
	logger   *slog.Logger
	products map[string]bool // the SKUs that exist
}

// fieldError is one entry of a validation problem's errors, in huma's
// shape.
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

// writeProblem answers a problem document.
func writeProblem(w http.ResponseWriter, status int, detail string, errs ...fieldError) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem{Title: http.StatusText(status), Status: status, Detail: detail, Errors: errs})
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Routes registers the API's handlers on mux.
func (a *API) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/orders", a.list)
	mux.HandleFunc("POST /api/orders", a.create)
	mux.HandleFunc("GET /api/orders/{id}", a.order)
	mux.HandleFunc("POST /api/orders/{id}/cancel", a.cancel)
	mux.HandleFunc("GET /api/orders/{id}/invoice", a.invoice)
	mux.HandleFunc("POST /api/ledger/accruals", a.postAccruals)
	mux.HandleFunc("POST /api/ledger/periods/{period}/lock", a.lock)
}

// fail answers an error of the store: the ones the API knows as problems,
// anything else as a 500 that says nothing of it.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errNotFound):
		writeProblem(w, http.StatusNotFound, "No such order.")
	default:
		id, _ := route.RequestID(r) // not the header, which any caller can set
		a.logger.ErrorContext(r.Context(), "request failed", "path", r.URL.Path, "request_id", id, "err", err)
		writeProblem(w, http.StatusInternalServerError, "")
	}
}

func (a *API) order(w http.ResponseWriter, r *http.Request) {
	o, err := a.store.Order(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// OrderList is the answer of GET /api/orders.
type OrderList struct {
	IDs []string `json:"ids" doc:"The orders' ids, in order."`
}

func (a *API) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeProblem(w, http.StatusBadRequest, "The limit must be a whole number from 1 to 100.",
				fieldError{Message: "must be a whole number from 1 to 100", Location: "query.limit", Value: v})
			return
		}
		limit = n
	}
	ids, err := a.store.Orders(r.Context(), q.Get("status"), limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, OrderList{IDs: ids})
}

var orderID = regexp.MustCompile(`^[A-Z]-[0-9]{1,8}$`)

func (a *API) create(w http.ResponseWriter, r *http.Request) {
	var o Order
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&o); err != nil {
		writeProblem(w, http.StatusBadRequest, "The body is not an order: "+err.Error()+".")
		return
	}
	if errs := a.validate(o); len(errs) > 0 {
		writeProblem(w, http.StatusUnprocessableEntity, "The order is not valid.", errs...)
		return
	}
	if err := a.store.Create(r.Context(), o); errors.Is(err, errExists) {
		writeProblem(w, http.StatusConflict, "Order "+o.ID+" exists already.")
		return
	} else if err != nil {
		a.fail(w, r, err)
		return
	}
	o.Status = "open"
	writeJSON(w, http.StatusCreated, o)
}

// validate lists what is wrong with a new order, every problem at once:
// the service's own rules, which no schema knows (which products exist).
func (a *API) validate(o Order) []fieldError {
	var errs []fieldError
	if !orderID.MatchString(o.ID) {
		errs = append(errs, fieldError{Message: "must be a letter, a dash and up to 8 digits, like A-1042", Location: "body.id", Value: o.ID})
	}
	if o.Customer == "" {
		errs = append(errs, fieldError{Message: "is required", Location: "body.customer"})
	}
	if len(o.Lines) == 0 {
		errs = append(errs, fieldError{Message: "must hold at least one line", Location: "body.lines"})
	}
	for i, l := range o.Lines {
		if !a.products[l.SKU] {
			errs = append(errs, fieldError{Message: "no product has this SKU", Location: fmt.Sprintf("body.lines[%d].sku", i), Value: l.SKU})
		}
		if l.Qty < 1 || l.Qty > 100 {
			errs = append(errs, fieldError{Message: "must be from 1 to 100", Location: fmt.Sprintf("body.lines[%d].qty", i), Value: l.Qty})
		}
	}
	return errs
}

func (a *API) cancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	switch err := a.store.Cancel(r.Context(), id); {
	case errors.Is(err, errShipped):
		writeProblem(w, http.StatusConflict, "Order "+id+" has shipped; it can no longer be cancelled.")
	case err != nil:
		a.fail(w, r, err)
	default:
		o, err := a.store.Order(r.Context(), id)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, o)
	}
}

// invoice would ask the invoicing service, which this example has none of:
// an unexpected failure, as a real outage would be.
func (a *API) invoice(w http.ResponseWriter, r *http.Request) {
	a.fail(w, r, fmt.Errorf("invoicing %s: the invoicing service is not configured", r.PathValue("id")))
}

var period = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)

// Accrual is the body of POST /api/ledger/accruals.
type Accrual struct {
	Period      string `json:"period"`
	AmountCents int64  `json:"amount_cents"`
}

func (a *API) postAccruals(w http.ResponseWriter, r *http.Request) {
	var in Accrual
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil || !period.MatchString(in.Period) {
		writeProblem(w, http.StatusUnprocessableEntity, "The accrual needs a period, written yyyy-MM.",
			fieldError{Message: "must be a month, written yyyy-MM", Location: "body.period", Value: in.Period})
		return
	}
	switch err := a.store.PostAccruals(r.Context(), in.Period, in.AmountCents); {
	case errors.Is(err, errLocked):
		writeProblem(w, http.StatusConflict, "Period "+in.Period+" is locked.")
	case err != nil:
		a.fail(w, r, err)
	default:
		writeJSON(w, http.StatusCreated, in)
	}
}

func (a *API) lock(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("period")
	if !period.MatchString(p) {
		writeProblem(w, http.StatusNotFound, "No period "+p+"; periods are written yyyy-MM.")
		return
	}
	switch err := a.store.Lock(r.Context(), p); {
	case errors.Is(err, errLocked):
		writeProblem(w, http.StatusConflict, "Period "+p+" is locked already.")
	case err != nil:
		a.fail(w, r, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
