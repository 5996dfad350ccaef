package protomcp_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"

	"connectrpc.com/connect"
)

func TestAValidCallReachesTheHandlerAndReturnsItsResponse(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`)
	if r.IsError || r.RPCError != "" {
		t.Fatalf("got %+v", r)
	}
	want := `{"sku":"BOOK-1","name":"Item BOOK-1","priceCents":"1250","tags":["new"],"kind":"KIND_BOOK"}`
	if string(r.Structured) != want || r.Text != want {
		t.Errorf("structured %s, text %s; want both %s", r.Structured, r.Text, want)
	}
	if m.calls.Load() != 1 {
		t.Errorf("the implementation ran %d times, want 1", m.calls.Load())
	}
}

func TestAResponseLeavesDefaultsOut(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":2}],"cardToken":"tok"}`)
	want := `{"id":"ord-1","totalCents":"2500","lineCount":1,"customerEmail":"a@example.com"}`
	if r.IsError || string(r.Structured) != want {
		t.Fatalf("got %+v, want structured %s", r, want)
	}
}

func TestProtoNamesAreAcceptedAsProtojsonDoes(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customer_email":"a@example.com","lines":[{"sku":"ABC","quantity":1}]}`)
	if r.IsError {
		t.Fatalf("got %+v", r)
	}
}

func TestStrictDecodingNamesEveryBadField(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1},{"sku":"DEF","qty":2},{"sku":7,"quantity":"x"}],`+
		`"labels":{"a b":3},"kind":"KIND_FOOD","cardToken":"t","invoiceRef":"i","extra":true}`)
	if !r.IsError {
		t.Fatalf("got %+v", r)
	}
	for _, want := range []string{
		"invalid arguments:",
		`- extra: is not allowed: unknown property "extra"; known properties: customerEmail, lines, labels, deliverAfter, cardToken, invoiceRef, note, kind`,
		`- lines[1].qty: is not allowed: unknown property "qty"; known properties: sku, quantity`,
		`- lines[2].sku: must be a string, got 7`,
		`- lines[2].quantity: must be an integer, got "x"`,
		`- labels["a b"]: must be a string, got 3`,
		`- kind: must be one of: "KIND_UNSPECIFIED", "KIND_BOOK", "KIND_TOOL", got "KIND_FOOD"`,
		`- invoiceRef: is not allowed with "cardToken": they are in the oneof payment, set at most one`,
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, r.Text)
		}
	}
	if m.calls.Load() != 0 {
		t.Errorf("the implementation ran")
	}
}

func TestStrictDecodingChecksIntegerRanges(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":4294967296}]}`)
	if !r.IsError || !strings.Contains(r.Text, "lines[0].quantity: must be between -2147483648 and 2147483647, got 4294967296") {
		t.Fatalf("got %+v", r)
	}
}

func TestAWellKnownTypeInTheWrongFormIsRefused(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"deliverAfter":"tomorrow"}`)
	if !r.IsError || !strings.HasPrefix(r.Text, "invalid arguments:") || !strings.Contains(r.Text, `- deliverAfter: invalid google.protobuf.Timestamp value "tomorrow"`) {
		t.Fatalf("got %+v", r)
	}
	r = m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"deliverAfter":"2026-12-01T10:00:00Z"}`)
	if r.IsError {
		t.Fatalf("a valid timestamp: got %+v", r)
	}
}

func TestProtovalidateViolationsAreListedWithTheirPaths(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"not-an-email","lines":[{"sku":"ABC","quantity":1},{"sku":"X","quantity":0}],"invoiceRef":"inv-1","note":"SEND IT NOW!"}`)
	if !r.IsError {
		t.Fatalf("got %+v", r)
	}
	for _, want := range []string{
		"invalid arguments:",
		`- customerEmail: must be a valid email address, got "not-an-email"`,
		"- lines[1].sku: must be at least 3 characters, got 1",
		"- lines[1].quantity: must be greater than or equal to 1 and less than or equal to 100, got 0",
		`- note: must not be written in capitals only, got "SEND IT NOW!"`,
		"- an invoice order needs a cost_center label",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, r.Text)
		}
	}
	if m.calls.Load() != 0 {
		t.Errorf("the implementation ran")
	}
	r = m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"invoiceRef":"inv-1","labels":{"cost_center":"cc-9"}}`)
	if r.IsError {
		t.Fatalf("the CEL rule met: got %+v", r)
	}
}

