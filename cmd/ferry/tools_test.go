package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestTools(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("tools", target))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			decodeStdout(t, stdout, &got)
			if len(got.Tools) != 2 || got.Tools[0].Name != "get_order" || got.Tools[1].Name != "whoami" {
				t.Errorf("tools %+v, want get_order and whoami", got.Tools)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, got.Tools[0].InputSchema); err != nil || !strings.Contains(compact.String(), `"minimum":1`) {
				t.Errorf("get_order's schema %s is not the server's", got.Tools[0].InputSchema)
			}
		})
	}
}
