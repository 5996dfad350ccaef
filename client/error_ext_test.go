package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// An error a client's answer function returns reaches the server with its
// code, which is the server package's own Code: the server's ClientError
// and the client's Error carry one type.
func TestAnAnswerErrorReachesTheServerWithItsCode(t *testing.T) {
	srv := ferry.NewServer("codes", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "ask", Description: "Asks the user and says how the client refused."},
		func(ctx context.Context, _ struct{}) (string, error) {
			_, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"})
			if ce, ok := errors.AsType[*ferry.ClientError](err); ok {
				return ce.Code.String() + ": " + ce.Message, nil
			}
			return "", err
		})
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}), &client.Options{
		Protocol: client.Version20251125,
		Elicit: func(context.Context, *client.ElicitParams) (*client.ElicitResult, error) {
			return nil, client.NewError(ferry.CodeURLElicitationRequired, "open %s first", "https://example.com/consent")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Text(), "URL elicitation required: open https://example.com/consent first"; got != want {
		t.Errorf("the tool says %q, want %q", got, want)
	}
}

// A server's protocol error reaches the client with the code the server
// chose, comparable with the server package's constants.
func TestAServerErrorKeepsItsCode(t *testing.T) {
	srv := ferry.NewServer("codes", "1", nil)
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Call(t.Context(), "no/such_method", nil, nil)
	if e, ok := errors.AsType[*client.Error](err); !ok || e.Code != ferry.CodeMethodNotFound || e.Code.String() != "method not found" {
		t.Errorf("an unknown method: %v", err)
	}
}
