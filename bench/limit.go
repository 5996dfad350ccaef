package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// limitImpl is the baseline: a plain handler that decodes each JSON-RPC
// message with encoding/json, runs the tool and encodes the result. It keeps
// no sessions and does no validation, so no framework can be faster by more
// than noise.
func limitImpl() Impl {
	return Impl{
		Name: "limit",
		Handler: func(stateful bool) http.Handler {
			if stateful {
				return nil
			}
			return http.HandlerFunc(serveLimitHTTP)
		},
		ServeStdio: serveLimitStdio,
	}
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callToolResult struct {
	Content           []textContent `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
}

type toolInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

var limitTools = []toolInfo{
	{Name: "add", Description: AddDescription, InputSchema: AddInputSchema, OutputSchema: AddOutputSchema},
	{Name: "echo", Description: EchoDescription, InputSchema: EchoInputSchema},
}

// handleLimit answers one JSON-RPC message. It returns nil for notifications.
func handleLimit(req *rpcRequest) *rpcResponse {
	if len(req.ID) == 0 {
		return nil
	}
	resp := &rpcResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		resp.Result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "bench", "version": "1.0.0"},
		}
	case "ping":
		resp.Result = struct{}{}
	case "tools/list":
		resp.Result = map[string]any{"tools": limitTools}
	case "tools/call":
		res, err := callLimitTool(req.Params)
		if err != nil {
			resp.Error = &rpcError{Code: -32602, Message: err.Error()}
		} else {
			resp.Result = res
		}
	default:
		resp.Error = &rpcError{Code: -32601, Message: "method not found"}
	}
	return resp
}

func callLimitTool(params json.RawMessage) (*callToolResult, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	switch p.Name {
	case "add":
		out, text, err := Add(p.Arguments)
		if err != nil {
			return &callToolResult{Content: []textContent{{Type: "text", Text: err.Error()}}, IsError: true}, nil
		}
		return &callToolResult{Content: []textContent{{Type: "text", Text: text}}, StructuredContent: out}, nil
	case "echo":
		var in EchoInput
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return &callToolResult{Content: []textContent{{Type: "text", Text: err.Error()}}, IsError: true}, nil
		}
		return &callToolResult{Content: []textContent{{Type: "text", Text: in.Text}}}, nil
	}
	return nil, fmt.Errorf("unknown tool %q", p.Name)
}

func serveLimitHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	resp := handleLimit(&req)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// serveLimitStdio answers messages in order on one goroutine, flushing
// whenever no further input is buffered.
func serveLimitStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	for ctx.Err() == nil {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, io.EOF) {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var req rpcRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return err
		}
		if resp := handleLimit(&req); resp != nil {
			if err := enc.Encode(resp); err != nil {
				return err
			}
		}
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}
