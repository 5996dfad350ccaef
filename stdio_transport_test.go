package ferry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// A line over the limit is skipped with an error, and the connection goes
// on serving.
func TestStdioSkipsOversizedLines(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxLineBytes) + `"}}`
	in := huge + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	var out bytes.Buffer
	if err := NewServer("s", "1", nil).Run(t.Context(), &IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "message too large") || lines[1] != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("got %q", lines)
	}
}

// blockingReader never returns from Read until released, and cannot be
// closed, like standard input.
type blockingReader struct{ release chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.release
	return 0, io.EOF
}

// Close unblocks a pending Read, as [Connection] promises, even on a
// reader that cannot be closed.
func TestStdioCloseUnblocksRead(t *testing.T) {
	r := blockingReader{release: make(chan struct{})}
	defer close(r.release)
	conn, err := (&IOTransport{Reader: r, Writer: io.Discard}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(t.Context())
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // let Read block
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrConnectionClosed) {
			t.Errorf("Read after Close = %v, want ErrConnectionClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
}

// Run returns when its context ends even while its client sends nothing,
// on a reader that cannot be closed.
func TestRunReturnsOnCancelWhileReadBlocks(t *testing.T) {
	r := blockingReader{release: make(chan struct{})}
	defer close(r.release)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- NewServer("s", "1", nil).Run(ctx, &IOTransport{Reader: r, Writer: io.Discard}) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// On stdio, a subscriptions/listen holds from the moment it is read: a
// change made by the very next request reaches it, without the client
// waiting for the acknowledgement.
func TestStdioListenHoldsBeforeTheNextRequest(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for i := range 50 {
		srv := newWatchedServer(io.Discard)
		srv.AddTool(Tool{Name: "touch", Description: "Changes r://x."}, func(context.Context, *CallToolRequest) (*ToolResult, error) {
			srv.NotifyResourceUpdated("r://x")
			return &ToolResult{}, nil
		})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- srv.Run(t.Context(), &IOTransport{Reader: inR, Writer: outW}) }()
		go func() {
			_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["r://x"]},`+meta+`}}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"touch",`+meta+`}}`+"\n")
		}()
		found := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(outR)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "notifications/resources/updated") {
					close(found)
					break
				}
			}
			for sc.Scan() { // keep the server's writes flowing
			}
		}()
		select {
		case <-found:
		case <-time.After(5 * time.Second):
			t.Fatalf("run %d: the update made right after the listen never arrived", i)
		}
		inW.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		outW.Close()
	}
}