func TestAnInterceptorSeesTheCallWithItsHeadersAndCanRefuseIt(t *testing.T) {
	type seen struct {
		procedure, tool, auth, trace, session, custom string
	}
	got := make(chan seen, 4)
	interceptor := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			h := req.Header()
			got <- seen{req.Spec().Procedure, h.Get("Mcp-Tool"), h.Get("Authorization"), h.Get("Traceparent"), h.Get("Mcp-Session-Id"), h.Get("X-Tenant")}
			if h.Get("Authorization") != "Bearer good" {
				return nil, connect.NewError(connect.CodeUnauthenticated, errFrom("a valid token is required"))
			}
			return next(ctx, req)
		}
	})
	m := newShopServer(t, nil, connect.WithInterceptors(interceptor))
	const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`, "Authorization", "Bearer good", "Traceparent", trace, "X-Tenant", "not forwarded")
	if r.IsError {
		t.Fatalf("got %+v", r)
	}
	s := <-got
	want := seen{"/shop.v1.ShopService/GetItem", "get_item", "Bearer good", trace, "", ""}
	if s != want {
		t.Errorf("the interceptor saw %+v, want %+v", s, want)
	}
	r = m.call(t, "get_item", `{"sku":"BOOK-1"}`, "Authorization", "Bearer bad")
	if !r.IsError || r.Text != "forbidden: a valid token is required" {
		t.Errorf("refused by the interceptor: got %+v", r)
	}
	<-got
	if m.calls.Load() != 1 {
		t.Errorf("the implementation ran %d times, want 1", m.calls.Load())
	}
}

func TestOptionsForwardAndHeaderTravel(t *testing.T) {
	got := make(chan [2]string, 1)
	interceptor := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			got <- [2]string{req.Header().Get("X-Tenant"), req.Header().Get("X-Service")}
			return next(ctx, req)
		}
	})
	m := newShopServer(t, &protomcp.Options{Forward: []string{"x-tenant"}, Header: http.Header{"X-Service": {"mcp"}}}, connect.WithInterceptors(interceptor))
	m.call(t, "get_item", `{"sku":"BOOK-1"}`, "X-Tenant", "acme")
	if g := <-got; g != [2]string{"acme", "mcp"} {
		t.Errorf("got %q", g)
	}
}

func TestEveryConnectCodeMapsToItsRefusal(t *testing.T) {
	m := newShopServer(t, nil)
	for code, want := range map[connect.Code]string{
		connect.CodeNotFound:           "not-found",
		connect.CodeAlreadyExists:      "conflict",
		connect.CodeAborted:            "conflict",
		connect.CodeFailedPrecondition: "conflict",
		connect.CodePermissionDenied:   "forbidden",
		connect.CodeUnauthenticated:    "forbidden",
		connect.CodeInvalidArgument:    "invalid",
		connect.CodeOutOfRange:         "invalid",
		connect.CodeUnavailable:        "unavailable",
		connect.CodeResourceExhausted:  "unavailable",
		connect.CodeDeadlineExceeded:   "unavailable",
	} {
		r := m.call(t, "fail", `{"code":"`+code.String()+`","message":"the reason"}`)
		if !r.IsError || r.Text != want+": the reason" {
			t.Errorf("%s: got %+v, want %q", code, r, want+": the reason")
		}
	}
}

func TestOtherCodesAreMaskedAndLogged(t *testing.T) {
	m := newShopServer(t, nil)
	for _, code := range []connect.Code{connect.CodeUnknown, connect.CodeInternal, connect.CodeUnimplemented, connect.CodeDataLoss} {
		r := m.call(t, "fail", `{"code":"`+code.String()+`","message":"secret detail"}`)
		if !r.IsError || !strings.HasPrefix(r.Text, "the tool failed unexpectedly (ref ") || strings.Contains(r.Text, "secret") {
			t.Errorf("%s: got %+v", code, r)
			continue
		}
		ref := strings.TrimSuffix(strings.TrimPrefix(r.Text, "the tool failed unexpectedly (ref "), ")")
		if logs := m.logs.String(); !strings.Contains(logs, ref) || !strings.Contains(logs, "secret detail") {
			t.Errorf("%s: the log lacks the reference %s or the error:\n%s", code, ref, logs)
		}
	}
}

func TestBadRequestDetailsAreListed(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "fail", `{"code":"invalid_argument","message":"the order cannot be placed","badRequest":true}`)
	want := "invalid: the order cannot be placed:\n- lines[0].sku: no such SKU\n- customer_email: is blocked"
	if !r.IsError || r.Text != want {
		t.Errorf("got %q, want %q", r.Text, want)
	}
}

func errFrom(s string) error { return errors.New(s) }

func TestRuleMessagesReadAsTheRootsSentences(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"lines":[{"sku":"ABC","quantity":1}]}`)
	if r.Text != "invalid arguments:\n- customerEmail: is required" {
		t.Errorf("got %+v", r)
	}
	r = m.call(t, "get_item", `{"sku":"abc"}`)
	if !r.IsError || !strings.Contains(r.Text, "- sku: does not match regex pattern `^[A-Z0-9-]+$`") {
		t.Errorf("got %+v", r)
	}
}

