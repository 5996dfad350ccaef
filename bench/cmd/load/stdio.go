package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// maxInflight bounds -inflight; request IDs encode the slot as id % maxInflight.
const maxInflight = 1024

// runStdio spawns the server with -stdio, initializes, then keeps
// cfg.inflight add calls outstanding on the pipe. It fails if the server
// did not exit cleanly, after the result is out.
func runStdio(cfg *config) (err error) {
	if cfg.inflight < 1 || cfg.inflight > maxInflight {
		return fmt.Errorf("-inflight must be in [1, %d]", maxInflight)
	}
	cmd := serverCommand(cfg, "-impl", cfg.impl, "-stdio")
	p, stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return err
	}
	// On an early return this stops the server; at the end it returns what
	// the p.stop below did.
	defer func() { err = cmpOr(err, p.stop()) }()
	in := bufio.NewReaderSize(stdout, 1<<20)
	out := bufio.NewWriterSize(stdin, 64<<10)
	if err := stdioHandshake(in, out, cfg.protocol); err != nil {
		return err
	}

	var phase atomic.Int32
	base := time.Now()
	var starts [maxInflight]atomic.Int64
	free := make(chan int, cfg.inflight)
	for s := range cfg.inflight {
		free <- s
	}
	done := make(chan struct{})
	rec := &recorder{}
	var wg sync.WaitGroup
	wg.Go(func() { // reader
		defer close(done)
		readResponses(in, &phase, base, starts[:], free, rec)
	})
	var writeErr error
	wg.Go(func() { // writer
		writeErr = writeCalls(out, &phase, base, starts[:], free, done)
	})
	res := measure(cfg, p.pid(), &phase)
	// Let the outstanding calls drain, then close stdin so the server exits.
	drain := time.After(5 * time.Second)
	for range cfg.inflight {
		select {
		case <-free:
		case <-done:
		case <-drain:
		}
	}
	stdin.Close()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
	stopErr := p.stop()
	wg.Wait()
	res.c = cfg.inflight
	res.collect([]recorder{*rec})
	if writeErr != nil && !errors.Is(writeErr, io.ErrClosedPipe) {
		res.errors++
		res.firstErr = cmpOr(res.firstErr, writeErr)
	}
	return cmpOr(res.emit(cfg, "stdio"), stopErr)
}

// stdioHandshake sends initialize, waits for its response, then sends
// notifications/initialized.
func stdioHandshake(in *bufio.Reader, out *bufio.Writer, proto string) error {
	if err := sendLine(out, wire.InitializeBody(0, proto)); err != nil {
		return err
	}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("reading initialize response: %w", err)
		}
		if !bytes.Contains(line, []byte(`"id"`)) {
			continue // a notification or log message
		}
		if _, err := wire.DecodeResponse(line); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		return sendLine(out, wire.InitializedBody)
	}
}

// sendLine writes msg and a newline to out and flushes it.
func sendLine(out *bufio.Writer, msg []byte) error {
	if _, err := out.Write(msg); err != nil {
		return err
	}
	if err := out.WriteByte('\n'); err != nil {
		return err
	}
	return out.Flush()
}

// writeCalls sends add calls whenever a slot is free, flushing only when it
// would otherwise wait, until the stop phase.
func writeCalls(out *bufio.Writer, phase *atomic.Int32, base time.Time, starts []atomic.Int64, free chan int, done <-chan struct{}) error {
	var buf []byte
	for seq := int64(1); phase.Load() != phaseStop; seq++ {
		var slot int
		select {
		case slot = <-free:
		default:
			if err := out.Flush(); err != nil {
				return err
			}
			select {
			case slot = <-free:
			case <-done:
				return errors.New("server closed its output")
			}
		}
		if phase.Load() == phaseStop {
			free <- slot
			break
		}
		starts[slot].Store(int64(time.Since(base)))
		buf = wire.AppendAddCall(buf[:0], seq*maxInflight+int64(slot))
		buf = append(buf, '\n')
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
	return out.Flush()
}

// readResponses verifies each response and returns its slot to free.
func readResponses(in *bufio.Reader, phase *atomic.Int32, base time.Time, starts []atomic.Int64, free chan int, rec *recorder) {
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			if phase.Load() != phaseStop {
				rec.fail(fmt.Errorf("reading server output: %w", err))
			}
			return
		}
		now := time.Since(base)
		if !bytes.Contains(line, []byte(`"id"`)) {
			continue
		}
		r, err := wire.CheckAdd(line)
		if r == nil {
			rec.fail(err)
			continue
		}
		id, perr := strconv.ParseInt(string(bytes.Trim(r.ID, `"`)), 10, 64)
		if perr != nil || id < maxInflight {
			rec.fail(cmpOr(err, fmt.Errorf("unexpected response id %s", r.ID)))
			continue
		}
		slot := int(id % maxInflight)
		if err != nil {
			rec.fail(err)
		} else if phase.Load() == phaseMeasure {
			rec.lat = append(rec.lat, now-time.Duration(starts[slot].Load()))
		}
		free <- slot
	}
}
