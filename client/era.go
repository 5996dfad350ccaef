package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/ferry-mcp/ferry"
)

// This file holds how a client picks its era: server/discover for the
// modern one, initialize for the legacy one, and the fallback between them.

// negotiate connects in the era Options.Protocol asks for.
func (c *Client) negotiate(ctx context.Context) error {
	switch v := c.opts.Protocol; {
	case v == "":
		err := c.discover(ctx, Version20260728)
		if err == nil || !fallsBack(err) {
			return err
		}
		if lerr := c.initialize(ctx, newestLegacy(err), false); lerr != nil {
			// Both eras failed: the first answer may say more than the second.
			return fmt.Errorf("%w (before it, server/discover: %w)", lerr, err)
		}
		return nil
	case v == Version20260728:
		return c.discover(ctx, v)
	case slices.Contains(legacyVersions, v):
		return c.initialize(ctx, v, true)
	default:
		return fmt.Errorf("client: unknown protocol version %q: use %s, %s, %s or %s",
			v, Version20260728, Version20251125, Version20250618, Version20250326)
	}
}

// fallsBack reports whether a failed server/discover means the server
// speaks only the legacy era: it answered with a JSON-RPC error (method not
// found, unsupported version, or a legacy server's refusal of a request
// before initialize), or HTTP refused the request as unknown or bad.
func fallsBack(err error) bool {
	if errors.Is(err, errNotModern) {
		return true
	}
	if re, ok := errors.AsType[*Error](err); ok {
		return re.status != http.StatusUnauthorized && re.status != http.StatusForbidden
	}
	if se, ok := errors.AsType[*StatusError](err); ok {
		switch se.StatusCode {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType:
			return true
		}
	}
	return false
}

// errNotModern is a server/discover answer that names no version the
// client speaks.
var errNotModern = errors.New("client: the server speaks no modern version the client does")

// newestLegacy returns the newest legacy version that a -32022 error says
// the server supports, or the newest the client knows.
func newestLegacy(err error) string {
	if re, ok := errors.AsType[*Error](err); ok && re.Code == ferry.CodeUnsupportedProtocolVersion {
		var d struct {
			Supported []string `json:"supported"`
		}
		if json.Unmarshal(re.Data, &d) == nil {
			for _, v := range legacyVersions {
				if slices.Contains(d.Supported, v) {
					return v
				}
			}
		}
	}
	return legacyVersions[0]
}

// discover connects in the modern era with version.
func (c *Client) discover(ctx context.Context, version string) error {
	c.protocol, c.modern = version, true
	c.t.setProtocol(version)
	var res struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions"`
		Meta              struct {
			ServerInfo *ServerInfo `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	raw, err := c.roundTrip(ctx, "server/discover", map[string]json.RawMessage{})
	if err == nil {
		if err = json.Unmarshal(raw, &res); err != nil {
			err = fmt.Errorf("client: the server/discover result does not decode: %w", err)
		}
	}
	if err != nil {
		c.protocol, c.modern = "", false
		return err
	}
	if !slices.Contains(res.SupportedVersions, version) {
		c.protocol, c.modern = "", false
		return fmt.Errorf("%w: it offers %v", errNotModern, res.SupportedVersions)
	}
	if res.Meta.ServerInfo != nil {
		c.info = *res.Meta.ServerInfo
	}
	c.info.Instructions, c.info.Capabilities = res.Instructions, res.Capabilities
	c.info.SupportedVersions, c.info.Raw = res.SupportedVersions, raw
	return nil
}

// initialize opens a legacy session asking for version; exact refuses a
// server that answers with another version.
func (c *Client) initialize(ctx context.Context, version string, exact bool) error {
	c.protocol, c.modern = "", false
	c.t.setProtocol("")
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": version,
		"capabilities":    c.capabilities(),
		"clientInfo":      c.clientInfo(),
	})
	var p map[string]json.RawMessage
	_ = json.Unmarshal(params, &p)
	raw, err := c.roundTrip(ctx, "initialize", p)
	if err != nil {
		return err
	}
	var res struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      *ServerInfo     `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("client: the initialize result does not decode: %w", err)
	}
	switch {
	case !slices.Contains(legacyVersions, res.ProtocolVersion):
		return fmt.Errorf("client: the server answered initialize with protocol version %q, which the client does not speak", res.ProtocolVersion)
	case exact && res.ProtocolVersion != version:
		return fmt.Errorf("client: asked for protocol version %s, the server offers %s", version, res.ProtocolVersion)
	}
	if res.ServerInfo != nil {
		c.info = *res.ServerInfo
	}
	c.info.Instructions, c.info.Capabilities, c.info.Raw = res.Instructions, res.Capabilities, raw
	c.protocol = res.ProtocolVersion
	c.t.setProtocol(res.ProtocolVersion)
	if err := c.t.notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("client: sending notifications/initialized: %w", err)
	}
	return nil
}