func TestIntegersAreCheckedExactly(t *testing.T) {
	m := newShopServer(t, nil)
	for args, want := range map[string]string{
		`{"quantity":"9223372036854775808"}`: "must be between -2147483648 and 2147483647",
		`{"quantity":-1.5}`:                  "must be an integer, got -1.5",
		`{"quantity":"1e1"}`:                 "",
		`{"quantity":true}`:                  "must be an integer, got true",
	} {
		r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[`+args+`]}`)
		switch {
		case want == "" && strings.Contains(r.Text, "lines[0].quantity"):
			t.Errorf("%s: got %q", args, r.Text)
		case want != "" && !strings.Contains(r.Text, "lines[0].quantity: "+want):
			t.Errorf("%s: got %q, want %q", args, r.Text, want)
		}
	}
}

func TestAnUnknownFieldAndABrokenRuleAreReportedTogether(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "get_item", `{"sku":"x","colour":"red"}`)
	want := "invalid arguments:\n- colour: is not allowed: unknown property \"colour\"; known properties: sku\n- sku: must be at least 3 characters"
	if !r.IsError || !strings.HasPrefix(r.Text, want) {
		t.Errorf("got %q, want it to start with %q", r.Text, want)
	}
}

func TestAPredefinedRuleOfTheFilesIsEnforced(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"abc","quantity":1}]}`)
	if !r.IsError || !strings.Contains(r.Text, `- lines[0].sku: must use only capitals, digits and dashes, got "abc"`) {
		t.Errorf("got %+v", r)
	}
}

