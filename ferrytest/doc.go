// Package ferrytest tests Ferry servers and implementations of Ferry's
// interfaces from ordinary Go tests, with no network.
//
// A test connects an in-memory client to a server, calls its tools and
// checks the results:
//
//	func TestAdd(t *testing.T) {
//		c := ferrytest.NewClient(t, newServer(), nil)
//		out, _ := ferrytest.Call[AddOut](t, c, "add", AddIn{A: 2, B: 3})
//		if out.Sum != 5 {
//			t.Errorf("sum = %d", out.Sum)
//		}
//	}
//
// # Clients
//
// [NewClient] connects a [Client] to a [ferry.Server] through
// [ferry.NewHTTPHandler] and [client.DialHandler]: requests are served
// in process, in the modern era (2026-07-28) unless [Options.Protocol]
// names a legacy version. [DialHandler] connects the same way to any
// handler that serves MCP at /mcp (a server behind the application's
// middleware), and [DialHTTP] to a server at a URL. Its methods fail the
// test on a protocol or transport error; [Client.Raw] returns the
// [client.Client] for tests that expect one. [Options.Elicit],
// [Options.CreateMessage] and [Options.ListRoots] answer the server's
// questions in either era, [Options.Header] is sent with every request
// (credentials), and [Options.Principal] serves every request as a given
// caller, so tools limited by scopes or roles are tested without tokens.
//
// # Logs
//
// A [Buffer] collects what a server's goroutines write while the test
// runs: [Buffer.Logger] is a logger for [ferry.ServerOptions] that writes
// JSON records into it, and [Buffer.Records] reads back the records with
// a given message, to check what the server logged.
//
// # Golden tools
//
// [GoldenTools] compares tools/list with a file under testdata, so that a
// change of a name, a description or a schema shows up in review. Run the
// package's tests with -update (go test ./mypkg -update) to rewrite the
// files; the package registers the flag. Name only packages that import
// ferrytest: go test ./... -update fails in every other one, whose test
// binary has no such flag.
//
// # Protocol checks
//
// [CheckServer] checks that a server answers the protocol correctly in
// both eras: the handshake, well-formed tools, prompts, resources and
// templates, deterministic lists, the errors of unknown names and
// malformed requests. [CheckHandler] runs the same checks against any MCP
// server's [net/http.Handler].
//
// # Session stores
//
// [RunSessionStoreTests] checks a [ferry.SessionStore] against the contract
// its methods document, in the style of testing/slogtest: copies in and
// out, atomic updates that lose nothing under concurrency, not-found
// errors, and expiry on the real clock.
//
//	func TestRedisSessionStore(t *testing.T) {
//		ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
//			return newTestRedisStore(t, idle)
//		})
//	}
package ferrytest
