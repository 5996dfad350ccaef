package ferry

import "sync"

// workers runs a connection's requests on goroutines that are kept and
// reused: a request's goroutine grows its stack once (JSON decoding is
// deep), not once per request. A job that finds no idle worker gets a new
// goroutine, so a request that blocks (waiting for the client's answer)
// never holds up the others. Workers stay until stop; their number is the
// connection's peak of requests in flight.
type workers struct {
	jobs chan func() // unbuffered: a send succeeds only when a worker is idle
	stop chan struct{}
	wg   sync.WaitGroup
}

func newWorkers() *workers {
	return &workers{jobs: make(chan func()), stop: make(chan struct{})}
}

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.jobs <- f:
	default:
		w.wg.Add(1)
		go w.loop(f)
	}
}

func (w *workers) loop(f func()) {
	defer w.wg.Done()
	for {
		f()
		select {
		case f = <-w.jobs:
		case <-w.stop:
			return
		}
	}
}

// close ends the idle workers once the running jobs are done, and waits.
func (w *workers) close() {
	close(w.stop)
	w.wg.Wait()
}
