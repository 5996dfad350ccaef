package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"connectrpc.com/connect"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1connect"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1ferry"
	"github.com/ferry-mcp/ferry/protomcp"
)

// NewHandler serves svc over Connect at / and as MCP tools and prompts at
// /mcp. The tools call the same Connect handler, in process, so the
// service's interceptors (keys' check and the audit log) decide for a
// tool call as for any other client.
func NewHandler(svc weatherv1connect.WeatherServiceHandler, keys map[string]bool, logger *slog.Logger) (http.Handler, error) {
	path, api := weatherv1connect.NewWeatherServiceHandler(svc,
		connect.WithInterceptors(Audit(logger), RequireKey(keys)))
	connectMux := http.NewServeMux()
	connectMux.Handle(path, api)

	mcp := ferry.NewServer("weather", "1.0.0", &ferry.ServerOptions{Logger: logger})
	if err := weatherv1ferry.AddWeatherServiceTools(mcp, protomcp.Handler(connectMux), nil); err != nil {
		return nil, err
	}
	if err := mcp.Check(); err != nil {
		return nil, err
	}
	root := http.NewServeMux()
	root.Handle("/", connectMux)
	root.Handle("/mcp", ferry.NewHTTPHandler(mcp, nil))
	return root, nil
}

// Audit logs every call the service handles: its procedure and, for a call
// made for an MCP tool, the tool's name (the Mcp-Tool header).
func Audit(logger *slog.Logger) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			resp, err := next(ctx, req)
			logger.InfoContext(ctx, "call", "procedure", req.Spec().Procedure,
				"tool", req.Header().Get(protomcp.HeaderTool), "code", codeOf(err))
			return resp, err
		}
	}
}

func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	return connect.CodeOf(err).String()
}

// RequireKey lets only holders of one of keys (a bearer token) set alerts;
// reading forecasts needs no key. A tool call carries the MCP request's
// Authorization header, so the rule holds for agents too.
func RequireKey(keys map[string]bool) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if req.Spec().Procedure == weatherv1connect.WeatherServiceSetAlertProcedure {
				key, ok := strings.CutPrefix(req.Header().Get("Authorization"), "Bearer ")
				if !ok || !keys[key] {
					return nil, connect.NewError(connect.CodePermissionDenied, errors.New("setting alerts needs an API key: send it as a bearer token"))
				}
			}
			return next(ctx, req)
		}
	}
}
