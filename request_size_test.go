package ferry

import (
	"runtime"
	"testing"
)

var sinkRequest *request

// Every request allocates one request struct: it must stay within the
// 704-byte size class (objects over 512 bytes that hold pointers carry an
// 8-byte header, so the struct may be at most 696 bytes), or every call
// pays for a bigger one.
func TestRequestStaysInItsSizeClass(t *testing.T) {
	least := uint64(1 << 20)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 1000 {
			sinkRequest = new(request)
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/1000)
	}
	if least > 704 {
		t.Errorf("a request allocates %d bytes, want at most 704: keep new fields in padding or behind a pointer", least)
	}
}
