// Package protomcpbench measures what serving a Connect method as an MCP
// tool costs (see protomcp_test.go). It is a module of its own so that
// the bench module builds at revisions older than protomcp, which
// bench/compare.sh relies on.
package protomcpbench