func TestRegistrationProblemsAreReturnedNamingWhatIsMissing(t *testing.T) {
	s := testShop(t)
	d := protomcp.Handler(http.NotFoundHandler())
	for name, tc := range map[string]struct {
		spec *protomcp.ServiceSpec
		opts *protomcp.Options
		want []string
	}{
		"unknown service": {&protomcp.ServiceSpec{Service: "shop.v1.Nothing"}, &protomcp.Options{Files: s.files}, []string{"service shop.v1.Nothing: not found"}},
		"not a service":   {&protomcp.ServiceSpec{Service: "shop.v1.Item"}, &protomcp.Options{Files: s.files}, []string{"shop.v1.Item is not a service"}},
		"not registered":  {&protomcp.ServiceSpec{Service: testservice.Service}, nil, []string{"service shop.v1.ShopService: not found in the descriptors"}},
		"methods": {&protomcp.ServiceSpec{Service: testservice.Service, Tools: []protomcp.ToolSpec{
			{Method: "Nope", Name: "nope"}, {Method: "Watch", Name: "watch"}, {Method: "GetItem", Name: "get_item"}}},
			&protomcp.Options{Files: s.files, Forward: []string{"Host"}}, []string{
				`Options.Forward: "Host" cannot be forwarded`,
				`tool "nope": service shop.v1.ShopService has no method Nope`,
				`tool "watch": method shop.v1.ShopService.Watch is streaming`}},
		"headers": {s.spec, &protomcp.Options{Files: s.files, Forward: []string{"Mcp-Session-Id", "Content-Type", "a b"},
			Header: http.Header{"Host": {"x"}, "X-Token": {"a\nb"}, "X:Y": {"z"}}}, []string{
			`Options.Forward: "Mcp-Session-Id" cannot be forwarded`, `Options.Forward: "Content-Type" cannot be forwarded`, `Options.Forward: "a b" is not a header name`,
			`Options.Header: "Host" cannot be set`, `Options.Header: "X-Token": a value must not hold control characters`, `Options.Header: "X:Y" is not a header name`}},
		"prompt without template": {&protomcp.ServiceSpec{Service: testservice.Service, Prompts: []protomcp.PromptSpec{{Name: "p", Description: "d"}}},
			&protomcp.Options{Files: s.files}, []string{`prompt "p" of shop.v1.ShopService has no template`}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", nil)
			err := protomcp.AddService(srv, tc.spec, d, tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
			if srv.Check() != nil {
				t.Errorf("something was registered: %v", srv.Check())
			}
		})
	}
	if err := protomcp.AddService(nil, s.spec, d, nil); err == nil {
		t.Error("a nil server: no error")
	}
}

func TestAToolNameTheProtocolRefusesIsReportedByCheck(t *testing.T) {
	s := testShop(t)
	spec := &protomcp.ServiceSpec{Service: testservice.Service, Tools: []protomcp.ToolSpec{{Method: "GetItem", Name: "get item", Description: "d"}}}
	srv := ferry.NewServer("s", "1", nil)
	if err := protomcp.AddService(srv, spec, protomcp.Handler(http.NotFoundHandler()), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), `"get item"`) {
		t.Errorf("Check: %v", err)
	}
}

func TestADispatcherAnsweringTheWrongTypeIsMasked(t *testing.T) {
	s := testShop(t)
	m := newMCPServer()
	wrong := protomcp.DispatcherFunc(func(context.Context, protoreflect.MethodDescriptor, proto.Message, http.Header) (proto.Message, error) {
		return &emptypb.Empty{}, nil
	})
	if err := protomcp.AddService(m.srv, s.spec, wrong, &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`)
	if !r.IsError || !strings.HasPrefix(r.Text, "the tool failed unexpectedly") || !strings.Contains(m.logs.String(), "not a shop.v1.Item") {
		t.Errorf("got %+v\n%s", r, m.logs)
	}
}

func TestARefusalFromADispatcherPassesAsItIs(t *testing.T) {
	s := testShop(t)
	m := newMCPServer()
	d := protomcp.DispatcherFunc(func(context.Context, protoreflect.MethodDescriptor, proto.Message, http.Header) (proto.Message, error) {
		return nil, ferry.Conflict("the item is reserved")
	})
	if err := protomcp.AddService(m.srv, s.spec, d, &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`); r.Text != "conflict: the item is reserved" {
		t.Errorf("got %+v", r)
	}
}

