package protomcp_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"
)

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
