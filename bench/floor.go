package bench

import (
	"io"
	"net/http"
	"sync"
)

// floorAnswer is the floor's one answer: a correct add result, whatever was
// asked. The load generator accepts it for the handshake too.
var floorAnswer = []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5}}}`)

// floorImpl is the bare net/http floor: a handler that reads the body and
// writes a constant answer. It parses nothing, so it measures what net/http
// itself costs per call; a framework's CPU per call is reported as a ratio
// to it. It serves HTTP only: stdio clients match answers by id.
func floorImpl() Impl {
	return Impl{
		Name: "floor",
		Handler: func(stateful bool) http.Handler {
			if stateful {
				return nil
			}
			return http.HandlerFunc(serveFloor)
		},
	}
}

var floorBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

func serveFloor(w http.ResponseWriter, r *http.Request) {
	bp := floorBufs.Get().(*[]byte)
	defer floorBufs.Put(bp)
	for {
		if _, err := r.Body.Read(*bp); err != nil {
			if err != io.EOF {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			break
		}
	}
	w.Header()["Content-Type"] = limitJSON
	_, _ = w.Write(floorAnswer)
}