func TestAResponseLargerThanTheBoundIsRefused(t *testing.T) {
	s := testShop(t)
	big := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/proto")
		chunk := make([]byte, 1<<16)
		for range (protomcp.DefaultMaxResponseBytes >> 16) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, s.spec, protomcp.Handler(big), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`); !r.IsError || !strings.HasPrefix(r.Text, "unavailable: ") {
		t.Errorf("got %+v", r)
	}
}

func TestAbsentArgumentsAreAnEmptyRequest(t *testing.T) {
	m := newShopServer(t, nil)
	r := m.call(t, "get_item", `null`)
	if !r.IsError || !strings.Contains(r.Text, "- sku: must be at least 3 characters") {
		t.Errorf("got %+v", r)
	}
}

func TestConcurrentCallsEachGetTheirOwnAnswer(t *testing.T) {
	m := newShopServer(t, nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			sku := "SKU-" + string(rune('A'+i))
			r := m.call(t, "get_item", `{"sku":"`+sku+`"}`)
			if r.IsError || !strings.Contains(r.Text, `"sku":"`+sku+`"`) {
				t.Errorf("%s: got %+v", sku, r)
			}
		})
	}
	wg.Wait()
	if m.calls.Load() != 16 {
		t.Errorf("%d calls", m.calls.Load())
	}
}

// A tool's own Timeout on its spec bounds the dispatch: an interceptor
// that waits for its context is ended at the tool's deadline, not the
// server's, and the model reads that the tool timed out, naming it.
func TestAToolSpecTimeoutEndsTheDispatch(t *testing.T) {
	s := testShop(t)
	spec := *s.spec
	spec.Tools = slices.Clone(spec.Tools)
	for i := range spec.Tools {
		if spec.Tools[i].Name == "get_item" {
			spec.Tools[i].Timeout = 50 * time.Millisecond
		}
	}
	ended := make(chan error, 1)
	interceptor := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			<-ctx.Done() // a backend that does not answer
			ended <- ctx.Err()
			return nil, connect.NewError(connect.CodeDeadlineExceeded, ctx.Err())
		}
	})
	m := newMCPServer()
	calls := new(testservice.Calls)
	if err := protomcp.AddService(m.srv, &spec, protomcp.Handler(testservice.Handler(s.sd, calls, connect.WithInterceptors(interceptor))), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`)
	if !r.IsError || r.Text != "unavailable: the tool timed out after 50ms" {
		t.Errorf("got %+v", r)
	}
	if err := <-ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the dispatch's context ended with %v", err)
	}
}

// A tool spec's TaskSupport makes the tool run as a task: a client that
// speaks tasks gets one and reads the dispatch's answer from it; one that
// does not gets -32021 for a tool that requires a task.
func TestAToolSpecTaskSupportRunsItAsATask(t *testing.T) {
	s := testShop(t)
	spec := *s.spec
	spec.Tools = slices.Clone(spec.Tools)
	for i := range spec.Tools {
		if spec.Tools[i].Name == "get_item" {
			spec.Tools[i].TaskSupport = ferry.TaskRequired
		}
	}
	srv := ferry.NewServer("protomcp-test", "1.0.0", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{PollInterval: time.Millisecond}})
	if err := protomcp.AddService(srv, &spec, protomcp.Handler(testservice.Handler(s.sd, new(testservice.Calls))), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var task string
	res, err := c.CallToolAsTask(t.Context(), "get_item", map[string]string{"sku": "BOOK-1"}, func(tk *client.Task) { task = tk.ID })
	if err != nil || res.IsError || task == "" || !strings.Contains(string(res.StructuredContent), "BOOK-1") {
		t.Errorf("as a task: %+v, %v (task %q)", res, err, task)
	}
	var ce *client.Error
	if _, err := c.CallTool(t.Context(), "get_item", map[string]string{"sku": "BOOK-1"}); !errors.As(err, &ce) || ce.Code != ferry.CodeMissingClientCapability {
		t.Errorf("without tasks: %v, want -32021", err)
	}
}
